import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyLook } from '../../src/compare/adaptive-stop.ts';
import { compareRuns, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Comparison } from '../../src/model/comparison.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (measurements: Measurement[]): CompareSide => ({ measurements, warnings: [], hints: {} });
const m = (benchmark: string, metric: string, values: number[]): Measurement => ({ benchmark, metric, unit: 'ns', better: 'lower', values });
const ctx = { roundsPerSide: 10, maxRoundsPerSide: 30, alpha: 0.02, lastAlpha: 0.01, last: false };

test('a decision at one look is kept at the next, with the numbers of the look that made it', () => {
  const first = compareRuns(side([m('a', 'time', lognormalSamples(10, 100, 0.003, 1))]), side([m('a', 'time', lognormalSamples(10, 110, 0.003, 2))]), { threshold: 0.02, alpha: 0.02, rules: [] });
  const look1 = applyLook(first, new Map(), ctx);
  assert.equal(look1.stop, true);
  assert.equal(look1.report.comparisons[0].decidedAt, 10);
  const later = compareRuns(side([m('a', 'time', lognormalSamples(20, 100, 0.003, 3))]), side([m('a', 'time', lognormalSamples(20, 100, 0.003, 4))]), { threshold: 0.02, alpha: 0.02, rules: [] });
  const look2 = applyLook(later, look1.settled, { ...ctx, roundsPerSide: 20 });
  assert.equal(look2.report.comparisons[0].verdict, 'regressed');
  assert.equal(look2.report.comparisons[0].base?.n, 10);
  assert.equal(look2.report.summary.regressed, 1);
});

test('only primary metrics keep sampling going: an open secondary metric stays undecided with its bound', () => {
  const base = side([m('a', 'real_time', lognormalSamples(10, 100, 0.002, 5)), m('a', 'cpu_time', lognormalSamples(10, 100, 0.05, 6))]);
  const head = side([m('a', 'real_time', lognormalSamples(10, 100, 0.002, 7)), m('a', 'cpu_time', lognormalSamples(10, 101, 0.05, 8))]);
  const report = compareRuns(base, head, { threshold: 0.02, alpha: 0.02, rules: [] });
  const byMetric = (r: { comparisons: Comparison[] }) => Object.fromEntries(r.comparisons.map((c) => [c.metric, c]));
  assert.equal(byMetric(report).real_time.family, 'primary');
  assert.equal(byMetric(report).real_time.verdict, 'unchanged');
  assert.equal(byMetric(report).cpu_time.family, 'secondary');
  const look = applyLook(report, new Map(), { ...ctx, maxRoundsPerSide: 1000 });
  assert.equal(look.stop, true);
  assert.deepEqual(look.undecided, []);
  assert.equal(byMetric(look.report).cpu_time.verdict, 'inconclusive');
  assert.ok((byMetric(look.report).cpu_time.bound as number) > 0.02);
});

test('the last look turns what is still open into `budget`; futility settles a hopeless primary before it', () => {
  const noisy = compareRuns(side([m('a', 'time', lognormalSamples(10, 100, 0.3, 9))]), side([m('a', 'time', lognormalSamples(10, 100, 0.3, 10))]), { threshold: 0.02, alpha: 0.02, rules: [] });
  const futile = applyLook(noisy, new Map(), ctx);
  assert.equal(futile.report.comparisons[0].decision, 'futility');
  assert.equal(futile.stop, true);
  const last = applyLook(noisy, new Map(), { ...ctx, last: true });
  assert.equal(last.report.comparisons[0].decision, 'budget');
});

test('a futile comparison is judged again only on rounds it did not have: the same rounds (a shard that stopped early) keep its stop', () => {
  const noisy = compareRuns(side([m('a', 'time', lognormalSamples(10, 100, 0.3, 9))]), side([m('a', 'time', lognormalSamples(10, 100, 0.3, 10))]), { threshold: 0.02, alpha: 0.02, rules: [] });
  const futile = applyLook(noisy, new Map(), ctx);
  const again = applyLook(noisy, futile.settled, { ...ctx, roundsPerSide: 20, last: true });
  assert.equal(again.report.comparisons[0], futile.report.comparisons[0]);
  assert.equal(again.report.comparisons[0].futileAt, 10);
  const more = compareRuns(side([m('a', 'time', lognormalSamples(20, 100, 0.3, 9))]), side([m('a', 'time', lognormalSamples(20, 100, 0.3, 10))]), { threshold: 0.02, alpha: 0.02, rules: [] });
  const later = applyLook(more, futile.settled, { ...ctx, roundsPerSide: 20, last: true });
  const c = later.report.comparisons[0];
  assert.equal(c.base?.n, 20, 'judged again on the 20 rounds');
  assert.equal(c.decision, 'futility', 'still open: futility from its own stop, not budget');
  assert.deepEqual([c.decidedAt, c.futileAt], [10, 10]);
  assert.equal(later.stop, true, 'it never keeps the rounds going');
});
