import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, DEFAULT_COMPARE_OPTIONS, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (measurements: Measurement[], extra: Partial<CompareSide> = {}): CompareSide => ({ measurements, warnings: [], hints: {}, ...extra });
const time = (benchmark: string, values: number[], unit = 'ns'): Measurement => ({ benchmark, metric: 'real_time', unit, better: 'lower', values });

test('a 10% slowdown with 1% noise is a regression whose CI covers the true ratio', () => {
  const report = compareRuns(side([time('BM_A', lognormalSamples(20, 100, 0.01, 1))]), side([time('BM_A', lognormalSamples(20, 110, 0.01, 2))]));
  const [c] = report.comparisons;
  assert.equal(c.verdict, 'regressed');
  assert.ok(c.ratioCi && c.ratioCi[0] < 1.1 && c.ratioCi[1] > 1.1, `CI ${c.ratioCi} should cover 1.10`);
  assert.ok(c.q !== null && c.q < 0.05);
  assert.equal(report.summary.regressed, 1);
});

test('the same distribution on both sides is unchanged, and a 1% change is inside a 2% threshold', () => {
  const report = compareRuns(
    side([time('BM_Same', lognormalSamples(30, 100, 0.005, 3)), time('BM_Small', lognormalSamples(30, 100, 0.002, 5))]),
    side([time('BM_Same', lognormalSamples(30, 100, 0.005, 4)), time('BM_Small', lognormalSamples(30, 101, 0.002, 6))]),
  );
  assert.deepEqual(report.comparisons.map((c) => c.verdict), ['unchanged', 'unchanged']);
});

test('direction: a higher-is-better metric falling 10% regresses, rising 10% improves', () => {
  const rate = (benchmark: string, values: number[]): Measurement => ({ benchmark, metric: 'bytes_per_second', unit: 'bytes/s', better: 'higher', values });
  const report = compareRuns(
    side([rate('down', lognormalSamples(15, 1e9, 0.01, 7)), rate('up', lognormalSamples(15, 1e9, 0.01, 8))]),
    side([rate('down', lognormalSamples(15, 0.9e9, 0.01, 9)), rate('up', lognormalSamples(15, 1.1e9, 0.01, 10))]),
  );
  const verdict = Object.fromEntries(report.comparisons.map((c) => [c.benchmark, c.verdict]));
  assert.deepEqual(verdict, { down: 'regressed', up: 'improved' });
});

test('one-sided benchmarks are new or removed, and a failed side is an error naming the failure', () => {
  const report = compareRuns(
    side([time('gone', [1, 2, 3]), time('broken', [1, 2, 3])]),
    side([time('added', [1, 2, 3])], { warnings: [{ benchmark: 'broken', kind: 'error', message: 'SkipWithError: disk full' }] }),
  );
  const byName = Object.fromEntries(report.comparisons.map((c) => [c.benchmark, c]));
  assert.equal(byName.gone.verdict, 'removed');
  assert.equal(byName.added.verdict, 'new');
  assert.equal(byName.broken.verdict, 'error');
  assert.match(byName.broken.warnings.join(), /disk full/);
  assert.equal(report.summary.new + report.summary.removed + report.summary.error, 3);
});

test('n = 1 gives a ratio but no test, and says why', () => {
  const [c] = compareRuns(side([time('one', [100])]), side([time('one', [120])])).comparisons;
  assert.equal(c.verdict, 'inconclusive');
  assert.equal(c.p, null);
  assert.equal(c.ratio, 1.2);
  assert.match(c.warnings.join(), /at least 2 per side/);
});

test('identical samples are unchanged with p = 1; all-zero counters are unchanged', () => {
  const counter = (values: number[]): Measurement => ({ benchmark: 'b', metric: 'CallsToFree', unit: 'count', better: 'lower', values });
  const report = compareRuns(side([time('same', [5, 5, 5, 5, 5]), counter([0, 0, 0, 0, 0])]), side([time('same', [5, 5, 5, 5, 5]), counter([0, 0, 0, 0, 0])]));
  for (const c of report.comparisons) {
    assert.equal(c.verdict, 'unchanged', `${c.benchmark} ${c.metric}`);
    assert.equal(c.p, 1);
  }
});

test('a counter falling from millions to 2 is an improvement; rising from zero has no ratio', () => {
  const counter = (benchmark: string, values: number[]): Measurement => ({ benchmark, metric: 'CallsToRealloc', unit: 'count', better: 'lower', values });
  const report = compareRuns(
    side([counter('fell', Array.from({ length: 9 }, (_, i) => 2_000_000 + i)), counter('rose', Array(9).fill(0))]),
    side([counter('fell', Array(9).fill(2)), counter('rose', Array(9).fill(1000))]),
  );
  const byName = Object.fromEntries(report.comparisons.map((c) => [c.benchmark, c]));
  assert.equal(byName.fell.verdict, 'improved');
  assert.ok((byName.fell.ratio as number) < 1e-5);
  assert.equal(byName.rose.ratio, null);
  assert.match(byName.rose.warnings.join(), /base median is 0/);
});

test('units that convert are compared in the base unit; units that do not are inconclusive with a reason', () => {
  const base = lognormalSamples(12, 1500, 0.01, 11);
  const head = lognormalSamples(12, 1.5, 0.01, 12);
  const report = compareRuns(
    side([time('converts', base), { benchmark: 'mismatch', metric: 'm', unit: 'B/op', better: 'lower', values: [1, 2, 3] }]),
    side([time('converts', head, 'us'), { benchmark: 'mismatch', metric: 'm', unit: 'allocs/op', better: 'lower', values: [1, 2, 3] }]),
  );
  const byName = Object.fromEntries(report.comparisons.map((c) => [c.benchmark, c]));
  assert.equal(byName.converts.verdict, 'unchanged');
  assert.equal(byName.converts.unit, 'ns');
  assert.equal(byName.mismatch.verdict, 'inconclusive');
  assert.match(byName.mismatch.warnings.join(), /do not convert/);
});

test('false discovery control: 300 A/A benchmarks raise no alarm, while unadjusted p < 0.05 would raise several', () => {
  const names = Array.from({ length: 300 }, (_, i) => `BM_${i}`);
  const report = compareRuns(
    side(names.map((n, i) => time(n, lognormalSamples(10, 100, 0.02, 1000 + i)))),
    side(names.map((n, i) => time(n, lognormalSamples(10, 100, 0.02, 5000 + i)))),
  );
  const alarms = report.comparisons.filter((c) => c.verdict === 'regressed' || c.verdict === 'improved').length;
  const raw = report.comparisons.filter((c) => (c.p as number) < 0.05).length;
  assert.equal(alarms, 0);
  assert.ok(raw >= 5, `expected several unadjusted false positives, got ${raw}`);
});

test('per-benchmark thresholds by glob change the verdict of the same data', () => {
  const base = lognormalSamples(20, 100, 0.005, 21);
  const head = lognormalSamples(20, 104, 0.005, 22);
  const loose = compareRuns(side([time('BM_Net/1', base)]), side([time('BM_Net/1', head)]), { ...DEFAULT_COMPARE_OPTIONS, rules: [{ glob: 'BM_Net*', threshold: 0.1 }] });
  const strict = compareRuns(side([time('BM_Net/1', base)]), side([time('BM_Net/1', head)]));
  assert.equal(strict.comparisons[0].verdict, 'regressed');
  assert.equal(loose.comparisons[0].verdict, 'unchanged');
});

test('hygiene: noise, too few samples, optimized-out work, debug build, scaling and machine differences are reported', () => {
  const report = compareRuns(
    side([time('noisy', lognormalSamples(5, 100, 0.2, 31)), time('empty', Array(10).fill(0.25))], { hints: { library_build_type: 'debug', cpu_scaling_enabled: true, host_name: 'a' } }),
    side([time('noisy', lognormalSamples(5, 100, 0.2, 32)), time('empty', Array(10).fill(0.26))], { hints: { host_name: 'b' } }),
  );
  const byName = Object.fromEntries(report.comparisons.map((c) => [c.benchmark, c.warnings.join('\n')]));
  assert.match(byName.noisy, /too few samples: 5 on base/);
  assert.match(byName.noisy, /robust CV/);
  assert.match(byName.empty, /optimized out/);
  const suite = report.warnings.join('\n');
  assert.match(suite, /base: Google Benchmark reports library_build_type: debug/);
  assert.match(suite, /frequency scaling/);
  assert.match(suite, /different machines: host_name: a vs b/);
});

test('a steady drift across rounds is flagged as a trend', () => {
  const drifting = Array.from({ length: 20 }, (_, i) => 100 + i * 0.5);
  const [c] = compareRuns(side([time('drift', drifting)]), side([time('drift', drifting.slice().reverse())])).comparisons;
  assert.match(c.warnings.join(), /trend across rounds/);
});
