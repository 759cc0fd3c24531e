import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goBenchReader } from '../../src/formats/go-bench.ts';
import { seededRandom } from '../support/random.ts';
import { goBenchReader as referenceGoBenchReader } from './reference/go-bench.ts';
import { parseFiniteNumber as referenceParseFiniteNumber } from './reference/text-lines.ts';
import { parseFiniteNumber } from '../../src/formats/text-lines.ts';
import { assertSameOnLargeDocuments, assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';

// The text readers read the usual line in one pass over its characters and
// hand everything else to their general path. Each is compared here with the
// reader as it was before (test/formats/reference/): on the fixtures, on
// tricky lines, and on random documents built from the pieces real outputs
// and broken outputs are made of, the result or the error must be the same.

// Pieces of Go output, right and wrong.
const GO_NAMES = ['BenchmarkA', 'BenchmarkA-2', 'BenchmarkA-02', 'BenchmarkA/size=64-8', 'BenchmarkA/size=64-4', 'BenchmarkB-1-2', 'Benchmark', 'Benchmark-2', 'BenchmarkZ--3', 'Benchmarkfoo-2', 'Benchmark_x', 'BenchmarkÄ-2', 'Benchmark\u00a0X', 'BenchmarkA\u0001-2', 'Benchmark/µs-2', 'BenchmarkLonger/with/many/parts/name=value/size=1024-16'];
const GO_SPACE = [' ', '\t', '  \t ', '\t      ', ' \t', '\v', '\f', '\u00a0', '\u2028', '\u3000', '\r', ''];
const GO_COUNTS = ['1', '1000000', '0', '007', '12a', '-5', '', '1.5', '99999999999999999999'];
const GO_VALUES = ['1234', '1234.5', '0.6075', '5.', '.5', '.', '-1.5', '+2', '-0', '0', '00012.50', '1e3', '1.5e-7', '1,234', '1,234.5', '12,34', 'NaN', '+Inf', '123456789012345', '1234567890123456', '12345678901234567890', '0.1234567890123456789012345', '3.000000000000000000001', '9007199254740993', 'fast', '1..2'];
const GO_UNITS = ['ns/op', 'B/op', 'allocs/op', 'MB/s', 'probes/op', 'µs/op', 'ns/op\u00a0', 'x', 'ns/op)', 'B/s/op', 'ns'];
const GO_OTHER = ['goos: linux', 'goarch: amd64', 'pkg: example.com/a', 'pkg: example.com/b', 'pkg: ', 'cpu: Generated CPU @ 2.40GHz', 'PASS', 'ok  \texample.com/a\t0.1s', 'FAIL\texample.com/a\t0.2s', 'FAIL', '--- FAIL: BenchmarkA-2', '--- SKIP: BenchmarkC', '=== RUN   BenchmarkA', '    bench_test.go:12: hello', '', 'hello world', 'Benchmark output from the benchmark itself'];

function goResultLine(random: () => number): string {
  const parts = [pick(random, GO_NAMES), pick(random, GO_SPACE), pick(random, GO_COUNTS)];
  const pairs = random() < 0.05 ? Math.floor(random() * 20) : Math.floor(random() * 5);
  for (let i = 0; i < pairs; i++) {
    parts.push(random() < 0.8 ? '\t' : pick(random, GO_SPACE), pick(random, GO_VALUES), random() < 0.9 ? ' ' : pick(random, GO_SPACE));
    // Mostly the units in their usual order, so lines repeat their units as real output does.
    parts.push(random() < 0.7 ? GO_UNITS[i % 4] : pick(random, GO_UNITS));
  }
  if (random() < 0.1) parts.push(pick(random, [' ', '\t', '\r', ' \r']));
  if (random() < 0.03) parts.splice(Math.floor(random() * parts.length), 1);
  return parts.join('');
}

function goDocument(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 30);
  // Well-formed lines most of the time, so that a document gets past its first line.
  const clean = random() < 0.5;
  for (let i = 0; i < count; i++) {
    if (random() < 0.25) lines.push(pick(random, GO_OTHER));
    else if (clean && random() < 0.85) lines.push(`${pick(random, GO_NAMES.slice(0, 6))}\t${pick(random, ['100', '2000'])}\t${pick(random, GO_VALUES.slice(0, 3))} ns/op\t${pick(random, ['0', '64'])} B/op`);
    else lines.push(goResultLine(random));
  }
  return lines.join(random() < 0.8 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

/** goSuite is rounds of a suite, round after round or each benchmark `-count` times in a row, with a broken or odd line now and then. */
function goSuite(random: () => number): string {
  const names = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, i) => `BenchmarkSuite/case=${i}-${pick(random, ['2', '8'])}`);
  const rounds = 1 + Math.floor(random() * 6);
  const consecutive = random() < 0.5;
  const lines = ['goos: linux', 'pkg: example.com/suite'];
  const order = consecutive ? names.flatMap((n) => Array.from({ length: rounds }, () => n)) : Array.from({ length: rounds }, () => names).flat();
  for (const name of order) {
    const odd = random() < 0.02;
    lines.push(odd ? goResultLine(random) : `${name}	${1000 + Math.floor(random() * 9)}	${(random() * 1000).toFixed(Math.floor(random() * 4))} ns/op	${Math.floor(random() * 100)} B/op	1 allocs/op`);
  }
  return lines.join('\n');
}

describe('fast Go reader agrees with the reference reader', () => {
  it('on every Go fixture', () => {
    for (const file of fixturesOf('go')) assertSameOutcome(goBenchReader, referenceGoBenchReader, file);
  });

  it('on tricky lines', () => {
    const lines = [
      'BenchmarkA-2\t100\t5.5 ns/op\r\nBenchmarkA-2\t100\t6.5 ns/op\r\n',
      'BenchmarkA-2\t100\t5.5 ns/op\r',
      'BenchmarkA-2\t100\t5.5 ns/op\r\r\n',
      'BenchmarkA-2\t100\t5.5\tns/op',
      'BenchmarkA-2 100 5.5 ns/op 3 B/op 3 allocs/op 812.25 MB/s 1 a 2 b 3 c 4 d 5 e',
      'BenchmarkA-2 100 5.5 ns/op 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h 9 i 10 j 11 k 12 l 13 m 14 n 15 o 16 p 17 q 18 a',
      'BenchmarkA-2 100 -0 ns/op',
      'BenchmarkA-2 100 -0 custom/op',
      'BenchmarkA-2 100 0.1 x\nBenchmarkA-2 100 0.2 x\nBenchmarkA-2 100 0.30000000000000004 x',
      'BenchmarkA-2 100 123456789012345.5 ns/op',
      'BenchmarkA-2 100 0.000000000000000000001 ns/op',
      'BenchmarkA-2 100 1.7976931348623157 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-02 100 6 ns/op\nBenchmarkA-2 100 7 ns/op',
      'BenchmarkA-2 100 5 ns/op 1 B/op\nBenchmarkA-2 100 6 B/op 2 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-4 100 6 ns/op\nBenchmarkA 100 7 ns/op',
      'pkg: a\nBenchmarkA-2 100 5 ns/op\npkg: b\nBenchmarkA-2 100 6 ns/op\npkg: a\nBenchmarkA-2 100 7 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkB-2 100 6 ns/op\nBenchmarkA-2 100 7 ns/op\nBenchmarkB-2 100 8 ns/op\nBenchmarkAB-2 100 9 ns/op\nBenchmarkA-2 100 1 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2x 100 6 ns/op\nBenchmarkA-2\u00a0100 7 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 100 5 ns/opx\nBenchmarkA-2 100 5 ns/o',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 100 5 ns/op 6',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 100',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 100 5 ns/op 6 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 100 -5 ns/op',
      'BenchmarkA-2 100 5 ns/op\nBenchmarkA-2 1e2 5 ns/op',
      'BenchmarkA-2 100 5 µs/op\nBenchmarkA-2 100 6 µs/op',
      'Benchmark 100 5 ns/op',
      'Benchmark\t100\t5 ns/op\nBenchmarkfoo 100 5 ns/op',
      'BenchmarkA-2 100 1,234 ns/op\nBenchmarkA-2 100 1,234.5 ns/op',
      'BenchmarkA-99999999999999999999999 100 5 ns/op',
      '--- FAIL: BenchmarkA-2\nBenchmarkA-2 100 5 ns/op\nFAIL\texample.com/a 0.1s',
      '',
      '\n\n',
      'goos: linux\n',
      'BenchmarkA 1 1 x 2 y\nBenchmarkA 1 1 y 2 z\nBenchmarkA 1 1 z\nBenchmarkA 1 1 z 2 z\n',
      'BenchmarkA 1 1 x 2 y 3 w\nBenchmarkA 1 1 y 2 x\nBenchmarkA 1 1 y 2 x 3 y\nBenchmarkA 1 1 y 2 x 3 w\n',
    ];
    for (const text of lines) assertSameOutcome(goBenchReader, referenceGoBenchReader, { path: 'bench.txt', text });
  });

  it('on documents larger than the window the reader reads lines from', () => {
    // Lines across the window's edges, names and units longer than its margin, the last line cut short or ending in `\r`.
    assertSameOnLargeDocuments(goBenchReader, referenceGoBenchReader, (random) => {
      const names = Array.from({ length: 1 + Math.floor(random() * 40) }, (_, i) => `Benchmark${random() < 0.2 ? 'X'.repeat(Math.floor(random() * 9000)) : 'Case'}/${i}-2`);
      const unit = random() < 0.2 ? `${'u'.repeat(5000)}/op` : 'B/op';
      // Wide gaps: lines longer than the margin, mostly white space where the window ends.
      const gap = random() < 0.3 ? ' '.repeat(1500) : '\t';
      return {
        head: ['pkg: example.com/large'],
        line: (i) =>
          random() < 0.01 && gap === '\t'
            ? goResultLine(random)
            : `${names[i % names.length]}${gap}${1000 + Math.floor(random() * 9)}${gap}${(random() * 1000).toFixed(Math.floor(random() * 3))} ns/op${gap}${Math.floor(random() * 100)} ${random() < 0.9 ? unit : 'B/op'}${gap}1 allocs/op${gap}`,
        tails: [names[0], `${names[0]} 100`],
      };
    });
    const gap = ' '.repeat(1500);
    const text = Array.from({ length: 100 }, () => `BenchmarkA-2${gap}100${gap}5 ns/op${gap}6 B/op${gap}1 allocs/op${gap}`).join('\n');
    assert.equal(assertSameOutcome(goBenchReader, referenceGoBenchReader, { path: 'bench.txt', text }), 'read');
  });

  it(`on ${CASES} random documents (seed ${SEED})`, () => {
    assertSameOnRandom(goBenchReader, referenceGoBenchReader, goDocument);
  });

  it(`on ${CASES} random suites of repeated benchmarks`, () => {
    assertSameOnRandom(goBenchReader, referenceGoBenchReader, goSuite);
  });
});

describe('parseFiniteNumber agrees with the reference', () => {
  it('on numbers as harnesses print them, and on near misses', () => {
    const random = seededRandom(SEED + 1);
    const pieces = ['0', '1', '7', '9', '12', '123', '1234', '.', ',', ',', '-', '+', 'e', 'E', '5', '999', '000', ' ', 'x', '١'];
    const samples = ['1,234', '1,234,567.5', '-0', '+0', '-0.0', '0.1', '0.30000000000000004', '5.', '.5', '.', '-', '', '1,2345', '1,23', ',123', '1,234,', '1.234,567', '123456789012345', '1234567890123456', '9007199254740993', '12345678901234567890', '1e3', '1.5e-7', 'NaN', 'Infinity', '9'.repeat(400), '1,000.000,1', '--1', '+-1', '1..2', '0x10', ' 1', '1 '];
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + Math.floor(random() * 8);
      samples.push(Array.from({ length: n }, () => pick(random, pieces)).join(''));
    }
    // 16 and 17 digits around 2^53, with a dot anywhere: read from the digits up to 2^53, by Number() beyond.
    samples.push('9007199254740992', '9007199254740993', '9007199254740991', '900719925474099.3', '0.9007199254740993', '-9007199254740992', '9999999999999999', '1,234,567,890,123,456');
    for (let i = 0; i < 20_000; i++) {
      const digits = String(Math.floor(random() * 1e16)).padStart(16, String(Math.floor(random() * 10))) + (random() < 0.3 ? String(Math.floor(random() * 10)) : '');
      const dot = Math.floor(random() * (digits.length + 1));
      samples.push(`${random() < 0.1 ? '-' : ''}${digits.slice(0, dot)}${dot < digits.length || random() < 0.5 ? '.' : ''}${digits.slice(dot)}`);
    }
    for (const text of samples) {
      const got = parseFiniteNumber(text);
      const want = referenceParseFiniteNumber(text);
      assert.ok(Object.is(got, want), `${JSON.stringify(text)}: got ${got}, want ${want}`);
    }
  });
});
