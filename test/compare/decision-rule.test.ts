// The decision rule of issue 11: equivalence by two one-sided tests, FDR
// families by metric, a bound for everything not decided, Yuen's trimmed t.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, DEFAULT_COMPARE_OPTIONS, type CompareSide } from '../../src/compare/compare-runs.ts';
import { estimateChange } from '../../src/compare/estimate-change.ts';
import { primaryMetrics } from '../../src/compare/metric-family.ts';
import { benjaminiHochberg } from '../../src/stats/fdr.ts';
import { mannWhitneyU } from '../../src/stats/mann-whitney.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (measurements: Measurement[]): CompareSide => ({ measurements, warnings: [], hints: {} });
const m = (benchmark: string, metric: string, values: number[], unit = 'ns', better: 'lower' | 'higher' = 'lower'): Measurement => ({ benchmark, metric, unit, better, values });

const SEED = 2; // a draw whose 95% CI reaches past -2% while its 90% CI does not (searched once)
test('unchanged is equivalence by TOST: the 1 - 2 alpha CI inside +-2% decides, although the 1 - alpha CI reaches past -2%', () => {
  const base = lognormalSamples(20, 100, 0.02, SEED);
  const head = lognormalSamples(20, 100, 0.02, SEED + 1000);
  const [c] = compareRuns(side([m('BM_A', 'real_time', base)]), side([m('BM_A', 'real_time', head)])).comparisons;
  assert.ok(c.ratioCi && c.ratioCi[0] < 0.98, `two-sided CI ${c.ratioCi} reaches past -2%`);
  assert.ok(c.equivalenceCi && c.equivalenceCi[0] > 0.98 && c.equivalenceCi[1] < 1.02, `TOST CI ${c.equivalenceCi}`);
  assert.equal(c.verdict, 'unchanged');
  assert.equal(c.decision, 'equivalence');
  assert.equal(c.ciLevel, 0.95);
});

test('every comparison not decided states the band it rules out, set by the farther end of its TOST CI', () => {
  const base = lognormalSamples(12, 100, 0.04, 3);
  const head = lognormalSamples(12, 101, 0.04, 4);
  const [c] = compareRuns(side([m('BM_Noisy', 'real_time', base)]), side([m('BM_Noisy', 'real_time', head)])).comparisons;
  assert.equal(c.verdict, 'inconclusive');
  assert.equal(c.decision, 'undecided');
  const [lo, hi] = c.equivalenceCi as [number, number];
  assert.ok((c.bound as number) > 0.02, `bound ${c.bound} is beyond the threshold, else it would be unchanged`);
  assert.ok(Math.abs((c.bound as number) - Math.max(hi - 1, 1 - lo)) < 1e-12);
  assert.equal(c.boundSide, hi - 1 >= 1 - lo ? 'slower' : 'faster');
});

test('a higher-is-better metric states its bound in cost terms: a throughput CI of [-4%, +1%] is "no change beyond 4.2% slower"', () => {
  const c = compareRuns(side([m('b', 'items_per_second', lognormalSamples(12, 1e6, 0.03, 5), 'items/s', 'higher')]), side([m('b', 'items_per_second', lognormalSamples(12, 0.985e6, 0.03, 6), 'items/s', 'higher')])).comparisons[0];
  const [lo, hi] = c.equivalenceCi as [number, number];
  assert.ok(Math.abs((c.bound as number) - Math.max(1 / lo - 1, 1 - 1 / hi)) < 1e-12);
  assert.equal(c.boundSide, 1 / lo - 1 >= 1 - 1 / hi ? 'slower' : 'faster');
});

test('FDR families: primary metrics are adjusted among themselves; cpu_time, counters and rates form their own family', () => {
  const names = Array.from({ length: 30 }, (_, i) => `BM_${i}`);
  const build = (seed: number, withSecondary: boolean) =>
    side(names.flatMap((n, i) => {
      const t = lognormalSamples(10, 100 * (i === 0 && seed === 2 ? 1.05 : 1), 0.02, seed * 1000 + i);
      const primary = [m(n, 'real_time', t)];
      if (!withSecondary) return primary;
      return [...primary, m(n, 'cpu_time', t.map((v) => v * 0.97)), m(n, 'CallsToAlloc', lognormalSamples(10, 50, 0.1, seed * 7000 + i), 'count'), m(n, 'bytes_per_second', t.map((v) => 1e9 / v), 'bytes/s', 'higher')];
    }));
  const alone = compareRuns(build(1, false), build(2, false));
  const mixed = compareRuns(build(1, true), build(2, true));
  assert.deepEqual(mixed.families, { primary: 30, secondary: 90 });
  const q = (r: typeof alone, metric: string) => r.comparisons.filter((c) => c.metric === metric).map((c) => c.q);
  assert.deepEqual(q(mixed, 'real_time'), q(alone, 'real_time'), 'secondary metrics leave the primary q-values alone');
  const secondary = mixed.comparisons.filter((c) => c.family === 'secondary');
  assert.equal(secondary.length, 90);
  const expected = benjaminiHochberg(secondary.map((c) => c.p as number));
  secondary.forEach((c, i) => assert.ok(Math.abs((c.q as number) - expected[i]) < 1e-15));
  assert.ok(mixed.comparisons.filter((c) => c.metric === 'real_time').every((c) => c.family === 'primary'));
});

test('the primary metric: real_time, else time, else a throughput score, else the first time metric, else the first metric', () => {
  const primary = primaryMetrics([
    { benchmark: 'g', metric: 'cpu_time', unit: 'ns' }, { benchmark: 'g', metric: 'real_time', unit: 'ns' },
    { benchmark: 'go', metric: 'B/op', unit: 'B/op' }, { benchmark: 'go', metric: 'time', unit: 'ns/op' }, { benchmark: 'go', metric: 'MB/s', unit: 'MB/s' },
    { benchmark: 'jmh', metric: 'throughput', unit: 'ops/s' }, { benchmark: 'jmh', metric: 'gc.alloc.rate', unit: 'MB/sec' },
    { benchmark: 'custom', metric: 'rss', unit: 'B' }, { benchmark: 'custom', metric: 'wall', unit: 'ms' },
    { benchmark: 'counters', metric: 'instructions', unit: 'count' }, { benchmark: 'counters', metric: 'cycles', unit: 'count' },
  ]);
  assert.deepEqual(Object.fromEntries(primary), { g: 'real_time', go: 'time', jmh: 'throughput', custom: 'wall', counters: 'instructions' });
});

test('test: yuen trims: one preempted round among 20 does not stop a benchmark from being shown unchanged', () => {
  const base = lognormalSamples(20, 100, 0.005, 11);
  const head = lognormalSamples(20, 100, 0.005, 12);
  head[7] *= 1.6;
  const report = compareRuns(side([m('BM_P', 'real_time', base)]), side([m('BM_P', 'real_time', head)]), { ...DEFAULT_COMPARE_OPTIONS, test: 'yuen' });
  assert.equal(report.test, 'yuen');
  assert.equal(report.comparisons[0].verdict, 'unchanged');
  assert.ok(Math.abs((report.comparisons[0].ratio as number) - 1) < 0.005, `ratio ${report.comparisons[0].ratio}`);
});

test('cpu_time is the primary metric when it is far quieter than real_time (a shared machine); on a quiet one real_time stays', () => {
  const cpu = lognormalSamples(10, 100, 0.01, 31);
  const waited = lognormalSamples(10, 1, 0.4, 32).map((w, i) => cpu[i] * (1 + w));
  const cpuH = lognormalSamples(10, 100, 0.01, 33);
  const waitedH = lognormalSamples(10, 1, 0.4, 34).map((w, i) => cpuH[i] * (1 + w));
  const shared = compareRuns(side([m('b', 'real_time', waited), m('b', 'cpu_time', cpu)]), side([m('b', 'real_time', waitedH), m('b', 'cpu_time', cpuH)]));
  assert.deepEqual(Object.fromEntries(shared.comparisons.map((c) => [c.metric, c.family])), { real_time: 'secondary', cpu_time: 'primary' });
  const quiet = compareRuns(side([m('b', 'real_time', cpu.map((v) => v * 1.01)), m('b', 'cpu_time', cpu)]), side([m('b', 'real_time', cpuH.map((v) => v * 1.01)), m('b', 'cpu_time', cpuH)]));
  assert.deepEqual(Object.fromEntries(quiet.comparisons.map((c) => [c.metric, c.family])), { real_time: 'primary', cpu_time: 'secondary' });
});

test('the default test is the rank test: p is the U test\'s and the CIs the Hodges-Lehmann ones', () => {
  const base = lognormalSamples(15, 100, 0.02, 21);
  const head = lognormalSamples(15, 103, 0.02, 22);
  const report = compareRuns(side([m('b', 'time', base)]), side([m('b', 'time', head)]));
  assert.equal(report.test, 'mann-whitney');
  const [c] = report.comparisons;
  assert.equal(c.p, mannWhitneyU(base.map(Math.log), head.map(Math.log)).p);
  const hl = estimateChange(base, head, 0.05, 'mann-whitney');
  assert.deepEqual(c.ratioCi, hl.ratioCi);
  assert.deepEqual(c.equivalenceCi, estimateChange(base, head, 0.05, 'mann-whitney').equivalenceCi);
});

test('a pinned primary metric stays primary whatever the noise says (an adaptive run pins its first look\'s choice)', () => {
  const cpu = lognormalSamples(10, 100, 0.01, 41);
  const waited = lognormalSamples(10, 1, 0.4, 42).map((w, i) => cpu[i] * (1 + w));
  const report = compareRuns(side([m('b', 'real_time', waited), m('b', 'cpu_time', cpu)]), side([m('b', 'real_time', waited.map((v) => v * 1.001)), m('b', 'cpu_time', cpu)]), { ...DEFAULT_COMPARE_OPTIONS, primary: new Map([['b', 'real_time']]) });
  assert.deepEqual(Object.fromEntries(report.comparisons.map((c) => [c.metric, c.family])), { real_time: 'primary', cpu_time: 'secondary' });
});

