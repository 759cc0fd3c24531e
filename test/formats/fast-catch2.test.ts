import { describe, it } from 'node:test';
import { catch2Reader } from '../../src/formats/catch2.ts';
import { catch2Reader as referenceCatch2Reader } from './reference/catch2.ts';
import { assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';

// The Catch2 reader reads the usual lines of a console table in place (a row,
// its mean line, blank and indented lines) and every other line its general
// way. Here it is compared with the reader as it was before
// (test/formats/reference/catch2.ts).

const RULE = '-'.repeat(79);
const HEADERS = [
  `benchmark name                       samples       iterations    estimated\n                                     mean          low mean      high mean\n                                     std dev       low std dev   high std dev\n${RULE}`,
  `benchmark name                       samples       iterations    est run time\n                                     mean          low mean      high mean\n                                     std dev       low std dev   high std dev\n${RULE}`,
  `benchmark name                            samples    iterations          mean\n${RULE}`,
];
const NAMES = ['fibonacci 10', 'Fibonacci~ 5!', 'a', 'a name long enough to be wrapped at th-', 'e column', 'x\u00a0y', 'tab\tname', 'cr\rname', 'line\u2028break', 'throws', '-', '=', 'benchmark name'];
const GAPS = ['  ', '   ', '                          ', ' ', '\t\t', ' \u00a0 '];
const VALUES = ['557.46', '183.889', '0.9048', '6', '5.', '.5', '.', '1,234', '-1', '1e3', '1.2.3', '9'.repeat(400), 'x'];
const UNITS = ['ns', 'us', 'ms', 's', 'm', 'µs', 'min', 'ns '];
const OTHER = ['', '   ', RULE, '='.repeat(79), '~'.repeat(79), 'test cases: 1 | 1 passed', 'bench.cpp:15', '.'.repeat(79), 'Generated', 'throws                               Benchmark failed (deliberate failure) '];

const duration = (random: () => number) => `${pick(random, VALUES.slice(0, 4))} ${pick(random, UNITS.slice(0, 5))}`;

function row(random: () => number, clean: boolean): string {
  if (clean) return `${pick(random, NAMES.slice(0, 3)).padEnd(37)}${'100'.padStart(10)}${'15'.padStart(14)}${duration(random).padStart(15)} `;
  return `${pick(random, NAMES)}${pick(random, GAPS)}${pick(random, ['100', '20', '1x'])}${pick(random, GAPS)}${pick(random, ['15', '171'])}${pick(random, GAPS)}${pick(random, VALUES)}${pick(random, [' ', ' ', '  ', '\t'])}${pick(random, UNITS)}${pick(random, ['', ' ', '\t', '\u00a0'])}`;
}

function meanLine(random: () => number, clean: boolean): string {
  if (clean) return `${duration(random).padStart(50)}    ${duration(random)}    ${duration(random)} `;
  const parts = Array.from({ length: 3 }, () => `${pick(random, VALUES)}${pick(random, [' ', ' ', '  '])}${pick(random, UNITS)}`);
  return `${pick(random, ['    ', ' ', '\t', '', '\u00a0 '])}${parts.join(pick(random, ['    ', ' ', '\t']))}${pick(random, ['', ' ', '\u00a0'])}`;
}

function catch2Document(random: () => number): string {
  const analysis = random() < 0.7;
  const clean = random() < 0.6;
  const lines: string[] = ['Catch v2.13.10 host application.', '', random() < 0.05 ? 'no table here' : analysis ? pick(random, HEADERS.slice(0, 2)) : HEADERS[2]];
  const count = 1 + Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    if (random() < (clean ? 0.02 : 0.15)) lines.push(pick(random, OTHER));
    if (random() < 0.05) lines.push(pick(random, NAMES));
    lines.push(row(random, clean || random() < 0.7));
    if (analysis) lines.push(meanLine(random, clean || random() < 0.8), meanLine(random, true), ' '.repeat(79));
    if (random() < 0.03) lines.push(pick(random, HEADERS));
  }
  lines.push('', '='.repeat(79), 'test cases: 1 | 1 passed');
  return lines.join(random() < 0.85 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

describe('fast Catch2 reader agrees with the reference reader', () => {
  it('on every Catch2 fixture', () => {
    for (const file of fixturesOf('catch2')) assertSameOutcome(catch2Reader, referenceCatch2Reader, file);
  });

  it('on tricky lines', () => {
    const h = HEADERS[0];
    const texts = [
      `${h}\na  100  15  5 ns\n    1 ns 2 ns 3 ns\n    1 ns 2 ns 3 ns\n\na  100  15  5 ns\n    4 us 2 ns 3 ns`,
      `${h}\r\na  100  15  5 ns \r\n    1 ns 2 ns 3 ns \r\n`,
      `${h}\na name long enough to be wrapped at th-\ne column  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    1 ns 2 ns\n`,
      `${h}\na  100  15  5 ns\n    1 ns  2 ns 3 ns\n    1  ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    ${'9'.repeat(400)} m 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    0.1 ns 2 ns 3 ns\na  100  15  5 ns\n    0.30000000000000004 ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    5. ns .5 ns 3 ns\nb  100  15  5 ns\n    .5 ns 2 ns 3 ns`,
      `${HEADERS[2]}\na  100  15  5 ns\nb  100  15  ${'9'.repeat(400)} m\n`,
      `${HEADERS[2]}\na  100  15  5 ns\nb 100  15  5 ns\nc  1x  15  5 ns\nd  100  15  5  ns\ne  100  15  5ns`,
      `${HEADERS[2]}\n-a  100  15  5 ns\n=b  100  15  5 ns\n~c  100  15  5 ns`,
      `${h}\nbenchmark name  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\n`,
      '',
    ];
    for (const text of texts) assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.txt', text });
  });

  it(`on ${CASES} random console documents (seed ${SEED})`, () => {
    assertSameOnRandom(catch2Reader, referenceCatch2Reader, catch2Document);
  });
});
