import { test } from 'node:test';
import assert from 'node:assert/strict';
import { READERS } from '../../src/formats/detect.ts';
import { FormatError } from '../../src/formats/format-error.ts';

// Every reader meets output the code under test printed, so a line built to
// make a regular expression backtrack must cost linear time. Each case below
// took seconds to minutes before the readers were made linear (a 200 k line
// of spaces: 36 s in the cargo-bench reader; an unterminated JSON string of
// escaped quotes: minutes in the Google Benchmark fallback). The bound is
// generous (linear reading takes milliseconds) so a loaded machine passes.
const LENGTH = 200_000;
const BOUND_MS = 2000;

const CATCH2_TABLE = 'benchmark name                       samples       iterations    estimated\n' + '-'.repeat(79) + '\n';
const CATCH2_MEAN = CATCH2_TABLE + 'fib 20                                         100             1     1.2 ms \n';
const CATCH2_NO_ANALYSIS = 'benchmark name                            samples    iterations          mean\n' + '-'.repeat(79) + '\n';

const repeat = (unit: string, length = LENGTH) => unit.repeat(Math.ceil(length / unit.length));

/** HOSTILE_LINES: one long line each, aimed at the patterns the readers used (and use). */
const HOSTILE_LINES: Record<string, string> = {
  'spaces': ' '.repeat(LENGTH),
  'a name, spaces and a stray character': 'x' + ' '.repeat(LENGTH) + '\u0001',
  'digits': '1'.repeat(LENGTH),
  'digits ending in a letter': '1'.repeat(LENGTH) + 'x',
  'words and spaces': repeat('a '),
  'numbers and double spaces': repeat('1  '),
  'colons': repeat('a: '),
  'criterion time: [ without ]': 'x' + repeat(' time: ['),
  'criterion time: [ again and again, one ] at the end': repeat('time: [') + ']',
  'criterion name, spaces, time:': 'a' + ' '.repeat(LENGTH) + 'time:',
  'libtest prefix and spaces': 'test a ... bench: ' + ' '.repeat(LENGTH) + 'x',
  'libtest fragments': 'test ' + repeat('a ... bench: 1 ns/iter (+/- '),
  'libtest name of dots and spaces': 'test ' + repeat(' ... ') + 'bench: 1 ns/iter (+/- 1)',
  'libtest bench: fields without end': 'test a ... bench:' + repeat(' 1 x/iter'),
  'Catch2 row fields': 'a' + repeat('  1  1'),
  'Catch2 row, no unit': 'a' + repeat('  1') + ' x',
  'Catch2 durations without end': ' ' + repeat('1 ns  ') + 'x',
  'Catch2 failed marks': 'a' + repeat('  Benchmark failed ('),
  'Catch2 header and spaces': 'benchmark name' + ' '.repeat(LENGTH) + 'x',
  'XML comments never closed': '<Catch2TestRun>' + repeat('<!--'),
  'XML processing instructions never closed': '<Catch2TestRun>' + repeat('<?'),
  'XML CDATA never closed': '<Catch2TestRun>' + repeat('<![CDATA['),
  'XML tag with endless attributes': '<Catch2TestRun' + repeat(' b="1"'),
  'XML attribute with spaces': '<Catch2TestRun b=' + ' '.repeat(LENGTH),
  'Go name and fields': 'Benchmark' + repeat(' 1'),
  'Go fields with distinct units': 'BenchmarkX 1' + Array.from({ length: LENGTH / 10 }, (_, i) => ` 1 u${i}`).join(''),
  'Go value of digits and a letter': 'BenchmarkX 1 ' + '1'.repeat(LENGTH) + 'x ns/op',
  'Go config key and spaces': 'a:' + ' '.repeat(LENGTH) + 'x',
  'Go FAIL and spaces': 'FAIL ' + ' '.repeat(LENGTH) + 'x',
  'Go procs suffixes': 'BenchmarkX' + repeat('-1') + 'x 1 1 ns/op',
  'Dart RunTime marks': 'a' + repeat('(RunTime): '),
  'Dart RunTime and spaces': 'a(RunTime): 1' + ' '.repeat(LENGTH) + 'x',
  'Dart RunTime digits': 'a(RunTime): ' + '1'.repeat(LENGTH) + 'x us.',
  'logcat prefix and spaces': 'I/a' + ' '.repeat(LENGTH) + '(1',
  'Dart event markers, then a line separator': repeat('benchmark_harness[{') + '\u2028',
  'Dart event without end': 'benchmark_harness[{' + ' '.repeat(LENGTH),
  'plain name, spaces and colon': 'a' + ' '.repeat(LENGTH) + ':',
  'plain colons before a value': repeat('a:') + ' 1 ns',
  'plain results run together': repeat('a : 1 ns ') + 'x',
  'JSON opening brackets': '{"a":' + '['.repeat(LENGTH),
  'JSON numbers without end': '{"benchmarks":[' + repeat('1,'),
  'JSON bare NaN and an unterminated string of escaped quotes': '{"context":{},"benchmarks":[{"name":"a","real_time":NaN}],"x":"' + repeat('\\"'),
  'JSON bare NaN and a long string': '{"context":{},"benchmarks":[{"name":"a","real_time":NaN,"s":"' + 'a'.repeat(LENGTH) + '"}]}',
  'JSON unicode escapes': '{"a":"' + repeat('\\u'),
  'terminal escapes': repeat('\u001b['),
  'terminal escape with digits': '\u001b[' + '1'.repeat(LENGTH),
  'carriage returns': repeat('a\r'),
  'Benchmarking progress': 'Benchmarking ' + repeat('a: Analyzing') + 'x',
};

/** CONTEXTS put a hostile line where a reader's stricter patterns apply to it. */
const CONTEXTS: Record<string, string> = {
  '': '',
  'in a Catch2 table': CATCH2_TABLE,
  'as a Catch2 mean line': CATCH2_MEAN,
  'in a Catch2 table without analysis': CATCH2_NO_ANALYSIS,
  'in a Dart report': 'Results for a.dart\n',
  'in a criterion change block': 'a   time: [1 ns 2 ns 3 ns]\n                        change:\n',
};

/** readWithin reads text with one reader; returns the time taken, failing on anything but a result or FormatError. */
function readWithin(reader: (typeof READERS)[number], text: string, what: string): number {
  const started = performance.now();
  try {
    const result = reader.read({ path: 'hostile.txt', text });
    assert.ok(Array.isArray(result.measurements), what);
  } catch (error) {
    if (!(error instanceof FormatError)) assert.fail(`${what}: threw ${(error as Error)?.stack ?? String(error)}`);
  }
  assert.equal(typeof reader.sniff(text.slice(0, 4096)), 'boolean');
  return performance.now() - started;
}

for (const reader of READERS) {
  test(`${reader.format} reads a ${LENGTH / 1000} k-character hostile line in linear time, with a result or a FormatError`, () => {
    for (const [context, prefix] of Object.entries(CONTEXTS)) {
      for (const [name, line] of Object.entries(HOSTILE_LINES)) {
        const what = `${name}${context ? ` ${context}` : ''}`;
        const ms = readWithin(reader, prefix + line, what);
        assert.ok(ms < BOUND_MS, `${reader.format}: ${what} took ${Math.round(ms)} ms`);
      }
    }
  });
}

/** HOSTILE_FILES: many short lines, aimed at per-line work that grew with what was read before. */
const HOSTILE_FILES: Record<string, string> = {
  'one libtest benchmark printed again and again': repeat('test a ... bench: 1 ns/iter (+/- 1)\n', 2_000_000),
  'many distinct libtest benchmarks': Array.from({ length: 50_000 }, (_, i) => `test a${i} ... bench: 1 ns/iter (+/- 1)\n`).join(''),
  'a Catch2 name wrapped over many lines': CATCH2_TABLE + repeat('x'.repeat(34) + '-\n', 2_000_000) + 'y  1  1  1 ms\n    1 ns  1 ns  1 ns\n',
  'a Go package per benchmark': Array.from({ length: 50_000 }, (_, i) => `pkg: p${i}\nBenchmarkA 1 1 ns/op\n`).join(''),
};

test('readers do work per line that does not grow with the lines before it', () => {
  const cases: [string, string][] = [
    ['one libtest benchmark printed again and again', 'cargo-bench'],
    ['many distinct libtest benchmarks', 'cargo-bench'],
    ['a Catch2 name wrapped over many lines', 'catch2'],
    ['a Go package per benchmark', 'go'],
  ];
  for (const [name, format] of cases) {
    const reader = READERS.find((r) => r.format === format);
    assert.ok(reader);
    const ms = readWithin(reader, HOSTILE_FILES[name], name);
    // Each took 2 to 20 s before; linear reading takes well under a second.
    assert.ok(ms < 2 * BOUND_MS, `${format}: ${name} took ${Math.round(ms)} ms`);
  }
});
