import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bencherMetricFormatReader } from '../../src/formats/bencher-metric-format.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['bencher/public-bencher-latency.json', 'bencher/public-bencher-dhat.json', 'bencher/public-bencher-v1-latency.json', 'bencher/public-bencher-mixed-versions.json'];

function read(text: string) {
  return bencherMetricFormatReader.read({ path: 'bmf.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bmf\.json: /);
    assert.match(error.message, where);
    return true;
  });
}

// The example of Bencher's BMF reference page (bencher.dev/docs/reference/bencher-metric-format), inline.
const DOCS_EXAMPLE = `{
  "benchmark_name": {
    "latency": { "value": 88.0, "lower_value": 87.42, "upper_value": 88.88 },
    "throughput": { "value": 5.55, "lower_value": 3.14, "upper_value": 6.30 }
  },
  "/bin/sh -c ./my_build_script.sh": { "build-time": { "value": 87.0 } },
  "my_binary": { "file-size": { "value": 42.0 } }
}`;

describe('bencherMetricFormatReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as migration_expected.py does`, () => {
      assertMatchesExpected(bencherMetricFormatReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(bencherMetricFormatReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads the built-in measures with their units and directions, value only', () => {
    assert.equal(bencherMetricFormatReader.sniff(DOCS_EXAMPLE), true);
    const { measurements, warnings } = read(DOCS_EXAMPLE);
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values]), [
      ['benchmark_name', 'latency', 'ns', 'lower', [88]],
      ['benchmark_name', 'throughput', 'ops/s', 'higher', [5.55]],
      ['/bin/sh -c ./my_build_script.sh', 'build-time', 's', 'lower', [87]],
      ['my_binary', 'file-size', 'B', 'lower', [42]],
    ]);
    assert.equal(warnings.length, 0);
  });

  it('other measures are counts, direction from the name, with one warning naming them', () => {
    const { measurements, warnings } = read('{"a":{"Total Bytes":{"value":5},"requests_per_second":{"value":9}}}');
    assert.deepEqual(measurements.map((m) => [m.unit, m.better]), [['count', 'lower'], ['count', 'higher']]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /"Total Bytes", "requests_per_second" read as plain counts/);
  });

  it('v1: parameters sorted and spelled shortest, one variant per parameter set, the later value wins', () => {
    const { measurements } = read('{"b":[{"parameters":{"z":1.6e1,"a":"x"},"measures":{"latency":{"value":1}}},{"parameters":{"a":"x","z":16},"measures":{"latency":{"value":2},"throughput":{"value":3}}},{"measures":{"latency":{"value":4}}}]}');
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.values]), [
      ['b (a=x, z=16)', 'latency', [2]],
      ['b (a=x, z=16)', 'throughput', [3]],
      ['b', 'latency', [4]],
    ]);
  });

  it('v1: a measure without value is skipped with a note naming what it has', () => {
    const { measurements, warnings } = read('{"p":[{"measures":{"latency":{"p99":97.0}}}],"q":{"latency":{"value":1}}}');
    assert.deepEqual(measurements.map((m) => m.benchmark), ['q']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /p: measure "latency" has no `value` \(only p99\); not read/);
  });

  it('sniff: not other JSON', () => {
    for (const other of ['hyperfine/basic.json', 'pytest-benchmark/report.json', 'google-benchmark/repetitions.json']) {
      const text = loadFixture(other).text;
      assert.equal(bencherMetricFormatReader.sniff(text.slice(0, 4096)), false, other);
    }
    assert.equal(bencherMetricFormatReader.sniff('{"results": [{"command": "x"}]}'), false);
    assert.equal(bencherMetricFormatReader.sniff('{"mean":{"confidence_interval":{"confidence_level":0.95}}}'), false);
    assert.equal(bencherMetricFormatReader.sniff('{"a\\"b": {"latency": {"value": 1}}}'), true);
  });

  describe('malformed input', () => {
    it('not an object', () => assertFormatError('[1]', /\$: expected an object/));
    it('empty object', () => assertFormatError('{}', /\$: no benchmarks/));
    it('benchmark not an object', () => assertFormatError('{"a": 1}', /\["a"\]: expected an object/));
    it('no measures', () => assertFormatError('{"a": {}}', /\["a"\]: no measures/));
    it('value missing', () => assertFormatError('{"a": {"latency": {"lower_value": 1}}}', /\["a"\]\["latency"\]\.value: expected a finite number/));
    it('value a string', () => assertFormatError('{"a": {"latency": {"value": "1"}}}', /\["a"\]\["latency"\]\.value: expected a finite number/));
    it('negative latency', () => assertFormatError('{"a": {"latency": {"value": -1}}}', /\["a"\]\["latency"\]\.value: is -1; a time cannot be below zero/));
    it('v1 entry without measures', () => assertFormatError('{"a": [{"parameters": {}}]}', /\["a"\]\[0\]\.measures: expected an object/));
    it('v1 parameter of the wrong type', () => assertFormatError('{"a": [{"parameters": {"k": [1]}, "measures": {}}]}', /\["a"\]\[0\]\.parameters\.k: expected a string, number, boolean or null/));
    it('v1 with no value anywhere', () => assertFormatError('{"a": [{"measures": {"latency": {"p50": 1}}}]}', /no measure has a `value`/));
    it('empty benchmark name', () => assertFormatError('{"": {"latency": {"value": 1}}}', /a benchmark name is empty/));
  });
});
