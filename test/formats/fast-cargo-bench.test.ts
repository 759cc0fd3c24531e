import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cargoBenchReader } from '../../src/formats/criterion.ts';
import { cargoBenchReader as referenceCargoBenchReader } from './reference/criterion.ts';
import { assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';

// The cargo bench reader reads the usual criterion estimate lines and libtest
// `bench:` lines in place and skips lines without a keyword on sight; every
// other line goes its general way. Here it is compared with the reader as it
// was before (test/formats/reference/criterion.ts).

const NAMES = ['fib 15', 'checksum/fold/256', 'a', 'Symbols (Execution)', 'fib 31 (slow)', 'runtime: x', 'with time: inside', 'µ bench', 'x\u00a0y', 'tab\tname', 'dots ... inside', 'a ... bench: 1 ns/iter (+/- 1)', '', '   ', 'test', 'error: bench failed'];
const NUMBERS = ['6.1986', '7.4841', '618.88', '1,234', '1,234.5', '0', '-0', '-1', '1e3', '5.', '.5', '.', 'x', '123456789012345678', '−7.0195%', '+13.065%', '1.9593', '12,34', '1,2345', ',123', '1,234,567', '1.234,567', '1,23', '1,,234', '1,234.', '12,345,678,901,234,567', '1234567890123456', '9007199254740993', '1,234.5.6', '0.000000000000000000000001'];
// (Units spelled like Object.prototype properties crashed the reference reader; criterion.test.ts covers them.)
const TIME_UNITS = ['ns', 'µs', 'μs', 'us', 'ms', 's', 'ps', 'cycles', 'x]'];
const THRPT_UNITS = ['MiB/s', 'GiB/s', 'KiB/s', 'B/s', 'Kelem/s', 'elem/s', 'Mb/s', 'MB/s', 'custom/s'];
const GAPS = [' ', '  ', '\t', '', '\u00a0', '   '];
const LIBTEST_UNITS = ['ns/iter', 'cycles/iter', 'MS/s', 'MS/s/iter', 'ms/iter', '/iter', 'x', '...'];
const OTHER = [
  '', '   ', 'Benchmarking fib 15', 'Benchmarking fib 15: Warming up for 500.00 ms', 'Benchmarking fib 15: Analyzing', 'Gnuplot not found, using plotters backend',
  'Warning: Unable to complete 100 samples in 5.0s.', 'Found 1 outliers among 10 measurements (10.00%)', '  1 (10.00%) low mild', '                        Performance has improved.',
  '                 change:', '                 change:  ', '                        change: [−33.875% −23.267% −9.5241%] (p = 0.00 < 0.05)',
  'running 3 tests', 'test result: ok. 0 passed; 0 failed', 'test ignored_bench ... ignored', 'test broken ... FAILED', 'error: bench failed', 'error: bench failed, to rerun pass `--bench x`',
  '\u001b[32mBenchmarking\u001b[0m fib', 'Benchmarking fib 15: Collecting\rfib 15  time:   [1 ns 2 ns 3 ns]', 'thrpt:',
];
/** Lines the reader refuses. */
const BROKEN = ['time: [', 'x time: [1 ns 2 ns', '  thrpt: [1 B/s 2 B/s 3 B/s]', '                        time:   [1 ns 2 ns 3 ns]'];

function estimate(random: () => number, units: readonly string[]): string {
  const unit = pick(random, units);
  const parts = [pick(random, NUMBERS.slice(0, 4)), unit, pick(random, NUMBERS.slice(0, 4)), unit, pick(random, NUMBERS.slice(0, 4)), unit];
  if (random() < 0.1) parts[Math.floor(random() * 6)] = random() < 0.5 ? pick(random, NUMBERS) : pick(random, units);
  if (random() < 0.02) parts.splice(Math.floor(random() * parts.length), 1);
  return `[${random() < 0.9 ? '' : pick(random, GAPS)}${parts.join(random() < 0.9 ? ' ' : pick(random, GAPS))}${random() < 0.9 ? '' : pick(random, GAPS)}]${random() < 0.1 ? pick(random, [' (p = 0.00 < 0.05)', ' time: [', ']', ' thrpt: [1 B/s']) : ''}`;
}

function timeLine(random: () => number): string {
  const name = random() < 0.8 ? pick(random, NAMES.slice(0, 5)) : pick(random, NAMES);
  const keyword = random() < 0.9 ? 'time:' : pick(random, ['time:', 'time: ', 'time:\t', 'runtime:', 'time:[', 'time:\u00a0']);
  return `${random() < 0.1 ? '' : name.padEnd(24)}${keyword}${pick(random, ['   ', ' ', '\t'])}${estimate(random, TIME_UNITS)}`;
}

function thrptLine(random: () => number): string {
  return `${pick(random, ['                        ', '', ' ', 'x '])}thrpt:${pick(random, ['  ', ' ', ''])}${estimate(random, THRPT_UNITS)}`;
}

function libtestLine(random: () => number): string {
  const name = random() < 0.8 ? pick(random, NAMES.slice(0, 5)) : pick(random, NAMES);
  const tail = random() < 0.1 ? pick(random, [' = 24526 MB/s', ' = x MB/s', ' extra']) : '';
  return `test ${random() < 0.2 ? name.padEnd(12) : name} ... bench:${pick(random, GAPS)}${pick(random, NUMBERS)} ${pick(random, LIBTEST_UNITS)} ${pick(random, ['(+/- 115.61)', '(+/- 3)', '(+/-3)', '+/- 3)', '(+/- 3', '(+/- x)'])}${tail}`;
}

function cargoDocument(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 30);
  const mode = random();
  for (let i = 0; i < count; i++) {
    const r = random();
    if (r < 0.01) lines.push(pick(random, BROKEN));
    else if (mode < 0.1 || r < 0.3) lines.push(pick(random, OTHER));
    else if (mode < 0.65) lines.push(r < 0.6 ? `test ${pick(random, NAMES.slice(0, 5))} ... bench: ${pick(random, NUMBERS.slice(0, 6))} ns/iter (+/- 3)` : `${pick(random, NAMES.slice(0, 5))} time: [1 ns ${pick(random, NUMBERS.slice(0, 6))} ns 3 ns]`);
    else if (r < 0.55) lines.push(timeLine(random));
    else if (r < 0.7) lines.push(thrptLine(random));
    else lines.push(libtestLine(random));
  }
  return lines.join(random() < 0.8 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

/** criterionRun is the console of criterion runs of a suite, concatenated, with libtest lines, change blocks and an odd line now and then. */
function criterionRun(random: () => number): string {
  const names = Array.from({ length: 1 + Math.floor(random() * 20) }, (_, i) => `checksum/fold/${i}${random() < 0.1 ? ' with a name longer than the column' : ''}`);
  const lines: string[] = [];
  for (let round = 0; round < 1 + Math.floor(random() * 4); round++) {
    for (const name of names) {
      if (random() < 0.3) {
        lines.push(`test ${name} ... bench: ${(1000 + random() * 100).toFixed(0)} ns/iter (+/- ${Math.floor(random() * 50)})`);
        continue;
      }
      lines.push(`Benchmarking ${name}`, `Benchmarking ${name}: Analyzing`);
      const t = (random() * 1000).toFixed(2);
      if (name.length > 23) lines.push(name, `                        time:   [${t} ns ${t} ns ${t} ns]`);
      else lines.push(`${name.padEnd(24)}time:   [${t} ns ${t} ns ${t} ns]`);
      if (random() < 0.5) lines.push(`                        thrpt:  [352.03 MiB/s ${(random() * 1000).toFixed(2)} MiB/s 1.0547 GiB/s]`);
      if (random() < 0.5) lines.push('                 change:', '                        time:   [−7.0195% +13.065% +40.554%] (p = 0.27 > 0.05)', '                        thrpt:  [−28.853% −11.555% +7.5495%]', '                        No change in performance detected.');
      if (random() < 0.05) lines.push(pick(random, [timeLine(random), thrptLine(random), libtestLine(random), pick(random, OTHER), pick(random, BROKEN)]));
      lines.push('Found 1 outliers among 10 measurements (10.00%)', '  1 (10.00%) high mild', '');
    }
  }
  return random() < 0.12 ? lines.filter((l) => l.startsWith('Benchmarking')).join('\n') : lines.join('\n');
}

describe('fast cargo bench reader agrees with the reference reader', () => {
  it('on every criterion console fixture', () => {
    for (const file of fixturesOf('criterion', (name) => name.endsWith('.txt'))) assertSameOutcome(cargoBenchReader, referenceCargoBenchReader, file);
  });

  it('on tricky lines', () => {
    const texts = [
      'a                       time:   [1 ns 2 ns 3 ns]\r\n                        thrpt:  [1 B/s 2 B/s 3 B/s]\r\n',
      'a time: [1 ns 2 ns 3 ns]\na time: [1 ms 2 ms 3 ms]',
      'a time: [1 ns 2 ns 3 ns]\na time: [1 µs 2 µs 3 µs]\na time: [1 ps 2 ps 3 ps]',
      'a time: [1 ns 2 ns 3 ns]\n thrpt: [1 B/s 2 B/s 3 B/s]\n thrpt: [1 B/s 2 B/s 3 B/s]',
      ' thrpt: [1 B/s 2 B/s 3 B/s]',
      'thrpt: [1 B/s 2 B/s 3 B/s]\na time: [1 ns 2 ns 3 ns]\nthrpt: [1 B/s 2 B/s 3 B/s]',
      'a time: [1 ns 2 ns 3 ns]\n change:\n time: [1 ns 2 ns 3 ns]\n thrpt: [1 B/s 2 B/s 3 B/s]\nb time: [4 ns 5 ns 6 ns]',
      'a time: [1 ns 2 ns 3 ns]\n change:\n  time: [1% 2% 3%]\n  thrpt: [1% 2% 3%]\nx\n time: [1 ns 2 ns 3 ns]',
      'a time: [1 ns 2 ns 3 ns]\n change:\n  time: [1% 2% 3%\nb time: [1 ns 2 ns 3 ns]',
      'a time: [1 ns 2 ns 3 ns]\n change:\n  thrpt: [1% 2% 3%',
      'a time: [1 ns 2 ns 3 ns]\n change:\n  thrpt: [1 B/s 2 B/s 3 B/s]\n  time: [x y z]\n  time: []\nb time: [4 ns 5 ns 6 ns]',
      'a time: [1 ns 2 ns 3 ns]\n change:\n x] time: [1% 2% 3%',
      'Benchmarking a long name: Analyzing\n                        time:   [1 ns 2 ns 3 ns]',
      'a long name\n                        time:   [1 ns 2 ns 3 ns]',
      '                        time:   [1 ns 2 ns 3 ns]',
      'error: bench failed time: [1% 2% 3%]\na time: [1 ns 2 ns 3 ns]',
      'a time: [1 ns 2 ns 3 ns] time: [4 ns 5 ns 6 ns]',
      'a time: [1 ns 2 ns 3 ns] and time: [4',
      'a time: [0.1 ns 0.2 ns 0.30000000000000004 ns]\na time: [1 ns -0 ns 3 ns]',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 5 cycles/iter (+/- 1)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 6 ms/iter (+/- 1)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest b ... bench: 6 ns/iter (+/- 1)\ntest a ... bench: 7 ns/iter (+/- 1)\ntest b ... bench: 8 ns/iter (+/- 1)\ntest ab ... bench: 9 ns/iter (+/- 1)\ntest a ... bench: 1 ns/iter (+/- 1)',
      'test a   ... bench: 5 ns/iter (+/- 1)\ntest  a ... bench: 6 ns/iter (+/- 1)\ntest\ta ... bench: 7 ns/iter (+/- 1)',
      'test a ... b ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 5 ... (+/- 1)',
      'test a ... bench: 1,234 ns/iter (+/- 1)\ntest a ... bench: 1,234,567 ns/iter (+/- 1)\ntest a ... bench: 12,34 ns/iter (+/- 1)',
      'test a ... bench: 5 ns/iter (+/- 1) = 10 MB/s\ntest a ... bench: 5 ns/iter (+/- 1)',
      'a time: [1 ns 2 ns 3 ns]\ntest a ... bench: 5 ns/iter (+/- 1)\n thrpt: [1 B/s 2 B/s 3 B/s]',
      'test a ... bench: 5 ns/iter (+/- 1)\n\u001b[1mtest a ... bench: 6 ns/iter (+/- 1)\u001b[0m',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 5 ns/iter (+/-\u001b 1)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 5 ns/iter (+/- time:)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a\r ... bench: 5 ns/iter (+/- 1)\ntest \ra ... bench: 5 ns/iter (+/- 1)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a ... bench: 5 ns/iter (+/- 1) time: [1 ns 2 ns 3 ns]',
      'test time: a ... bench: 5 ns/iter (+/- 1)\ntest time: a ... bench: 5 ns/iter (+/- 1)',
      'test a ... bench: 5 ns/iter (+/- 1)\ntest a\u00a0... bench: 5 ns/iter (+/- 1)\ntest \u00a0a ... bench: 5 ns/iter (+/- 1)',
      '',
      '\n\n',
    ];
    for (const text of texts) assertSameOutcome(cargoBenchReader, referenceCargoBenchReader, { path: 'bench.txt', text });
  });

  it("on estimate lines across the end of the reader's window", () => {
    // Estimate lines are read from a 64 Ki window of the text, moved on once a line starts
    // within 4 Ki of its end: these lines are longer, so some run past its end (a mutant
    // that takes the window's end for the line's end reads other names and values).
    const lines: string[] = [];
    for (let i = 0; i < 100; i++) {
      const gap = ' '.repeat(4000 + i * 97);
      lines.push(`bench/${i % 9}${gap}time:   [1.${i} ns${gap}${i}.${i % 10}5 ns ${9 + i}.5 ns]`);
      lines.push(`                        thrpt:  [1.0 MiB/s${gap}${i}.25 GiB/s ${i % 3 === 0 ? '3,000.5' : '3.0'} MiB/s]`);
      // Ignored in a change block; a time line without a name else (named by the line before).
      lines.push(`${gap}change:`, `${gap}time:   [1.0 ns 2.${i} ns 3.0 ns]`);
    }
    const text = lines.join('\n');
    assert.ok(text.length > 10 * 65536);
    assert.equal(assertSameOutcome(cargoBenchReader, referenceCargoBenchReader, { path: 'bench.txt', text }), 'read');
  });

  it(`on ${CASES} random documents (seed ${SEED})`, () => {
    assertSameOnRandom(cargoBenchReader, referenceCargoBenchReader, cargoDocument);
  });

  it(`on ${CASES} random criterion runs`, () => {
    assertSameOnRandom(cargoBenchReader, referenceCargoBenchReader, criterionRun);
  });
});
