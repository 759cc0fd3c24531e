import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { mitataReader } from '../../src/formats/mitata.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['mitata/samples-noop-trimmed.json', 'mitata/summary.json'];

type Run = { name: unknown; stats?: Record<string, unknown>; error?: unknown };
type Output = { layout: { name: string | null }[]; benchmarks: { group: unknown; runs: Run[] }[]; context: Record<string, unknown> };

function read(text: string) {
  return mitataReader.read({ path: 'mitata.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^mitata\.json/);
    assert.match(error.message, where);
    return true;
  });
}

function edit(fixture: string, change: (out: Output) => void): string {
  const out = JSON.parse(loadFixture(fixture).text) as Output;
  change(out);
  return JSON.stringify(out);
}

describe('mitataReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(mitataReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(mitataReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads every sample in ns, names runs by their named group, and keeps context as hints', () => {
    const { measurements, warnings, hints } = mitataReader.read(loadFixture('mitata/samples-noop-trimmed.json'));
    const out = JSON.parse(loadFixture('mitata/samples-noop-trimmed.json').text) as Output;
    assert.deepEqual(measurements.map((m) => m.benchmark), ['JSON.parse (small object)', 'sorting > sort 100 numbers', 'sorting > sort 100 numbers, default compare', 'Array.from(10)', 'busy wait 2 ms', 'busy wait 5 ms']);
    assert.ok(measurements.every((m) => m.metric === 'time' && m.unit === 'ns' && m.better === 'lower'));
    assert.deepEqual(measurements[0].values, out.benchmarks[0].runs[0].stats?.samples);
    assert.deepEqual(warnings, []);
    assert.equal(hints.runtime, `${out.context.runtime} ${out.context.version}`);
  });

  it('without samples reads p50 with one summary-only warning, and a run that threw as an error', () => {
    const { warnings } = mitataReader.read(loadFixture('mitata/summary.json'));
    assert.deepEqual(warnings.map((w) => [w.kind, w.benchmark]), [['error', 'throws'], ['summary-only', undefined]]);
    assert.match(warnings[0].message, /throws failed: boom/);
  });

  it('does not read context.noop, the calibration, as a benchmark', () => {
    const text = edit('mitata/samples-noop-trimmed.json', (o) => ((o.context.noop as { fn: { samples: number[] } }).fn.samples = [1, 2, 3]));
    assert.ok(!read(text).measurements.some((m) => /noop/.test(m.benchmark)));
  });

  it('numbers a name that occurs twice', () => {
    const text = edit('mitata/summary.json', (o) => o.benchmarks.push(structuredClone(o.benchmarks[0])));
    assert.equal(read(text).measurements.at(-1)?.benchmark, 'JSON.parse (small object) #2');
  });

  it('does not claim other JSON formats', () => {
    for (const other of ['hyperfine/basic.json', 'google-benchmark/repetitions.json', 'tinybench/tasks.json', 'vitest-bench/parse.json', 'benchbot/handwritten.json']) {
      assert.equal(mitataReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
  });

  describe('malformed input', () => {
    const good = loadFixture('mitata/summary.json').text;
    it('empty file', () => assertFormatError('', /empty/));
    it('truncated JSON', () => assertFormatError(good.slice(0, good.length - 30), /invalid JSON/));
    it('mitata 0.1 (no layout)', () => assertFormatError('{"cpu": "x", "benchmarks": []}', /layout: expected an array/));
    it('no runs', () => assertFormatError('{"layout": [], "benchmarks": []}', /benchmarks: no benchmark runs/));
    it('a group outside the layout', () => assertFormatError(edit('mitata/summary.json', (o) => (o.benchmarks[1].group = 99)), /benchmarks\[1\]\.group: 99 is not an index into layout/));
    it('a run without a name', () => assertFormatError(edit('mitata/summary.json', (o) => delete o.benchmarks[2].runs[0].name), /benchmarks\[2\]\.runs\[0\]\.name: expected a string/));
    it('a run without stats or error', () => assertFormatError(edit('mitata/summary.json', (o) => delete o.benchmarks[0].runs[0].stats), /benchmarks\[0\]\.runs\[0\]\.stats: expected an object/));
    it('a sample that is Infinity', () => assertFormatError(loadFixture('mitata/samples-noop-trimmed.json').text.replace(/("samples":\[)[0-9.e+-]+/, '$11e999'), /benchmarks\[0\]\.runs\[0\]\.stats\.samples\[0\]: expected a finite number/));
    it('a negative p50', () => assertFormatError(edit('mitata/summary.json', (o) => ((o.benchmarks[0].runs[0].stats as Record<string, unknown>).p50 = -3)), /stats\.p50: negative time/));
  });
});
