import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import { assertMatchesExpected, expectedFor, FIXTURES, loadFixture } from '../support/fixtures.ts';

const CAPTURED = ['repetitions.json', 'aggregates-only.json', 'stumpless-like-base.json', 'stumpless-like-head.json'];
const COMPARE_PY_INPUTS = [
  'compare-py-test1_run1.json',
  'compare-py-test1_run2.json',
  'compare-py-test3_run0.json',
  'compare-py-test3_run1.json',
  'compare-py-test4_run.json',
  'compare-py-test4_run0.json',
  'compare-py-test4_run1.json',
];
const ALL = [...CAPTURED, ...COMPARE_PY_INPUTS].map((f) => `google-benchmark/${f}`);

type Row = Record<string, unknown>;

function read(text: string) {
  return googleBenchmarkReader.read({ path: 'out.json', text });
}

/** rowsOf parses a fixture with JSON.parse after quoting the bare NaN tokens the library writes. */
function rowsOf(relative: string): Row[] {
  const text = loadFixture(relative).text.replace(/\bNaN\b/g, 'null');
  return (JSON.parse(text) as { benchmarks: Row[] }).benchmarks;
}

/** edit parses the repetitions fixture, lets the test change it, and serializes it again. */
function edit(change: (doc: { context: Row; benchmarks: Row[] }) => void): string {
  const text = loadFixture('google-benchmark/repetitions.json').text.replace(/\bNaN\b/g, 'null');
  const doc = JSON.parse(text) as { context: Row; benchmarks: Row[] };
  change(doc);
  return JSON.stringify(doc, null, 2);
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^out\.json/);
    assert.match(error.message, where);
    return true;
  });
}

const ROW = '{"name": "BM_A", "run_name": "BM_A", "run_type": "iteration", "iterations": 10, "real_time": 1.5, "cpu_time": 1.25, "time_unit": "ns"}';

function doc(...rows: string[]): string {
  return `{\n  "context": {"library_build_type": "release"},\n  "benchmarks": [\n    ${rows.join(',\n    ')}\n  ]\n}\n`;
}

describe('googleBenchmarkReader', () => {
  for (const fixture of ALL) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(googleBenchmarkReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(googleBenchmarkReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    const others = ['hyperfine/basic.json', 'pytest-benchmark/report.json', 'catch2/report.xml', 'catch2/console.txt'];
    for (const other of others.filter((o) => existsSync(join(FIXTURES, o)))) {
      assert.equal(googleBenchmarkReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(googleBenchmarkReader.sniff('{"results": [{"command": "sleep 1", "mean": 1}]}'), false);
    assert.equal(googleBenchmarkReader.sniff('BenchmarkFoo-8   1000   1234 ns/op'), false);
    assert.equal(googleBenchmarkReader.sniff('\u0000\u0001\u0002'), false);
    assert.equal(googleBenchmarkReader.sniff(''), false);
  });

  it('takes one value per repetition from iteration rows and none from aggregates', () => {
    const rows = rowsOf('google-benchmark/repetitions.json');
    const { measurements } = googleBenchmarkReader.read(loadFixture('google-benchmark/repetitions.json'));
    assert.ok(rows.some((r) => r.run_type === 'aggregate'), 'fixture has aggregate rows');
    for (const m of measurements) {
      assert.doesNotMatch(m.benchmark, /_(mean|median|stddev|cv)$/);
      const samples = rows.filter((r) => r.run_type === 'iteration' && r.run_name === m.benchmark && r.error_occurred !== true);
      assert.deepEqual(m.values, samples.map((r) => r[m.metric]), `${m.benchmark} / ${m.metric}`);
    }
  });

  it('uses the median of an aggregates-only benchmark as a single value, with a summary-only warning', () => {
    const rows = rowsOf('google-benchmark/aggregates-only.json');
    const { measurements, warnings } = googleBenchmarkReader.read(loadFixture('google-benchmark/aggregates-only.json'));
    const summarized = new Set(warnings.filter((w) => w.kind === 'summary-only').map((w) => w.benchmark));
    const medians = rows.filter((r) => r.aggregate_name === 'median');
    assert.equal(summarized.size, medians.length);
    for (const m of measurements) {
      assert.ok(summarized.has(m.benchmark), m.benchmark);
      const median = medians.find((r) => r.run_name === m.benchmark);
      assert.ok(median);
      assert.deepEqual(m.values, [median[m.metric]]);
    }
  });

  it('turns error_occurred rows into one error warning and no samples', () => {
    const rows = rowsOf('google-benchmark/repetitions.json');
    const failed = rows.filter((r) => r.error_occurred === true);
    assert.ok(failed.length > 1, 'fixture has errored repetitions');
    const { measurements, warnings } = googleBenchmarkReader.read(loadFixture('google-benchmark/repetitions.json'));
    const name = failed[0].run_name as string;
    assert.equal(measurements.filter((m) => m.benchmark === name).length, 0);
    const errors = warnings.filter((w) => w.kind === 'error');
    assert.equal(errors.length, 1);
    assert.equal(errors[0].benchmark, name);
    assert.ok(errors[0].message.includes(failed[0].error_message as string), errors[0].message);
    assert.ok(errors[0].message.includes(`${failed.length} of ${failed.length}`), errors[0].message);
  });

  it('turns skipped rows (1.8+) into a skipped warning and drops only those repetitions', () => {
    let expected: unknown[] = [];
    const text = edit((d) => {
      const sort = d.benchmarks.filter((r) => r.run_name === 'BM_Sort/1024' && r.run_type === 'iteration');
      sort[0].skipped = true;
      sort[0].skip_message = 'not today';
      expected = sort.slice(1).map((r) => r.cpu_time);
    });
    const { measurements, warnings } = read(text);
    const cpu = measurements.find((m) => m.benchmark === 'BM_Sort/1024' && m.metric === 'cpu_time');
    assert.deepEqual(cpu?.values, expected);
    const skipped = warnings.filter((w) => w.kind === 'skipped');
    assert.equal(skipped.length, 1);
    assert.equal(skipped[0].benchmark, 'BM_Sort/1024');
    assert.match(skipped[0].message, /not today/);
  });

  it('reads the stumpless memory counters, throughput and rate counters with their directions', () => {
    const { measurements } = googleBenchmarkReader.read(loadFixture('google-benchmark/stumpless-like-base.json'));
    const find = (benchmark: string, metric: string) => measurements.find((m) => m.benchmark === benchmark && m.metric === metric);
    for (const counter of ['CallsToAlloc', 'MemoryAllocated', 'CallsToRealloc', 'CallsToFree', 'MemoryFreed']) {
      const m = find('BM_StringBuild/512', counter);
      assert.ok(m, counter);
      assert.equal(m.unit, 'count');
      assert.equal(m.better, 'lower');
      assert.equal(m.values.length, 9);
    }
    assert.deepEqual([find('BM_Hash/4096', 'bytes_per_second')?.unit, find('BM_Hash/4096', 'bytes_per_second')?.better], ['bytes/s', 'higher']);
    assert.deepEqual([find('BM_Sort/1024', 'items_per_second')?.unit, find('BM_Sort/1024', 'items_per_second')?.better], ['items/s', 'higher']);
    assert.deepEqual([find('BM_Hash/4096', 'LookupsPerSecond')?.unit, find('BM_Hash/4096', 'LookupsPerSecond')?.better], ['count', 'higher']);
    assert.equal(find('BM_Hash/4096', 'cpu_time')?.unit, 'us');
    assert.equal(find('BM_Sort/1024', 'real_time')?.unit, 'ns');
    assert.equal(find('BM_Sort/1024', 'iterations'), undefined);
  });

  it('shows the stumpless-like fix: reallocs drop from thousands per run to a handful', () => {
    const realloc = (fixture: string) =>
      googleBenchmarkReader.read(loadFixture(fixture)).measurements.find((m) => m.benchmark === 'BM_StringBuild/512' && m.metric === 'CallsToRealloc');
    const base = realloc('google-benchmark/stumpless-like-base.json');
    const head = realloc('google-benchmark/stumpless-like-head.json');
    assert.ok(base && head);
    assert.ok(Math.min(...base.values) >= 1000, `base ${base.values}`);
    assert.ok(Math.max(...head.values) <= 5, `head ${head.values}`);
  });

  it('keeps the context as hints, load_avg as its 1-minute value', () => {
    const context = (JSON.parse(edit(() => undefined)) as { context: Row }).context;
    const { hints } = googleBenchmarkReader.read(loadFixture('google-benchmark/repetitions.json'));
    for (const key of ['library_build_type', 'cpu_scaling_enabled', 'num_cpus', 'mhz_per_cpu', 'host_name', 'date', 'executable']) {
      assert.deepEqual(hints[key], context[key], key);
    }
    assert.equal(hints.load_avg, (context.load_avg as number[])[0]);
    assert.equal(hints.caches, undefined);
  });

  it('tolerates the bare NaN the library writes into cv rows', () => {
    assert.match(loadFixture('google-benchmark/repetitions.json').text, /: NaN/);
    const { measurements } = googleBenchmarkReader.read(loadFixture('google-benchmark/repetitions.json'));
    assert.ok(measurements.every((m) => m.values.every(Number.isFinite)));
  });

  it('groups old-schema aggregates without run_type or run_name by their suffix', () => {
    const text = doc(
      '{"name": "BM_A", "iterations": 10, "real_time": 1, "cpu_time": 2, "time_unit": "ns"}',
      '{"name": "BM_A", "iterations": 10, "real_time": 3, "cpu_time": 4, "time_unit": "ns"}',
      '{"name": "BM_A_mean", "iterations": 10, "real_time": 2, "cpu_time": 3, "time_unit": "ns"}',
      '{"name": "BM_B_median", "iterations": 10, "real_time": 5, "cpu_time": 6, "time_unit": "ms"}',
    );
    const { measurements, warnings } = read(text);
    assert.deepEqual(
      measurements.map((m) => [m.benchmark, m.metric, m.unit, m.values]),
      [
        ['BM_A', 'real_time', 'ns', [1, 3]],
        ['BM_A', 'cpu_time', 'ns', [2, 4]],
        ['BM_B', 'real_time', 'ms', [5]],
        ['BM_B', 'cpu_time', 'ms', [6]],
      ],
    );
    assert.deepEqual(warnings.map((w) => [w.kind, w.benchmark]), [['summary-only', 'BM_B']]);
  });

  it('ignores complexity rows and warns about aggregates without a median or mean', () => {
    const { measurements, warnings } = googleBenchmarkReader.read(loadFixture('google-benchmark/compare-py-test1_run1.json'));
    assert.ok(!measurements.some((m) => m.benchmark.startsWith('MyComplexityTest')));
    assert.equal(warnings.length, 0);
    const test3 = googleBenchmarkReader.read(loadFixture('google-benchmark/compare-py-test3_run0.json'));
    assert.deepEqual(test3.warnings.map((w) => [w.kind, w.benchmark]), [['summary-only', 'BM_One'], ['summary-only', 'short']]);
  });

  it('reads every aggregate of a file that has nothing else, each as its own benchmark, with a warning', () => {
    const { measurements, warnings } = googleBenchmarkReader.read(loadFixture('google-benchmark/compare-py-test4_run0.json'));
    // aggregate_name "zz" with aggregate_unit "percentage": fractions, read as percent.
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.values]), [
      ['whocares', 'real_time', '%', [1]],
      ['whocares', 'cpu_time', '%', [10]],
    ]);
    assert.deepEqual(warnings.map((w) => w.kind), ['summary-only']);
    assert.match(warnings[0].message, /only aggregates \(zz\).*nothing else.*whocares/);
    const aggregate = (kind: string, time: number) =>
      `{"name": "BM_A_${kind}", "run_name": "BM_A", "run_type": "aggregate", "aggregate_name": "${kind}", "real_time": ${time}, "cpu_time": ${time}, "time_unit": "ns"}`;
    const several = read(doc(aggregate('stddev', 2), aggregate('p90', 9)));
    assert.deepEqual(several.measurements.map((m) => [m.benchmark, m.metric, m.values]), [
      ['BM_A_stddev', 'real_time', [2]],
      ['BM_A_stddev', 'cpu_time', [2]],
      ['BM_A_p90', 'real_time', [9]],
      ['BM_A_p90', 'cpu_time', [9]],
    ]);
    // Next to a benchmark with samples, the same aggregates stay out: they are not samples.
    assert.deepEqual(read(doc(ROW, aggregate('stddev', 2))).measurements.map((m) => m.benchmark), ['BM_A', 'BM_A']);
  });

  it('reads a file that starts with a byte order mark', () => {
    const text = loadFixture('google-benchmark/repetitions.json').text;
    assert.equal(googleBenchmarkReader.sniff(`\uFEFF${text.slice(0, 4095)}`), true);
    assert.deepEqual(read(`\uFEFF${text}`), googleBenchmarkReader.read(loadFixture('google-benchmark/repetitions.json')));
  });

  it('keeps counters named like Object.prototype members as plain counters', () => {
    const { measurements } = read(doc(ROW.replace('"iterations": 10', '"constructor": 3, "__proto__": 4, "toString": 5')));
    assert.deepEqual(
      measurements.filter((m) => m.unit === 'count').map((m) => [m.metric, m.better, m.values]),
      [['constructor', 'lower', [3]], ['__proto__', 'lower', [4]], ['toString', 'lower', [5]]],
    );
  });

  it('converts a time unit that changes between repetitions to the first one', () => {
    const { measurements } = read(doc(ROW, ROW.replace('"real_time": 1.5', '"real_time": 0.002').replace('"ns"', '"us"')));
    assert.deepEqual(measurements.find((m) => m.metric === 'real_time')?.values, [1.5, 2]);
  });

  it('names the file and line of JSON syntax errors', () => {
    const text = loadFixture('google-benchmark/repetitions.json').text;
    assertFormatError(text.slice(0, Math.floor(text.length / 2)), /^out\.json:\d+: invalid JSON/);
    assertFormatError(doc(ROW).replace('"iterations": 10,', '"iterations": 10,,'), /^out\.json:4: invalid JSON/);
  });

  it('refuses empty and binary input', () => {
    assertFormatError('', /empty/);
    assertFormatError('  \n', /empty/);
    assertFormatError('\u0000\u0001ELF\u0002', /NUL bytes/);
    assertFormatError('\u007fELF\u0002\u0001\u0001', /invalid JSON/);
  });

  it('refuses wrong types with the JSON path', () => {
    assertFormatError('[]', /JSON object/);
    assertFormatError('{"context": {}}', /benchmarks: expected an array/);
    assertFormatError('{"context": [], "benchmarks": []}', /context: expected an object/);
    assertFormatError(doc(ROW, '7'), /benchmarks\[1\]: expected an object/);
    assertFormatError(doc(ROW.replace('"name": "BM_A"', '"name": 7')), /benchmarks\[0\]\.name: expected a string/);
    assertFormatError(doc(ROW.replace('"run_name": "BM_A"', '"run_name": false')), /benchmarks\[0\]\.run_name: expected a string/);
    assertFormatError(doc(ROW, ROW.replace('"real_time": 1.5', '"real_time": "1.5"')), /benchmarks\[1\]\.real_time: expected a finite number, got the string "1.5"/);
    assertFormatError(doc(ROW.replace('"cpu_time": 1.25', '"cpu_time": null')), /benchmarks\[0\]\.cpu_time: expected a finite number, got null/);
    assertFormatError(doc(ROW.replace('"iteration"', '"summary"')), /benchmarks\[0\]\.run_type: expected "iteration" or "aggregate"/);
    assertFormatError(doc(ROW.replace('"ns"', '"fortnights"')), /benchmarks\[0\]\.time_unit: expected ns, us, ms or s/);
    assertFormatError(doc(ROW.replace('"iterations": 10', '"error_occurred": "yes"')), /benchmarks\[0\]\.error_occurred: expected a boolean/);
  });

  it('refuses NaN and Infinity in a row whose values are used', () => {
    assertFormatError(doc(ROW.replace('1.5', 'NaN')), /benchmarks\[0\]\.real_time: expected a finite number, got NaN/);
    assertFormatError(doc(ROW.replace('1.25', '-Infinity')), /benchmarks\[0\]\.cpu_time: expected a finite number, got -Infinity/);
    assertFormatError(doc(ROW.replace('"iterations": 10', '"CallsToAlloc": 1e999')), /benchmarks\[0\]\.CallsToAlloc: expected a finite number, got Infinity/);
    // A string that merely mentions NaN is not rewritten into a broken document.
    const { warnings } = read(doc(ROW.replace('"iterations": 10', '"error_occurred": true, "error_message": "got: NaN, oops"'), ROW.replace('1.5', 'NaN').replace('"iteration"', '"aggregate"')));
    assert.match(warnings[0].message, /got: NaN, oops/);
  });

  it('groups 50,000 interleaved rows by run_name', () => {
    const rows: string[] = [];
    for (let i = 0; i < 50_000; i++) rows.push(ROW.replace(/BM_A/g, `BM_A/${i % 100}`).replace('1.5', String(1 + i)));
    const { measurements } = read(doc(...rows));
    assert.equal(measurements.length, 200);
    assert.equal(measurements[0].values.length, 500);
  });
});
