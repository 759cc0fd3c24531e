import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { tinybenchReader } from '../../src/formats/tinybench.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['tinybench/tasks-samples.json', 'tinybench/tasks.json', 'tinybench/table.json', 'tinybench/v2-tasks.json', 'tinybench/v2-table.json'];

type Task = { name?: string; result: Record<string, unknown> & { latency?: Record<string, unknown> } };

function read(text: string) {
  return tinybenchReader.read({ path: 'bench.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bench\.json/);
    assert.match(error.message, where);
    return true;
  });
}

/** edit parses a fixture, lets the test change it, and serializes it again. */
function edit(fixture: string, change: (tasks: Task[]) => void): string {
  const tasks = JSON.parse(loadFixture(fixture).text) as Task[];
  change(tasks);
  return JSON.stringify(tasks);
}

describe('tinybenchReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(tinybenchReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(tinybenchReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads retained latency samples in ms, lower is better, with no warning', () => {
    const { measurements, warnings } = tinybenchReader.read(loadFixture('tinybench/tasks-samples.json'));
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values.length]), [
      ['JSON.parse (small object)', 'time', 'ms', 'lower', 50],
      ['sort 100 numbers', 'time', 'ms', 'lower', 50],
      ['async: await a resolved promise', 'time', 'ms', 'lower', 50],
    ]);
    assert.deepEqual(warnings, []);
  });

  it('without samples reads the median, says so once, and reports the task that threw', () => {
    const { measurements, warnings } = tinybenchReader.read(loadFixture('tinybench/tasks.json'));
    const tasks = JSON.parse(loadFixture('tinybench/tasks.json').text) as Task[];
    assert.deepEqual(measurements[0].values, [tasks[0].result.latency?.p50]);
    assert.deepEqual(warnings.map((w) => [w.kind, w.benchmark]), [['error', 'throws'], ['summary-only', undefined]]);
  });

  it('reads bench.table() in its column unit and names the error of a failed row', () => {
    const { measurements, warnings } = tinybenchReader.read(loadFixture('tinybench/table.json'));
    assert.ok(measurements.every((m) => m.unit === 'ns' && m.values.length === 1));
    assert.match(warnings[0].message, /throws failed: boom/);
    assert.match(warnings[1].message, /bench\.table\(\) holds summaries/);
  });

  it('reads tinybench 2: its samples, its error, and its table\'s Average Time (ns)', () => {
    const v2 = tinybenchReader.read(loadFixture('tinybench/v2-tasks.json'));
    assert.deepEqual(v2.measurements.map((m) => [m.benchmark, m.unit, m.values.length]), [['JSON.parse (small object)', 'ms', 40], ['sort 100 numbers', 'ms', 40]]);
    assert.deepEqual(v2.warnings.map((w) => [w.kind, w.benchmark]), [['error', 'throws']]);
    const table = tinybenchReader.read(loadFixture('tinybench/v2-table.json'));
    const rows = JSON.parse(loadFixture('tinybench/v2-table.json').text) as Record<string, number>[];
    assert.deepEqual(table.measurements.map((m) => [m.unit, m.values]), rows.map((r) => ['ns', [r['Average Time (ns)']]]));
  });

  it('reads an older table column (Latency median (us)) and numbers cells', () => {
    const { measurements } = read(JSON.stringify([{ 'Task name': 'a', 'Latency median (us)': 1.5, Samples: 3 }, null, { 'Task name': 'a', 'Latency average (µs)': '2.5 ± 1%' }]));
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.unit, m.values]), [['a', 'us', [1.5]], ['a #2', 'us', [2.5]]]);
  });

  it('reads a task aborted with statistics, with a note; not-started tasks are skipped', () => {
    const text = edit('tinybench/tasks-samples.json', (tasks) => {
      tasks[0].result.state = 'aborted-with-statistics';
      tasks[1].result = { state: 'not-started' };
    });
    const { measurements, warnings } = read(text);
    assert.deepEqual(measurements.map((m) => m.benchmark), ['JSON.parse (small object)', 'async: await a resolved promise']);
    assert.deepEqual(warnings.map((w) => w.kind), ['note', 'skipped']);
  });

  it('does not claim other JSON formats', () => {
    for (const other of ['hyperfine/basic.json', 'jmh/jmh-result.json', 'vitest-bench/parse.json', 'mitata/summary.json', 'google-benchmark/repetitions.json']) {
      assert.equal(tinybenchReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
  });

  describe('malformed input', () => {
    const good = loadFixture('tinybench/tasks-samples.json').text;
    it('empty file', () => assertFormatError('', /empty/));
    it('truncated JSON', () => assertFormatError(good.slice(0, good.length / 2), /invalid JSON/));
    it('not an array', () => assertFormatError('{"tasks": []}', /\$: expected an array/));
    it('no tasks', () => assertFormatError('[]', /no tinybench tasks/));
    it('bench.results, which has no names', () => {
      const results = (JSON.parse(good) as Task[]).map((t) => t.result);
      assertFormatError(JSON.stringify(results), /\[0\]: a tinybench result without a task name.*bench\.tasks\.map/);
    });
    it('tinybench 2 bench.results, which has no names either', () => {
      const results = (JSON.parse(loadFixture('tinybench/v2-tasks.json').text) as Task[]).map((t) => t.result);
      assertFormatError(JSON.stringify(results), /\[0\]: a tinybench result without a task name/);
    });
    it('a name of the wrong type', () => assertFormatError(edit('tinybench/tasks.json', (t) => (t[1].name = 7 as unknown as string)), /\[1\]\.name: expected a string/));
    it('a sample that is not a number', () => assertFormatError(edit('tinybench/tasks-samples.json', (t) => ((t[2].result.latency?.samples as unknown[])[4] = 'x')), /\[2\]\.result\.latency\.samples\[4\]: expected a finite number/));
    it('a negative sample', () => assertFormatError(edit('tinybench/tasks-samples.json', (t) => ((t[0].result.latency?.samples as number[])[1] = -1)), /\[0\]\.result\.latency\.samples\[1\]: negative time/));
    it('no latency', () => assertFormatError(edit('tinybench/tasks.json', (t) => delete t[0].result.latency), /\[0\]\.result\.latency: expected an object/));
    it('neither samples nor p50 nor mean', () => assertFormatError(edit('tinybench/tasks.json', (t) => { delete t[0].result.latency?.p50; delete t[0].result.latency?.mean; }), /\[0\]\.result\.latency\.mean: expected a finite number/));
    it('a table row without a latency column', () => assertFormatError('[{"Task name": "a", "Samples": 3}]', /\[0\]: a bench\.table\(\) row without/));
    it('a table cell that is no time', () => assertFormatError('[{"Task name": "a", "Latency med (ns)": "fast"}]', /\[0\]\["Latency med \(ns\)"\]: expected a time/));
    it('a table unit that is no time unit', () => assertFormatError('[{"Task name": "a", "Latency med (ops)": 1}]', /unknown time unit "ops"/));
  });
});
