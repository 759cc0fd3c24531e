import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { iaiCallgrindReader } from '../../src/formats/iai-callgrind.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['iai-callgrind/first.txt', 'iai-callgrind/regressed.txt', 'iai-callgrind/dhat.txt'];

function read(text: string) {
  return iaiCallgrindReader.read({ path: 'iai.txt', text });
}

describe('iaiCallgrindReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(iaiCallgrindReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(iaiCallgrindReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads each label as a count metric with the new value, Instructions first', () => {
    const { measurements } = iaiCallgrindReader.read(loadFixture('iai-callgrind/regressed.txt'));
    const short = measurements.filter((m) => m.benchmark === 'iai::fibonacci_group::bench_fibonacci short:10');
    assert.deepEqual(short.map((m) => m.metric), ['Instructions', 'L1 Hits', 'LL Hits', 'RAM Hits', 'Total read+write', 'Estimated Cycles']);
    assert.ok(short.every((m) => m.unit === 'count' && m.better === 'lower' && m.values.length === 1));
    // The new value (left of |), not the baseline's.
    assert.deepEqual(short[0].values, [3542]);
    // The Regressions: block repeats names and counts; it adds nothing.
    assert.equal(new Set(measurements.map((m) => m.benchmark)).size, 4);
  });

  it('Instructions are deterministic: the same code gives the same count in two captured runs', () => {
    const first = iaiCallgrindReader.read(loadFixture('iai-callgrind/first.txt')).measurements;
    const dhat = iaiCallgrindReader.read(loadFixture('iai-callgrind/dhat.txt')).measurements;
    const instructions = (ms: typeof first) => ms.filter((m) => m.metric === 'Instructions').map((m) => [m.benchmark, m.values]);
    assert.deepEqual(instructions(dhat), instructions(first));
  });

  it('prefixes other tools and lists them after Callgrind, so Instructions stays the primary metric', () => {
    const { measurements } = iaiCallgrindReader.read(loadFixture('iai-callgrind/dhat.txt'));
    const first = measurements.filter((m) => m.benchmark === 'iai::fibonacci_group::bench_fibonacci short:10');
    assert.equal(first[0].metric, 'Instructions');
    assert.ok(first.some((m) => m.metric === 'DHAT Total bytes'));
    const text = '  lib::g::b x\n  ======= DHAT ====\n  Total bytes:   5|N/A  (*********)\n  ======= CALLGRIND ====\n  Instructions:  7|N/A  (*********)\n';
    const flipped = read(`lib::g::b x\n${text.split('\n').slice(1).join('\n')}`).measurements;
    assert.deepEqual(flipped.map((m) => m.metric), ['Instructions', 'DHAT Total bytes']);
  });

  it('reads the older `Label: N (No change)` lines, rates in %, and ids printed over several lines', () => {
    const text = [
      'running 0 tests',
      '',
      'bench::multi id:string with two',
      'lines',
      '  Instructions:                1734 (No change)',
      '  L1 Hit Rate:              98.5000|97.0000   (+1.5%) [+1.01x]',
      '  LL Miss Rate:              1.2500|N/A       (*********)',
      'bench::other',
      '  Instructions:                  12|N/A       (*********)',
      '',
      'Iai-Callgrind result: Ok. 2 without regressions; 0 regressed; 2 benchmarks finished in 1s',
    ].join('\n');
    const { measurements } = read(text);
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values]), [
      ['bench::multi id:string with two lines', 'Instructions', 'count', 'lower', [1734]],
      ['bench::multi id:string with two lines', 'L1 Hit Rate', '%', 'higher', [98.5]],
      ['bench::multi id:string with two lines', 'LL Miss Rate', '%', 'lower', [1.25]],
      ['bench::other', 'Instructions', 'count', 'lower', [12]],
    ]);
  });

  it('a benchmark seen twice (outputs joined) adds a second value; ANSI colours are ignored', () => {
    const once = 'a::b c\n  Instructions:  \u001b[1m100\u001b[0m|N/A  (*********)\n';
    const { measurements } = read(`${once}\n${once.replace('100', '101')}`);
    assert.deepEqual(measurements.map((m) => m.values), [[100, 101]]);
  });

  it('sniff: not other text formats', () => {
    for (const other of ['go/single-package.txt', 'criterion/cargo-bench-console.txt', 'catch2/public-gab-catch2-estimated.txt']) {
      assert.equal(iaiCallgrindReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(iaiCallgrindReader.sniff('Instructions: 5\n'), false);
  });

  it('is linear on a long line of spaces and digits', () => {
    const hostile = `a::b\n  Instructions:${' '.repeat(200_000)}1${'0'.repeat(200_000)}|${'('.repeat(50_000)}\n`;
    assert.throws(() => read(hostile), FormatError);
  });

  describe('malformed input', () => {
    const fails = (text: string, where: RegExp) =>
      assert.throws(() => read(text), (error: unknown) => {
        assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
        assert.match(error.message, /^iai\.txt(:\d+)?: /);
        assert.match(error.message, where);
        return true;
      });
    it('empty', () => fails('', /empty/));
    it('no results', () => fails('running 0 tests\n\ntest result: ok.\n', /no iai-callgrind results/));
    it('counts outside any benchmark', () => fails('\n  Instructions:  5|N/A  (*********)\n', /no iai-callgrind results/));
    it('binary', () => fails('a::b\n\u0000', /NUL/));
  });
});
