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
function edit(change: (doc: { machine_info: Record<string, unknown>; benchmarks: Record<string, any>[] }) => void): string {
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
    it('data of the wrong type', () => assertFormatError(edit((d) => (d.benchmarks[0].stats.data = '1,2')), /benchmarks\[0\]\.stats\.data: expected an array/));
    it('a round as a string', () => assertFormatError(edit((d) => (d.benchmarks[2].stats.data[4] = 'x')), /benchmarks\[2\]\.stats\.data\[4\]: expected a finite number/));
    it('Infinity by overflow', () => assertFormatError(good.replace(/("data": \[\s*)[^,\s]+/, '$11e400'), /benchmarks\[0\]\.stats\.data\[0\]: expected a finite number, got Infinity/));
    it('negative round', () => assertFormatError(edit((d) => (d.benchmarks[0].stats.data[0] = -1e-6)), /benchmarks\[0\]\.stats\.data: negative/));
    it('empty data', () => assertFormatError(edit((d) => (d.benchmarks[0].stats.data = [])), /benchmarks\[0\]\.stats\.data: no rounds/));
    it('median missing without data', () => assertFormatError(edit((d) => {
      delete d.benchmarks[3].stats.data;
      delete d.benchmarks[3].stats.median;
    }), /benchmarks\[3\]\.stats\.median: expected a finite number/));
    it('name of the wrong type', () => assertFormatError(edit((d) => (d.benchmarks[0].fullname = ['x'])), /benchmarks\[0\]\.fullname: expected a string/));
    it('duplicate benchmark', () => assertFormatError(edit((d) => d.benchmarks.push(d.benchmarks[0])), /benchmarks\[4\]\.fullname: .*twice/));
  });
});
