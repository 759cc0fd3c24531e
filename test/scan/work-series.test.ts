// The nightly scan on counted work (instructions under valgrind): exact or nearly exact nightly values, one to
// three repeats a night. A step must be found and confirmed by the night's interleaved A/B; an A/A must stay quiet.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eDivisive, logMagnitude } from '../../src/scan/e-divisive.ts';
import { scanHistory, scanSeries } from '../../src/scan/scan-history.ts';
import { workChange } from '../../src/scan/ab-evidence.ts';
import type { Night, Series } from '../../src/scan/series.ts';
import { INSTRUCTIONS_METRIC, WORK_UNIT } from '../../src/model/work-metrics.ts';
import { seeded } from '../../bench/bisect.ts';

/** BASE is an inclusive instruction count per iteration (issue 23's BenchmarkSum, Go, 1000x). */
const BASE = 4_012_018;
const sha = (i: number) => `n${String(i).padStart(3, '0')}`;

/**
 * history is `nights` nights of one benchmark's instruction count, `repeats` values a night, times `factor` from
 * night `stepAt` on, each value times (1 + jitter * u), u uniform in [-1, 1] (0: exact counts). Every night but the
 * first carries its A/B: last night's commit counted again beside tonight's.
 */
function history(o: { nights?: number; stepAt?: number; factor?: number; repeats?: number; jitter?: number; seed?: number; benchmark?: string }): Series {
  const rng = seeded(o.seed ?? 1);
  const n = o.nights ?? 20;
  const level = (i: number) => BASE * (o.stepAt !== undefined && i >= o.stepAt ? (o.factor ?? 1) : 1);
  const count = (i: number) => Array.from({ length: o.repeats ?? 1 }, () => Math.round(level(i) * (1 + (o.jitter ?? 0) * (2 * rng() - 1))));
  const nights: Night[] = Array.from({ length: n }, (_, i) => ({
    sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString(), values: count(i),
    ...(i > 0 ? { ab: { baseSha: sha(i - 1), base: count(i - 1) } } : {}),
  }));
  return { benchmark: o.benchmark ?? 'parse', metric: INSTRUCTIONS_METRIC, unit: WORK_UNIT, better: 'lower', machineKey: 'fp', branch: 'main', nights };
}

test('an exact +3% step with one count a night: found at its night; one count a side confirms nothing (the PR check\'s work rule), the next A/B session of the pair does', () => {
  const s = history({ stepAt: 15, factor: 1.03 });
  const first = scanSeries(s, { threshold: 0.02 });
  assert.deepEqual(first.findings.filter((f) => f.kind !== 'watch'), []);
  assert.deepEqual(first.awaiting.map((f) => [f.kind, f.lastGood.sha, f.firstBad.sha]), [['change-point', sha(14), sha(15)]]);
  // The nightly's confirmation (jobs/confirm-findings.ts) counts last good and first bad again: pooled, two equal repeats a side agree.
  const night = s.nights[15];
  const nights = s.nights.map((n, i) => (i === 15 ? { ...night, ab: { ...(night.ab as NonNullable<Night['ab']>), extra: [{ base: [BASE], head: [Math.round(BASE * 1.03)] }] } } : n));
  const r = scanSeries({ ...s, nights }, { threshold: 0.02 });
  assert.deepEqual(r.awaiting, []);
  assert.equal(r.findings.length, 1, JSON.stringify(r.findings));
  const f = r.findings[0];
  assert.equal(f.kind, 'change-point');
  assert.equal(f.direction, 'regression');
  assert.equal(f.firstBad.sha, sha(15));
  assert.equal(f.lastGood.sha, sha(14));
  assert.ok(Math.abs(f.ratio - 1.03) < 1e-6, String(f.ratio));
  assert.ok(f.confirmation?.sessions === 2 && f.confirmation.nBase === 2);
  assert.equal(f.q, 0);
});

test('a +0.8% step in exact counts is found at the work threshold (0.5%) while the time threshold is 5%', () => {
  const r = scanSeries(history({ stepAt: 12, factor: 1.008, repeats: 3 }), { threshold: 0.05 });
  assert.deepEqual(r.findings.filter((f) => f.kind !== 'watch').map((f) => [f.firstBad.sha, Number(f.ratio.toFixed(4))]), [[sha(12), 1.008]]);
  assert.deepEqual(scanSeries(history({ stepAt: 12, factor: 1.003, repeats: 3 }), { threshold: 0.05 }).findings, [], 'under the work threshold');
});

test('a series pytest-benchmark measured is scanned at its 1% default: a +0.8% step is not found, but is at an explicit 0.5%, and a finding names the harness', () => {
  const python = { ...history({ stepAt: 12, factor: 1.008, repeats: 3 }), harness: 'pytest-benchmark' };
  assert.deepEqual(scanSeries(python, { threshold: 0.05 }).findings.filter((f) => f.kind !== 'watch'), [], 'within 1%');
  const explicit = scanSeries(python, { threshold: 0.05, workThreshold: 0.005 }).findings.filter((f) => f.kind !== 'watch');
  assert.deepEqual(explicit.map((f) => [f.firstBad.sha, f.harness]), [[sha(12), 'pytest-benchmark']]);
  // +1.5% clears pytest-benchmark's default, and the A/B confirmation is judged at that default too.
  const found = scanSeries({ ...history({ stepAt: 12, factor: 1.015, repeats: 3 }), harness: 'pytest-benchmark' }, { threshold: 0.05 }).findings.filter((f) => f.kind !== 'watch');
  assert.deepEqual(found.map((f) => [f.firstBad.sha, f.harness]), [[sha(12), 'pytest-benchmark']]);
  assert.deepEqual(scanSeries({ ...history({ stepAt: 12, factor: 1.008, repeats: 3 }), harness: 'go' }, { threshold: 0.05 }).findings.filter((f) => f.kind !== 'watch').map((f) => f.firstBad.sha), [sha(12)], 'a compiled harness keeps 0.5%');
});

test('nearly exact counts (3 repeats, +-0.05%) find and confirm a +1.5% step at a 1% threshold, among 50 quiet series', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const quiet = Array.from({ length: 50 }, (_, i) => history({ repeats: 3, jitter: 0.0005, seed: 100 * seed + i, benchmark: `quiet${i}` }));
    const r = scanHistory([history({ stepAt: 12, factor: 1.015, repeats: 3, jitter: 0.0005, seed }), ...quiet], { threshold: 0.01 });
    const regressions = r.findings.filter((f) => f.kind !== 'watch');
    assert.deepEqual(regressions.map((f) => [f.benchmark, f.firstBad.sha]), [['parse', sha(12)]], `seed ${seed}: ${JSON.stringify(r.findings.map((f) => [f.benchmark, f.kind, f.ratio]))}`);
    assert.deepEqual(r.awaiting, []);
  }
});

test('A/A: exact, nearly exact and two-level counts (an allocation-order effect of 0.3%) give no finding and nothing awaiting', () => {
  const rng = seeded(9);
  const series: Series[] = [];
  for (let i = 0; i < 30; i++) series.push(history({ repeats: 1 + (i % 3), jitter: [0, 0.0002, 0.001][i % 3], seed: 500 + i, benchmark: `aa${i}`, nights: 25 }));
  const twoLevel = history({ nights: 25, benchmark: 'two-level' });
  twoLevel.nights = twoLevel.nights.map((n) => ({ ...n, values: [Math.round(BASE * (rng() < 0.5 ? 1 : 1.003))] }));
  series.push(twoLevel);
  const r = scanHistory(series, { threshold: 0.02 });
  assert.deepEqual(r.findings.map((f) => [f.benchmark, f.kind]), []);
  assert.deepEqual(r.awaiting.map((f) => f.benchmark), []);
});

test('a step on the newest night: a watch at once and an alert that the next A/B session of the pair confirms', () => {
  const s = history({ stepAt: 19, factor: 1.04, repeats: 2 });
  const first = scanSeries(s, { threshold: 0.02 });
  assert.deepEqual(first.findings.map((f) => f.kind), ['watch']);
  assert.deepEqual(first.awaiting.map((f) => [f.kind, f.firstBad.sha]), [['ab-alert', sha(19)]]);
  // The nightly's confirmation (jobs/confirm-findings.ts) counts last good and first bad again: one more session.
  const last = s.nights[19];
  const nights = [...s.nights.slice(0, 19), { ...last, ab: { ...(last.ab as NonNullable<Night['ab']>), extra: [{ base: [BASE, BASE], head: [Math.round(BASE * 1.04), Math.round(BASE * 1.04)] }] } }];
  const second = scanSeries({ ...s, nights }, { threshold: 0.02 });
  const confirmed = second.findings.filter((f) => f.kind !== 'watch');
  assert.equal(confirmed.length, 1, JSON.stringify(second));
  assert.equal(confirmed[0].firstBad.sha, sha(19));
  assert.equal(confirmed[0].confirmation?.sessions, 1);
});

test('an A/B whose repeats disagree as much as the step confirms nothing', () => {
  const s = history({ stepAt: 14, factor: 1.03 });
  // The night's A/B repeats spread by 4%: the counts are not reproducible here, so they cannot confirm a 3% step.
  s.nights = s.nights.map((n, i) => (i >= 13 && i <= 16 && n.ab ? { ...n, ab: { ...n.ab, base: [BASE, BASE * 1.04, BASE * 1.02] } } : n));
  const r = scanSeries(s, { threshold: 0.02 });
  assert.deepEqual(r.findings.filter((f) => f.kind !== 'watch'), []);
  const c = workChange([{ base: [BASE, BASE * 1.04, BASE * 1.02], head: [BASE * 1.03, BASE * 1.03, BASE * 1.03] }], 0.02) as { p: number; ratioCi: [number, number] };
  assert.ok(c.p === 1 && c.ratioCi[0] < 1 && c.ratioCi[1] > 1.02, JSON.stringify(c));
});

test('E-divisive on a constant series with one step: exactly that change point, and none on a constant series', () => {
  const logs = Array.from({ length: 30 }, (_, i) => Math.log(BASE * (i >= 17 ? 1.01 : 1)));
  const found = eDivisive(logs, { magnitude: logMagnitude, minMagnitude: 0.005 }).changePoints;
  assert.deepEqual(found.map((c) => c.index), [17]);
  assert.equal(found[0].p, 0);
  assert.deepEqual(eDivisive(Array.from({ length: 30 }, () => Math.log(BASE))).changePoints, []);
});
