import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchmarkJsReader } from '../../src/formats/benchmark-js.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';
import { seededRandom } from '../support/random.ts';

const FIXTURES = ['benchmark-js/suite.txt', 'benchmark-js/repeated.txt'];

function read(text: string) {
  return benchmarkJsReader.read({ path: 'bench.log', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bench\.log/);
    assert.match(error.message, where);
    return true;
  });
}

describe('benchmarkJsReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(benchmarkJsReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(benchmarkJsReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads the rate as throughput in ops/s, higher is better, with one summary-only warning', () => {
    const { measurements, warnings } = benchmarkJsReader.read(loadFixture('benchmark-js/suite.txt'));
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values.length]), [
      ['RegExp#test', 'throughput', 'ops/s', 'higher', 1],
      ['String#indexOf', 'throughput', 'ops/s', 'higher', 1],
      ['JSON.parse (small object)', 'throughput', 'ops/s', 'higher', 1],
      ['sort x 100 numbers', 'throughput', 'ops/s', 'higher', 1],
      ['join words, 200', 'throughput', 'ops/s', 'higher', 1],
      ['busy wait, 15 ms', 'throughput', 'ops/s', 'higher', 1],
    ]);
    assert.deepEqual(warnings.map((w) => w.kind), ['summary-only']);
  });

  it('keeps " x " inside a name and reads thousands separators and decimals', () => {
    const { measurements } = read('sort x 100 numbers x 1,234,567 ops/sec ±1.23% (90 runs sampled)\nslow x 62.48 ops/sec ±4.33% (1 run sampled)\n');
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.values]), [['sort x 100 numbers', [1234567]], ['slow', [62.48]]]);
  });

  it('reads a log whose ± went through Latin-1 (Â±)', () => {
    const text = 'a x 1,234 ops/sec \u00c2\u00b11.23% (90 runs sampled)\n';
    assert.equal(benchmarkJsReader.sniff(text), true);
    assert.deepEqual(read(text).measurements[0].values, [1234]);
  });

  it('adds a value per line when a name repeats (several runs in one log)', () => {
    const { measurements } = benchmarkJsReader.read(loadFixture('benchmark-js/repeated.txt'));
    assert.ok(measurements.every((m) => m.values.length === 3));
  });

  it('ignores other lines: Fastest is, a failed benchmark, program output, CRLF', () => {
    const text = 'Fastest is a\nthrows: Error: boom\nwarming up x 3 things\r\na x 10 ops/sec ±1.00% (5 runs sampled)\r\n';
    assert.deepEqual(read(text).measurements.map((m) => [m.benchmark, m.values]), [['a', [10]]]);
  });

  it('does not claim other text formats', () => {
    for (const other of ['go/single-package.txt', 'criterion/cargo-bench-libtest.txt', 'catch2/console.txt', 'plain/flutter-before-handwritten.txt']) {
      assert.equal(benchmarkJsReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
  });

  it('agrees with a line-by-line regular expression on random logs (names that prefix each other, reordered, padded)', () => {
    const random = seededRandom(1313);
    const names = ['a', 'ab', 'a b', 'sort x 100', 'b', 'ab ', 'x'];
    const noise = ['Fastest is a', 'throws: Error', 'a x 3 things', '', '  ops/sec ±', 'q x 1 ops/sec ±1% (2 runs sampled) tail'];
    const reference = (text: string) => {
      const series = new Map<string, number[]>();
      for (const line of text.split('\n')) {
        const m = /^(.*?) x ([0-9][0-9,]*(?:\.[0-9]+)?) ops\/sec \u00c2?\u00b1[0-9]+(?:\.[0-9]+)?% \([0-9]+ runs? sampled\)\s*$/.exec(line.replace(/\r$/, ''));
        if (!m || m[1].trim() === '') continue;
        const name = m[1].trim();
        series.set(name, [...(series.get(name) ?? []), Number(m[2].replaceAll(',', ''))]);
      }
      return [...series].map(([benchmark, values]) => ({ benchmark, values }));
    };
    for (let round = 0; round < 200; round++) {
      const lines: string[] = [];
      const count = 1 + Math.floor(random() * 40);
      for (let i = 0; i < count; i++) {
        if (random() < 0.2) {
          lines.push(noise[Math.floor(random() * noise.length)]);
          continue;
        }
        const name = names[Math.floor(random() * names.length)];
        const rate = random() < 0.5 ? String(Math.floor(random() * 1e7)).replace(/\B(?=(\d{3})+$)/g, ',') : (random() * 100).toFixed(2);
        const pad = random() < 0.2 ? '  ' : '';
        lines.push(`${pad}${name} x ${rate} ops/sec ${random() < 0.1 ? '\u00c2' : ''}\u00b1${(random() * 10).toFixed(2)}% (${1 + Math.floor(random() * 90)} run${random() < 0.1 ? '' : 's'} sampled)${random() < 0.2 ? '\r' : ''}`);
      }
      const text = lines.join('\n');
      const want = reference(text);
      if (want.length === 0) continue;
      assert.deepEqual(read(text).measurements.map((m) => ({ benchmark: m.benchmark, values: m.values })), want, text);
    }
  });

  describe('malformed input', () => {
    it('empty file', () => assertFormatError('', /empty/));
    it('binary garbage', () => assertFormatError('\u0000\u0001', /NUL/));
    it('no result lines', () => assertFormatError('Fastest is a\n', /no benchmark\.js result lines.*String\(event\.target\)/));
    it('a rate that is not a number, with its line', () => assertFormatError('ok x 1 ops/sec ±1% (5 runs sampled)\nbad x 1.2.3 ops/sec ±1.00% (5 runs sampled)\n', /bench\.log:2: bad: rate "1\.2\.3"/));
    it('a negative rate', () => assertFormatError('bad x -5 ops/sec ±1.00% (5 runs sampled)\n', /bench\.log:1: bad: rate "-5"/));
    it('an overflowing rate', () => assertFormatError(`bad x ${'9'.repeat(400)} ops/sec ±1.00% (5 runs sampled)\n`, /bench\.log:1: bad: rate/));
    it('a broken margin of error', () => assertFormatError('bad x 5 ops/sec ±x% (5 runs sampled)\n', /bench\.log:1: bad: "±x%"/));
    it('no name', () => assertFormatError(' x 5 ops/sec ±1.00% (5 runs sampled)\n', /bench\.log:1: .*without a benchmark name/));
  });

  it('reads hostile long lines and many lines in linear time', () => {
    const long = 200_000;
    const cases = [
      ' x '.repeat(long / 3) + '1 ops/sec ±1% (1 run sampled)',
      'a' + ' ops/sec '.repeat(long / 9),
      'a x ' + '1,'.repeat(long / 2) + ' ops/sec ±1% (1 run sampled)',
      'a' + ' '.repeat(long) + 'x 1 ops/sec ±1% (1 run sampled)',
      Array.from({ length: 100_000 }, (_, i) => `b${i} x 1 ops/sec ±1.00% (5 runs sampled)`).join('\n'),
    ];
    for (const text of cases) {
      const started = performance.now();
      try {
        read(text);
      } catch (error) {
        assert.ok(error instanceof FormatError, String(error));
      }
      benchmarkJsReader.sniff(text.slice(0, 4096));
      assert.ok(performance.now() - started < 2000, `${text.slice(0, 40)}: ${Math.round(performance.now() - started)} ms`);
    }
  });
});
