import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { goBenchReader, GroupTable, hashOf } from '../../src/formats/go-bench.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['go/single-package.txt', 'go/packages.txt', 'go/cpu.txt', 'go/verbose-fail.txt'];

function read(text: string) {
  return goBenchReader.read({ path: 'bench.txt', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bench\.txt/);
    assert.match(error.message, where);
    return true;
  });
}

describe('goBenchReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(goBenchReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(goBenchReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    for (const other of ['hyperfine/basic.json', 'pytest-benchmark/report.json']) {
      assert.equal(goBenchReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(goBenchReader.sniff('{"context": {"date": "2024"}, "benchmarks": []}'), false);
    assert.equal(goBenchReader.sniff('test_sort  1.0  2.0\n'), false);
    assert.equal(goBenchReader.sniff(''), false);
  });

  it('names ns/op "time", keeps other units as metrics, and rates are higher-is-better', () => {
    const { measurements } = goBenchReader.read(loadFixture('go/single-package.txt'));
    const sub = measurements.filter((m) => m.benchmark === 'BenchmarkAdler32/size=64');
    assert.deepEqual(sub.map((m) => [m.metric, m.unit, m.better]).sort(), [
      ['B/op', 'B/op', 'lower'],
      ['MB/s', 'MB/s', 'higher'],
      ['allocs/op', 'allocs/op', 'lower'],
      ['time', 'ns/op', 'lower'],
    ]);
    const custom = measurements.find((m) => m.metric === 'probes/op');
    assert.equal(custom?.benchmark, 'BenchmarkTable');
    assert.ok(measurements.every((m) => m.values.length === 5), '-count 5 gives five values');
  });

  it('strips the GOMAXPROCS suffix into a hint', () => {
    const { measurements, hints } = goBenchReader.read(loadFixture('go/single-package.txt'));
    assert.ok(measurements.every((m) => !/-\d+$/.test(m.benchmark)));
    assert.equal(typeof hints.gomaxprocs, 'number');
    assert.equal(hints.goos, 'linux');
    assert.equal(hints.pkg, 'example.com/benchfix/checksum');
  });

  it('keeps -cpu 1,2 series apart as /procs=N', () => {
    const { measurements, hints } = goBenchReader.read(loadFixture('go/cpu.txt'));
    const names = new Set(measurements.map((m) => m.benchmark));
    assert.ok(names.has('example.com/benchfix/checksum.BenchmarkTable/procs=1'));
    assert.ok(names.has('example.com/benchfix/checksum.BenchmarkTable/procs=2'));
    assert.equal(hints.gomaxprocs, '1,2');
  });

  it('qualifies names by package when the output has several packages', () => {
    const { measurements } = goBenchReader.read(loadFixture('go/packages.txt'));
    const adler = measurements.filter((m) => m.metric === 'time' && m.benchmark.endsWith('.BenchmarkAdler32'));
    assert.deepEqual(adler.map((m) => m.benchmark).sort(), ['example.com/benchfix/sorting.BenchmarkAdler32']);
    assert.ok(measurements.every((m) => m.benchmark.startsWith('example.com/benchfix/')));
  });

  it('turns --- SKIP, --- FAIL and a failed package into warnings', () => {
    const { warnings, measurements } = goBenchReader.read(loadFixture('go/verbose-fail.txt'));
    assert.deepEqual(warnings.map((w) => [w.kind, w.benchmark]), [
      ['skipped', 'BenchmarkNeedsHardware'],
      ['error', 'BenchmarkBroken'],
      ['error', undefined],
    ]);
    assert.ok(!measurements.some((m) => m.benchmark === 'BenchmarkBroken'));
  });

  it('ignores bare names and stray output between results', () => {
    const { measurements } = read('BenchmarkA\nBenchmarkA-4 \thello from the benchmark\nBenchmarkA-4 \t 100\t 5.5 ns/op\nok  \tx\t0.1s\n');
    assert.deepEqual(measurements, [{ benchmark: 'BenchmarkA', metric: 'time', unit: 'ns/op', better: 'lower', values: [5.5] }]);
  });

  describe('malformed input', () => {
    const good = loadFixture('go/single-package.txt').text;
    const lineOf = (needle: string) => good.slice(0, good.indexOf(needle)).split('\n').length;

    it('empty file', () => assertFormatError('', /empty/));
    it('whitespace only', () => assertFormatError(' \n\n', /empty/));
    it('binary garbage', () => assertFormatError('\u0000\u0001\u00ffELF\u0000', /:1: .*NUL/));
    it('text without any benchmark', () => assertFormatError('hello\nworld\n', /no Go benchmark result/));
    it('NaN value', () => {
      const text = good.replace(/(BenchmarkTable-\d+\s+\d+\s+)\S+/, '$1NaN');
      assertFormatError(text, new RegExp(`:${lineOf('BenchmarkTable')}: .*NaN`));
    });
    it('+Inf value', () => assertFormatError('BenchmarkA-2 1 +Inf ns/op\n', /:1: .*Inf/));
    it('truncated line: value without unit', () => {
      const cut = good.slice(0, good.indexOf('ns/op', good.indexOf('BenchmarkTable')));
      assertFormatError(cut, new RegExp(`:${lineOf('BenchmarkTable')}: .*value/unit`));
    });
    it('iteration count with nothing after it', () => assertFormatError('pkg: x\nBenchmarkA-2 \t 100\n', /:2: /));
    it('repeated unit on one line', () => assertFormatError('BenchmarkA 1 2 ns/op 3 ns/op\n', /:1: .*twice/));
    it('repeated unit on a line of a known name whose units moved', () => {
      // Each unit in turn takes the places of others: a check that trusts the name's known series to have distinct units must still see z twice.
      assertFormatError('BenchmarkA 1 1 x 2 y\nBenchmarkA 1 1 y 2 z\nBenchmarkA 1 1 z\nBenchmarkA 1 1 z 2 z\n', /:4: .*unit z appears twice/);
      assertFormatError('BenchmarkA 1 1 x 2 y 3 w\nBenchmarkA 1 1 y 2 x\nBenchmarkA 1 1 y 2 x 3 y\n', /:3: .*unit y appears twice/);
    });
    it('non-number where a value belongs', () => assertFormatError('goos: linux\nBenchmarkA 1 fast ns/op\n', /:2: .*"fast"/));
  });
});

describe('GroupTable', () => {
  it('finds every group added, in the order added, by hash and name', () => {
    const table = new GroupTable<{ base: string }>();
    const names = Array.from({ length: 5000 }, (_, i) => `BenchmarkX/${i}`);
    for (const base of names) {
      assert.equal(table.get(base, hashOf(base)), undefined);
      table.add({ base }, hashOf(base));
    }
    for (const base of names) assert.equal(table.get(base, hashOf(base))?.base, base);
    assert.equal(table.get('BenchmarkX/5000', hashOf('BenchmarkX/5000')), undefined);
    assert.deepEqual(table.list.map((g) => g.base), names);
  });

  it('still finds them all when their hashes collide (it turns into a Map)', () => {
    // Names made to share a hash would otherwise cost a probe per name already added.
    const table = new GroupTable<{ base: string }>();
    const names = Array.from({ length: 3000 }, (_, i) => `BenchmarkX/${i}`);
    for (const base of names) {
      assert.equal(table.get(base, 7), undefined);
      table.add({ base }, 7);
    }
    for (const base of names) assert.equal(table.get(base, 7)?.base, base);
    assert.equal(table.get('BenchmarkX/3000', 7), undefined);
    assert.deepEqual(table.list.map((g) => g.base), names);
  });
});
