// The bisect state machine on counted work (instructions under valgrind): one value per commit decides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseSeries, workEndsDiffer } from '../../src/bisect/choose-series.ts';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, result, toBisectJson } from '../../src/bisect/create-bisect.ts';
import type { BisectState } from '../../src/bisect/create-bisect.ts';
import { classifyOracleSessions, WORK_NOISE_FLOOR, workContrast } from '../../src/bisect/session-oracle.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { ESTIMATED_CYCLES_METRIC, INSTRUCTIONS_METRIC, WORK_UNIT } from '../../src/model/work-metrics.ts';
import { makeCandidates, seeded } from '../../bench/bisect.ts';

const sha = (i: number) => `m${String(i).padStart(2, '0')}`;
/** BASE is BenchmarkSum's inclusive instruction count as the issue measured it (Go, -test.benchtime 1000x, 3 of 3 runs). */
const BASE = 4_012_018;

/**
 * driveWork bisects with counts: commit i counts work(i) (the good commit work(-1)), `jitter(value)` perturbs a
 * measured value (identity for exact counts). The first probe session measures good, probe and bad; later probes
 * reuse the references' counts and measure the probe alone, as the bisect job does; a confirmation measures the parent.
 */
function driveWork(state: BisectState, work: (i: number) => number, jitter: (v: number) => number = (v) => v): { state: BisectState; measured: number } {
  const index = new Map(state.candidates.map((c, i) => [c.sha, i]));
  const count = (s: string) => jitter(Math.round(work(index.get(s) ?? -1)));
  let refs: { good: number[]; bad: number[] } | undefined;
  let measured = 0;
  for (let guard = 0; guard < 200; guard++) {
    const requests = nextSessions(state);
    if (requests.length === 0) break;
    for (const r of requests) {
      if (r.kind === 'probe') {
        const probe = [count(r.sha)];
        measured += 1;
        if (refs === undefined) {
          refs = { good: [jitter(Math.round(work(-1)))], bad: [count(state.candidates.at(-1)!.sha)] };
          measured += 2;
          state = recordProbe(state, r.sha, { ...refs, probe });
        } else state = recordProbe(state, r.sha, { ...refs, probe, referencesReused: true });
      } else if (r.kind === 'confirm') {
        measured += 1;
        state = recordConfirmation(state, r.sha, { parent: [count(r.parent)], probe: [count(r.sha)] });
      } else {
        refs = { good: [jitter(Math.round(work(-1)))], bad: [count(state.candidates.at(-1)!.sha)] };
        measured += 2;
        state = recordReference(state, refs);
      }
    }
  }
  return { state, measured };
}

test('a +3% instruction step among 32 merges: one count per commit, the culprit named and confirmed in log2(32) + 1 sessions', () => {
  for (const culprit of [0, 9, 20, 31]) {
    const { state, measured } = driveWork(createBisect({ candidates: makeCandidates(32), options: { work: true } }), (i) => (i >= culprit ? BASE * 1.03 : BASE));
    const r = result(state);
    assert.equal(r.status, 'found', `culprit ${culprit}: ${JSON.stringify(toBisectJson(state).steps)}`);
    assert.deepEqual(r.culprits.map((c) => c.commit.sha), [sha(culprit)]);
    assert.ok(r.sessions <= 6, `culprit ${culprit}: ${r.sessions} sessions`);
    assert.ok(measured <= 2 + 6, `culprit ${culprit}: ${measured} commits counted`);
    for (const s of state.steps) assert.equal(s.n, 1);
    assert.ok(Math.abs((r.reference.ratio as number) - 1.03) < 1e-6);
    assert.equal(r.reference.sessions, 1, 'reused references add nothing to the shift');
  }
});

test('counts that vary between runs by up to 0.05% (nearly exact) still name the culprit of a +2.5% step, with no second reference session', () => {
  const rng = seeded(5);
  const jitter = (v: number) => v * (1 + 0.0005 * (2 * rng() - 1));
  for (let t = 0; t < 20; t++) {
    const culprit = Math.floor(rng() * 32);
    const { state } = driveWork(createBisect({ candidates: makeCandidates(32), options: { work: true } }), (i) => (i >= culprit ? BASE * 1.025 : BASE), jitter);
    assert.deepEqual(result(state).culprits.map((c) => c.commit.sha), [sha(culprit)], `trial ${t}`);
    assert.equal(state.steps.filter((s) => s.kind === 'reference').length, 0);
  }
});

test('two merges that each add work are both found, each with its share', () => {
  const work = (i: number) => BASE * (i >= 7 ? 1.04 : 1) * (i >= 22 ? 1.03 : 1);
  const { state } = driveWork(createBisect({ candidates: makeCandidates(32), options: { work: true } }), work);
  const r = result(state);
  assert.equal(r.status, 'found', JSON.stringify(toBisectJson(state).steps));
  assert.deepEqual(r.culprits.map((c) => c.commit.sha), [sha(7), sha(22)]);
  const shares = r.culprits.map((c) => c.share as number);
  assert.ok(shares[0] > 0.5 && shares[1] > 0.35 && shares[0] + shares[1] <= 1 + 1e-9, JSON.stringify(shares));
});

test('equal counts are not reproducible after one session; a change under the threshold is not either', () => {
  for (const factor of [1, 1.01]) {
    const { state, measured } = driveWork(createBisect({ candidates: makeCandidates(16), options: { work: true } }), (i) => (i >= 5 ? BASE * factor : BASE));
    assert.equal(result(state).status, 'not-reproducible');
    assert.equal(result(state).sessions, 1);
    assert.equal(measured, 3);
  }
});

test('workContrast: log ratio of medians, its standard error the repeats\' range floored at 0.1%', () => {
  const c = workContrast([100, 100], [103]);
  assert.ok(c !== null && Math.abs(c.estimate - Math.log(1.03)) < 1e-12 && c.variance === WORK_NOISE_FLOOR ** 2);
  const wide = workContrast([100, 110], [103, 103]) as { variance: number };
  assert.ok(Math.abs(Math.sqrt(wide.variance) - Math.log(1.1)) < 1e-12);
  assert.equal(workContrast([], [1]), null);
  assert.equal(workContrast([0], [1]), null);
});

test('workEndsDiffer is the PR check\'s rule for counted work: beyond the threshold with repeats that agree; one count a side decides nothing', () => {
  const three = (v: number) => [v, v, v];
  assert.equal(workEndsDiffer(three(BASE), three(BASE * 1.03), 0.02).differs, true);
  assert.equal(workEndsDiffer([BASE, BASE], [BASE * 1.03, BASE * 1.03], 0.02).differs, true, 'two equal repeats agree');
  assert.equal(workEndsDiffer(three(BASE), three(BASE * 1.015), 0.02).differs, false, 'under the threshold');
  assert.equal(workEndsDiffer([BASE, BASE * 1.01, BASE * 1.02], [BASE * 1.03, BASE * 1.04, BASE * 1.05], 0.02).differs, false, 'repeats spread like the change');
  assert.equal(workEndsDiffer([BASE, BASE * 1.0001, BASE], [BASE * 1.03, BASE * 1.0301, BASE * 1.03], 0.02).differs, true);
  assert.equal(workEndsDiffer([BASE], [BASE * 1.03], 0.02).differs, false, 'one count a side');
  const c = workEndsDiffer(three(BASE), [BASE * 1.02, BASE * 1.03, BASE * 1.03], 0.01).change;
  assert.ok(c !== null && c.lower === 1.02 && c.upper === 1.03 && c.ratio === 1.03, JSON.stringify(c));
});

test('classifyOracleSessions on counts (bisect-oracle): one count per arm gives good, bad and beyond', () => {
  const v = (probe: number) => classifyOracleSessions([{ good: [BASE], probe: [BASE * probe], bad: [BASE * 1.05] }], 0.02, true).verdict;
  assert.equal(v(1), 'good');
  assert.equal(v(1.05), 'bad');
  assert.equal(v(1.2), 'beyond-bad');
  assert.equal(v(0.9), 'beyond-good');
  assert.equal(classifyOracleSessions([{ good: [BASE], probe: [BASE], bad: [BASE * 1.05] }], 0.02).verdict, 'unknown', 'the time oracle needs samples');
});

/** m is one series at one end. */
const m = (benchmark: string, metric: string, values: number[], unit = metric === 'time' ? 'ns' : WORK_UNIT): Measurement => ({ benchmark, metric, unit, better: 'lower', values });
const noisy = (center: number, seed: number) => Array.from({ length: 12 }, (_, i) => center * (1 + 0.004 * Math.sin(seed * 7 + i * 3.1)));

test('chooseSeries follows counted work that worsened beyond the threshold, over a larger wall-time change', () => {
  const three = (v: number) => [v, v, v];
  const good = [m('parse', 'time', noisy(100, 1)), m('parse', INSTRUCTIONS_METRIC, three(BASE)), m('parse', ESTIMATED_CYCLES_METRIC, three(BASE * 1.4)), m('hash', 'time', noisy(50, 2)), m('hash', INSTRUCTIONS_METRIC, three(2e6))];
  const bad = [m('parse', 'time', noisy(104, 3)), m('parse', INSTRUCTIONS_METRIC, three(BASE * 1.04)), m('parse', ESTIMATED_CYCLES_METRIC, three(BASE * 1.4 * 1.035)), m('hash', 'time', noisy(60, 4)), m('hash', INSTRUCTIONS_METRIC, three(2e6))];
  assert.deepEqual(chooseSeries(good, bad, { benchmarks: [], threshold: 0.02, counted: true }), { benchmark: 'parse', metric: INSTRUCTIONS_METRIC, unit: WORK_UNIT, better: 'lower' });
  // With --benchmark hash: its work did not move, its wall time did (a layout or memory effect): wall time is followed.
  assert.equal(chooseSeries(good, bad, { benchmarks: ['hash'], threshold: 0.02, counted: true })?.metric, 'time');
  // A bisection that cannot count (no --instructions) never follows a stored count it could not measure at its probes.
  assert.equal(chooseSeries(good, bad, { benchmarks: [], threshold: 0.02 })?.metric, 'time');
});

test('chooseSeries stays on wall time when the counts did not move, and takes a lone count only for work metrics', () => {
  const good = [m('parse', 'time', noisy(100, 5)), m('parse', INSTRUCTIONS_METRIC, [BASE, BASE, BASE])];
  const bad = [m('parse', 'time', noisy(110, 6)), m('parse', INSTRUCTIONS_METRIC, [BASE, BASE, BASE])];
  assert.equal(chooseSeries(good, bad, { benchmarks: [], threshold: 0.02, counted: true })?.metric, 'time');
  assert.equal(chooseSeries([m('x', 'time', [1])], [m('x', 'time', [2])], { benchmarks: [], threshold: 0.02 }), null);
});
