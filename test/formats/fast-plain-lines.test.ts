import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainLinesReader } from '../../src/formats/plain-lines.ts';
import { plainLinesReader as referencePlainLinesReader } from './reference/plain-lines.ts';
import { assertSameOnLargeDocuments, assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';

// The plain-lines reader reads the usual `name: value unit` line in place and
// hands every other line to its general path; here it is compared with the
// reader as it was before (test/formats/reference/plain-lines.ts).

const NAMES = ['decode/case 1', 'decode/case 2', 'a', 'with: colon', '  padded  ', 'µ name', 'x\u00a0y', 'tab\tname', 'dup', 'dup ', '', 'line\u2028break', 'cr\rname', '::'];
const SPACE = [' ', '  ', '\t', '', '\u00a0', '\u3000', ' \t '];
const VALUES = ['812.5', '1', '0', '0.0001', '5.', '.5', '.', '1.2.3', '1,234', '-1', '+2', '1e3', '123456789012345', '1234567890123456', '12345678901234567890', '0.1234567890123456789', '9'.repeat(400), 'x'];
const UNITS = ['ns', 'us', 'µs', 'μs', 'ms', 's', 'sec', 'ks', 'mss', 'Ms', 'min', '', 'm', 'mx', 'n', 'µ', 'ss'];
const OTHER = ['== round 1 ==', '', '   ', '# heading', 'hello world', 'total: 5', 'done in 3 s', 'ns', 's'];

function resultLine(random: () => number): string {
  const parts = [pick(random, NAMES), ':', pick(random, SPACE), pick(random, VALUES), pick(random, SPACE), pick(random, UNITS)];
  if (random() < 0.1) parts.push(pick(random, [' ', '\t', '\u00a0', '\r', ' x']));
  if (random() < 0.05) parts.splice(Math.floor(random() * parts.length), 1);
  if (random() < 0.5) parts[2] = ' ';
  return parts.join('');
}

function plainDocument(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 30);
  const mode = random();
  for (let i = 0; i < count; i++) {
    if (mode < 0.15 || random() < 0.2) lines.push(pick(random, OTHER));
    else if (mode < 0.6) lines.push(`${pick(random, NAMES.slice(0, 4))}: ${pick(random, VALUES.slice(0, 4))} ${random() < 0.9 ? pick(random, UNITS.slice(0, 6)) : pick(random, UNITS)}`);
    else lines.push(resultLine(random));
  }
  return lines.join(random() < 0.8 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

/** plainRounds is rounds of a suite, each under a heading, with an odd line now and then. */
function plainRounds(random: () => number): string {
  const names = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => `decode/case ${i}`);
  const unit = pick(random, ['ns', 'µs', 'ms']);
  const lines: string[] = [];
  for (let round = 0; round < 1 + Math.floor(random() * 5); round++) {
    lines.push(`== round ${round} ==`);
    for (const name of names) lines.push(random() < 0.03 ? resultLine(random) : `${name}: ${(random() * 1000).toFixed(Math.floor(random() * 4))} ${random() < 0.9 ? unit : pick(random, UNITS)}`);
  }
  // Nothing but headings now and then, which the reader refuses.
  return random() < 0.15 ? lines.filter((l) => l.startsWith('==')).join('\n') : lines.join('\n');
}

describe('fast plain-lines reader agrees with the reference reader', () => {
  it('on every plain fixture', () => {
    for (const file of fixturesOf('plain')) assertSameOutcome(plainLinesReader, referencePlainLinesReader, file);
  });

  it('on tricky lines', () => {
    const texts = [
      'a: 5 ms\r\na: 6 ms\r\n',
      'a: 5 ms\ra: 6 ms',
      'a: 5 ms\na: 6 s\na: 7 ns\na: 8 µs\na: 9 μs\na: 1 us',
      'a: 0.1 ms\na: 0.2 ms\na: 0.30000000000000004 ms',
      'a: 5 ms\nb: 6 ms\na: 7 ms\nb: 8 ms\nab: 9 ms\na: 1 ms\nb: 2 ms',
      'a: 5 ms\na:5 ms\na :5 ms\n a : 5 ms \na: 5ms\na:\t5\tms\t',
      'a: 5 ms\na: 99999999999999999999999 ms',
      `a: 5 ms\na: ${'9'.repeat(400)} ms`,
      'a: 1.5 s\na: 2.5 sec\na: 3.5 mss',
      'a: 5 ms\na: 6 mx\na: 7 m\na: 8 n\na: 9 µ\na: 1 ks\na: 2 ss\na: 3 s s',
      'a: 5 ms\na:  6 ms\na:\t7\tms\na: 8  ms  \na: 9 ms\t\na: 1. ms\na: .5 ms\na: 1.2.3 ms\na: 1,234 ms',
      ': 5 ms\n  : 5 ms\na: 5 ms',
      'a\u2028b: 5 ms\na: 5 ms',
      'x: 5 ms\u00a0\nx: 6 ms\u3000',
      // Lines read forwards to their end by the expected name: every way a line can end.
      'a: 5 ms\na: 6 ms\r',
      'a: 5 ms\na: 6 ms\r\r\na: 7 ms',
      'a: 5 ms\na: 6 ms \r\na: 7 ms\t\n',
      'a: 5 ms\na: 6 ms\n\na: 7 ms\n',
      'a: 5 ms\na: 6 ms x\na: 7 msx\na: 8 ms\u00a0\na: 9 ms\u2028\na: 1 ms',
      'a: 5 ms\na: 6 s\na: 7 s\na: 8 ms\na: 9 x\na: 1 ns',
      'a: 5 ms\nb: 6 s\na: 7 ms\nb: 8 ms\na: 9 ms\nb: 1 ns\nb: 2 ns',
      'ab: 5 ms\na: 6 ms\nab: 7 ms\na\nb: 8 ms\nab\n: 9 ms',
      'nothing here\n',
      '',
      '\n\n',
    ];
    for (const text of texts) assertSameOutcome(plainLinesReader, referencePlainLinesReader, { path: 'bench.txt', text });
  });

  it('on documents larger than the window the reader reads lines from', () => {
    // Lines across the window's edges, names longer than its margin, a last line cut short or ending in `\r`.
    assertSameOnLargeDocuments(plainLinesReader, referencePlainLinesReader, (random) => {
      const names = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, i) => (random() < 0.2 ? 'x'.repeat(Math.floor(random() * 9000)) : 'case') + ` ${i}`);
      return {
        line: (i) => (random() < 0.01 ? pick(random, OTHER) : `${names[i % names.length]}: ${(random() * 1000).toFixed(Math.floor(random() * 3))} ${pick(random, ['ms', 'µs', 'μs'])}`),
        tails: [names[0], `${names[0]}:`],
      };
    });
    // Lines longer than the window's margin, some across its end; those that end in `x` are no results.
    const text = Array.from({ length: 100 }, (_, i) => `a: ${i} ms${' '.repeat(5000 + i * 37)}${i % 2 === 0 ? 'x' : ''}`).join('\n');
    assert.equal(assertSameOutcome(plainLinesReader, referencePlainLinesReader, { path: 'bench.txt', text }), 'read');
  });

  it(`on ${CASES} random documents (seed ${SEED})`, () => {
    assertSameOnRandom(plainLinesReader, referencePlainLinesReader, plainDocument);
  });

  it(`on ${CASES} random rounds of a suite`, () => {
    assertSameOnRandom(plainLinesReader, referencePlainLinesReader, plainRounds);
  });
});
