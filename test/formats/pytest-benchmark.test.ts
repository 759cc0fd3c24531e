import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { pytestBenchmarkReader } from '../../src/formats/pytest-benchmark.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['pytest-benchmark/report.json', 'pytest-benchmark/saved.json'];


function read(text: string) {
  return pytestBenchmarkReader.read({ path: 'report.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^report\.json/);
    assert.match(error.message, where);
    return true;
  });
}

/** edit parses the report fixture, lets the test change it, and serializes it again. */
type Doc = { machine_info: Record<string, unknown>; benchmarks: Record<string, any>[] };

function edit(change: (doc: Doc) => void): string {
  const doc = JSON.parse(loadFixture('pytest-benchmark/report.json').text);
  change(doc);
  return JSON.stringify(doc, null, 4);
}

describe('pytestBenchmarkReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(pytestBenchmarkReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(pytestBenchmarkReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    for (const other of ['go/single-package.txt', 'hyperfine/basic.json']) {
      assert.equal(pytestBenchmarkReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(pytestBenchmarkReader.sniff('{"context": {"date": "2024", "num_cpus": 8}, "benchmarks": []}'), false);
    assert.equal(pytestBenchmarkReader.sniff(''), false);
  });

  it('names benchmarks by pytest node id, parameters included', () => {
    const { measurements } = pytestBenchmarkReader.read(loadFixture('pytest-benchmark/report.json'));
    const names = measurements.map((m) => m.benchmark);
    assert.ok(names.includes('test_workload.py::test_sort[100]'));
    assert.ok(names.includes('test_workload.py::test_sort[1000]'));
    assert.ok(measurements.every((m) => m.metric === 'time' && m.unit === 's' && m.better === 'lower'));
  });

  it('reads per-round data, one value per round', () => {
    const doc = JSON.parse(loadFixture('pytest-benchmark/report.json').text);
    const { measurements } = pytestBenchmarkReader.read(loadFixture('pytest-benchmark/report.json'));
    doc.benchmarks.forEach((b: { fullname: string; stats: { rounds: number } }) => {
      assert.equal(measurements.find((m) => m.benchmark === b.fullname)?.values.length, b.stats.rounds);
    });
  });

  it('uses the median with a summary-only warning when data was not saved', () => {
    const { measurements, warnings } = pytestBenchmarkReader.read(loadFixture('pytest-benchmark/saved.json'));
    assert.ok(measurements.every((m) => m.values.length === 1));
    assert.equal(warnings.length, measurements.length);
    assert.ok(warnings.every((w) => w.kind === 'summary-only' && measurements.some((m) => m.benchmark === w.benchmark)));
  });

  it('falls back to name when fullname is absent', () => {
    const text = edit((doc) => {
      delete doc.benchmarks[0].fullname;
    });
    assert.equal(read(text).measurements[0].benchmark, JSON.parse(text).benchmarks[0].name);
  });

  it('takes hints from machine_info and ignores odd values there', () => {
    const { hints } = pytestBenchmarkReader.read(loadFixture('pytest-benchmark/report.json'));
    assert.equal(hints.python_implementation, 'CPython');
    assert.equal(typeof hints.cpu_count, 'number');
    const odd = read(edit((doc) => {
      doc.machine_info.python_version = 3;
      doc.machine_info.cpu = 'fast';
    }));
    assert.equal(odd.hints.python_version, undefined);
    assert.equal(odd.hints.cpu, undefined);
  });

  describe('unusable stats.data falls back to the median with a warning naming the problem, the rest of the file is read', () => {
    const cases: [string, (d: Doc) => void, RegExp][] = [
      ['data of the wrong type', (d) => (d.benchmarks[0].stats.data = '1,2'), /benchmarks\[0\]\.stats\.data is unusable \(expected an array of times, got string\)/],
      ['a round as a string', (d) => (d.benchmarks[0].stats.data[4] = 'x'), /unusable \(data\[4\] is "x", not a time\)/],
      ['a round as null', (d) => (d.benchmarks[0].stats.data[1] = null), /unusable \(data\[1\] is null, not a time\)/],
      ['negative round', (d) => (d.benchmarks[0].stats.data[0] = -1e-6), /unusable \(data\[0\] is negative/],
      ['empty data', (d) => (d.benchmarks[0].stats.data = []), /unusable \(no rounds\)/],
      ['no data and no median', (d) => {
        delete d.benchmarks[0].stats.data;
        delete d.benchmarks[0].stats.median;
      }, /no per-round data .*using the mean/],
    ];
    for (const [what, change, message] of cases) {
      it(what, () => {
        const text = edit(change);
        const doc = JSON.parse(text) as Doc;
        const result = read(text);
        const first = result.measurements[0];
        const statistic = doc.benchmarks[0].stats.median === undefined ? 'mean' : 'median';
        assert.deepEqual(first.values, [doc.benchmarks[0].stats[statistic]]);
        assert.equal(result.measurements.length, doc.benchmarks.length);
        assert.ok(result.measurements.slice(1).every((m) => m.values.length > 1));
        assert.deepEqual(result.warnings.map((w) => [w.kind, w.benchmark]), [['summary-only', first.benchmark]]);
        assert.match(result.warnings[0].message, message);
      });
    }
    it('Infinity by overflow', () => {
      const result = read(loadFixture('pytest-benchmark/report.json').text.replace(/("data": \[\s*)[^,\s]+/, '$11e400'));
      assert.match(result.warnings[0].message, /data\[0\] is Infinity, not a time/);
    });
  });

  describe('malformed input', () => {
    const good = loadFixture('pytest-benchmark/report.json').text;

    it('empty file', () => assertFormatError('', /empty/));
    it('binary garbage', () => assertFormatError('\u0000PK\u0003\u0004', /:1: .*NUL/));
    // parseJsonDocument gives V8's "Unexpected end of JSON input" no line; the message still names the file.
    it('truncated JSON', () => assertFormatError(good.slice(0, Math.floor(good.length * 0.7)), /invalid JSON/));
    it('not an object', () => assertFormatError('"benchmarks"', /\$: expected an object/));
    it('benchmarks missing', () => assertFormatError('{"machine_info": {}}', /benchmarks: expected an array/));
    it('no benchmarks', () => assertFormatError('{"machine_info": {}, "benchmarks": []}', /benchmarks: no benchmarks/));
    it('stats missing', () => assertFormatError(edit((d) => delete d.benchmarks[1].stats), /benchmarks\[1\]\.stats: expected an object/));
    it('median missing without data, and no mean', () => assertFormatError(edit((d) => {
      delete d.benchmarks[3].stats.data;
      delete d.benchmarks[3].stats.median;
      delete d.benchmarks[3].stats.mean;
    }), /benchmarks\[3\]\.stats: has no usable data \(absent\) and no median or mean/));
    it('median of the wrong type', () => assertFormatError(edit((d) => {
      delete d.benchmarks[3].stats.data;
      d.benchmarks[3].stats.median = 'fast';
    }), /benchmarks\[3\]\.stats\.median: expected a finite number/));
    it('name of the wrong type', () => assertFormatError(edit((d) => (d.benchmarks[0].fullname = ['x'])), /benchmarks\[0\]\.fullname: expected a string/));
    it('duplicate benchmark', () => assertFormatError(edit((d) => d.benchmarks.push(d.benchmarks[0])), /benchmarks\[4\]\.fullname: .*twice/));
  });
});
