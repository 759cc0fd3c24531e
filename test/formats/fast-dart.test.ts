import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dartReader } from '../../src/formats/dart.ts';
import { dartReader as referenceDartReader } from './reference/dart.ts';
import { assertSameOnLargeDocuments, assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';

// The Dart reader reads the usual `Name(RunTime): X us.` line in place and
// skips lines without a keyword on sight; every other line goes its general
// way. Here it is compared with the reader as it was before
// (test/formats/reference/dart.ts).

const NAMES = ['growable[1]', 'growable[2]', 'Fib', ' padded ', 'µ', 'a(RunTime): 1 us. b', 'x\u2028y', 'x\u00a0', 'tab\t', '', '(RunTime)', 'List.filled'];
const VALUES = ['1.8629797056305768', '31464.890625', '713', '0', '5.', '.5', '.', '1.2.3', '-1', '+2', '1e3', '1.5e-7', '1,234', '123456789012345678901234567890', '9'.repeat(400), 'NaN', 'fast', '9007199254740993', '123456789012345.6', '12345678901234.5', '0.000000000000000000000001', '0.1000000000000000055511151231257827'];
const UNITS = [' us.', ' us', ' us. ', ' us.\t', ' us..', ' ms.', 'us.', ' us.\u00a0', ' us.x', '  us.'];
const EVENTS = [
  'benchmark_harness[{"event":"benchmark.result","params":{"name":"Fib","elapsed":12.5,"iterations":10}}]',
  'benchmark_harness[{"event":"benchmark.result","params":{"name":"growable[1]","values":[1,2,3],"iterations":2}}]',
  'benchmark_harness[{"event":"benchmark.result","params":{"name":"x\\u2028y","elapsed":1,"iterations":1}}]',
  'benchmark_harness[{"event":"benchmark.start","params":{}}]',
  'benchmark_harness[{"event":"benchmark.result","params":{"name":"Fib"}}]',
  'benchmark_harness[{"event"',
];
const OTHER = ['', 'Running Gradle task', 'Results for lib/main.benchmark.dart', 'Fib: 131.607 (±0.845) ns/iteration (fastest)', 'growable[1]: 5 ms/iteration', 'Fib: 2 us/iteration', 'hello', '✓ Built build/app'];
const PREFIXES = ['', '', '', 'I/flutter (18126): ', 'flutter: ', 'E/x(1): '];

function runTimeLine(random: () => number): string {
  const line = `${pick(random, NAMES)}(RunTime): ${pick(random, VALUES)}${pick(random, UNITS)}`;
  return random() < 0.1 ? `${pick(random, PREFIXES)}${line}` : line;
}

function dartDocument(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 30);
  const mode = random();
  for (let i = 0; i < count; i++) {
    const r = random();
    if (mode < 0.12 || r < 0.15) lines.push(pick(random, OTHER));
    else if (r < 0.22) lines.push(pick(random, EVENTS));
    else if (mode < 0.6) lines.push(`${pick(random, NAMES.slice(0, 3))}(RunTime): ${pick(random, VALUES.slice(0, 4))} us.`);
    else lines.push(runTimeLine(random));
  }
  return lines.join(random() < 0.8 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

/** dartRounds is a suite run again and again, with an odd line now and then. */
function dartRounds(random: () => number): string {
  const names = Array.from({ length: 1 + Math.floor(random() * 30) }, (_, i) => `growable[${i}]`);
  const lines: string[] = [];
  for (let round = 0; round < 1 + Math.floor(random() * 5); round++) {
    for (const name of names) lines.push(random() < 0.03 ? runTimeLine(random) : random() < 0.01 ? pick(random, EVENTS) : `${name}(RunTime): ${1 + random() * 100} us.`);
  }
  return random() < 0.12 ? lines.map(() => 'hello').join('\n') : lines.join('\n');
}

describe('fast Dart reader agrees with the reference reader', () => {
  it('on every Dart fixture', () => {
    for (const file of fixturesOf('dart')) assertSameOutcome(dartReader, referenceDartReader, file);
  });

  it('on tricky lines', () => {
    const texts = [
      'A(RunTime): 5 us.\r\nA(RunTime): 6 us\r\n',
      'A(RunTime): 5 us.\rA(RunTime): 6 us.',
      'A(RunTime): 0.1 us.\nA(RunTime): 0.2 us.\nA(RunTime): 0.30000000000000004 us.',
      'A(RunTime): 5 us.\nB(RunTime): 6 us.\nA(RunTime): 7 us.\nB(RunTime): 8 us.\nAB(RunTime): 9 us.\nA(RunTime): 1 us.',
      'benchmark_harness[{"event":"benchmark.result","params":{"name":"A","elapsed":1,"iterations":1}}]\nA(RunTime): 5 us.',
      'A(RunTime): 5 us.\nbenchmark_harness[{"event":"benchmark.result","params":{"name":"A","elapsed":1,"iterations":1}}]\nA(RunTime): 6 us.',
      'Results for x.dart\nA: 5 s/iteration\nA(RunTime): 5 us.',
      'Results for x.dart\nA: 5 ns/iteration\nA(RunTime): 5 us.\nA(RunTime): 6 us.',
      'benchmark_harness[{"event":"benchmark.result","params":{"name":"x\\u2028y","elapsed":1,"iterations":1}}]\nx\u2028y(RunTime): 5 us.',
      '(RunTime): 5 us.\nA(RunTime): 5 us.',
      'A(RunTime): (RunTime): 5 us.',
      'A(RunTime): 5 us. (RunTime): 6 us.',
      'A(RunTime): 1234567890123456789 us.',
      `A(RunTime): ${'9'.repeat(400)} us.`,
      'flutter: A(RunTime): 5 us.\nA(RunTime): 6 us.',
      ' A(RunTime): 5 us.\nA (RunTime): 6 us.',
      // Lines read forwards to their end by the expected name: every way a line can end, and names that look like prefixes.
      'A(RunTime): 5 us.\nA(RunTime): 6 us.\r',
      'A(RunTime): 5 us.\nA(RunTime): 6 us.\r\r\nA(RunTime): 7 us.',
      'A(RunTime): 5 us.\nA(RunTime): 6 us. \t\r\nA(RunTime): 7 us\t\n',
      'A(RunTime): 5 us.\nA(RunTime): 6 us.\n\nA(RunTime): 7 us.x\nA(RunTime): 8 us\u00a0\nA(RunTime): 9 us.\n',
      'A(RunTime): 5 us.\nA(RunTime): 1.8629797056305768 us.\nA(RunTime): 99999999999999999999 us.\nA(RunTime): 1.5e3 us.',
      'I/x(RunTime): 5 us.\nI/x(RunTime): 6 us.\nflutter: A(RunTime): 7 us.\nflutter: A(RunTime): 8 us.',
      'AB(RunTime): 5 us.\nA\nB(RunTime): 6 us.\nAB(RunTime): 7 us.\nAB(RunTime):',
      'Results for x.dart\nA: 5 ms/iteration\nA(RunTime): 5 us.\nA(RunTime): 6 us.\nA(RunTime): 7 us.',
      '',
      '\n\n',
    ];
    for (const text of texts) assertSameOutcome(dartReader, referenceDartReader, { path: 'bench.txt', text });
  });

  it('on documents larger than the window the reader reads lines from', () => {
    // Lines across the window's edges, names longer than its margin, the last line cut short or ending in `\r`.
    assertSameOnLargeDocuments(dartReader, referenceDartReader, (random) => {
      const names = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, i) => `${random() < 0.2 ? 'x'.repeat(Math.floor(random() * 9000)) : 'growable'}[${i}]`);
      const gap = random() < 0.3 ? ' '.repeat(5000) : '';
      return {
        line: (i) => (random() < 0.01 && gap === '' ? runTimeLine(random) : `${names[i % names.length]}(RunTime): ${pick(random, ['1.8629797056305768', '713', '31464.890625'])} us.${gap}`),
        tails: [names[0], `${names[0]}(RunTime): `],
      };
    });
    const gap = ' '.repeat(5000);
    // Lines that end in `x` past the window's end are no results.
    const text = Array.from({ length: 100 }, (_, i) => `A(RunTime): ${i} us.${gap}${' '.repeat(i * 37)}${i % 2 === 0 ? 'x' : ''}`).join('\n');
    assert.equal(assertSameOutcome(dartReader, referenceDartReader, { path: 'bench.txt', text }), 'read');
  });

  it(`on ${CASES} random documents (seed ${SEED})`, () => {
    assertSameOnRandom(dartReader, referenceDartReader, dartDocument);
  });

  it(`on ${CASES} random rounds of a suite`, () => {
    assertSameOnRandom(dartReader, referenceDartReader, dartRounds);
  });
});
