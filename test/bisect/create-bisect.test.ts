// The bisect state machine and its oracle, on samples resampled from the real noise corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANDIDATES, drawSession, loadCorpus, logSd, makeCandidates, seeded, simulateBisect } from '../../bench/bisect.ts';
import type { Pool } from '../../bench/bisect.ts';
import { classify, classifyDetailed } from '../../src/bisect/classify.ts';
import { createBisect, nextProbes, recordProbe, result, toBisectJson } from '../../src/bisect/create-bisect.ts';
import type { BisectState } from '../../src/bisect/create-bisect.ts';

const pools = loadCorpus();
const pool = (name: string): Pool => pools.find((p) => p.name === name) as Pool;
const sha = (i: number) => `m${String(i).padStart(2, '0')}`;
const refs = (values: readonly number[], rng: () => number, factor: number) => Array.from({ length: 5 }, () => drawSession(values, 10, rng, factor)).flat();

test('classify: good, bad, unknown, beyond both references', () => {
  const rng = seeded(11);
  const values = pool('BM_Sort/4096').values;
  const f = Math.exp(2 * logSd(values));
  const good = refs(values, rng, 1);
  const bad = refs(values, rng, f);
  assert.equal(classify(drawSession(values, 10, rng, 1), good, bad), 'good');
  assert.equal(classify(drawSession(values, 10, rng, f), good, bad), 'bad');
  assert.equal(classify(drawSession(values, 1, rng, f), good, bad), 'unknown', 'one sample cannot decide');
  assert.equal(classify(drawSession(values, 10, rng, f * f), good, bad), 'beyond-bad');
  assert.equal(classify(drawSession(values, 10, rng, 1 / f), good, bad), 'beyond-good');
  const mid = classifyDetailed(drawSession(values, 40, rng, Math.sqrt(f)), good, bad);
  assert.equal(mid.verdict, 'bad');
  assert.equal(mid.partial, true);
  assert.equal(classify([1, -1, 2], good, bad), 'unknown', 'values that cannot be logged');
});

test('finds the culprit among 64 merges at a 2 SD shift in <= 1.5 log2(N) sessions', () => {
  const rng = seeded(21);
  let correct = 0;
  let sessions = 0;
  const trials = 40;
  for (let t = 0; t < trials; t++) {
    const p = pools[t % pools.length];
    const culprit = Math.floor(rng() * CANDIDATES);
    const factor = Math.exp(2 * logSd(p.values));
    const r = simulateBisect({ values: p.values, factorAt: (i) => (i >= culprit ? factor : 1), rng, expected: [sha(culprit)] });
    if (r.correct) correct++;
    sessions += r.sessions;
  }
  assert.ok(correct >= 0.9 * trials, `accuracy ${correct}/${trials}`);
  assert.ok(sessions / trials <= 1.5 * Math.log2(CANDIDATES), `mean sessions ${sessions / trials}`);
});

/** drive runs a bisection with a measuring function until it asks for nothing more. */
function drive(state: BisectState, measure: (index: number) => number[] | { skip: string }, k = 1): { state: BisectState; steps: number } {
  const index = new Map(state.candidates.map((c, i) => [c.sha, i]));
  let steps = 0;
  for (let guard = 0; guard < 300; guard++) {
    const probes = nextProbes(state, k);
    if (probes.length === 0) break;
    steps++;
    for (const s of probes) state = recordProbe(state, s, measure(index.get(s) as number));
  }
  return { state, steps };
}

const quiet = pool('grep -c 7 numbers.txt').values;

function start(culprits: number[], factors: number[], rng: () => number, n = 64): { state: BisectState; measure: (i: number) => number[] } {
  const factorAt = (i: number) => culprits.reduce((f, c, j) => (i >= c ? f * factors[j] : f), 1);
  const state = createBisect({ candidates: makeCandidates(n), goodSamples: refs(quiet, rng, 1), badSamples: refs(quiet, rng, factorAt(n - 1)) });
  return { state, measure: (i) => drawSession(quiet, 10, rng, factorAt(i)) };
}

test('a skipped commit is set aside; skipping the culprit leaves a two-commit range', () => {
  const rng = seeded(31);
  const f = Math.exp(3 * logSd(quiet));
  const a = start([40], [f], rng);
  const aroundSkips = drive(a.state, (i) => (i === 31 || i === 47 ? { skip: 'build failed' } : a.measure(i)));
  const r1 = result(aroundSkips.state);
  assert.equal(r1.status, 'found');
  assert.equal(r1.culprits[0].commit.sha, 'm40');
  assert.ok(aroundSkips.state.steps.some((s) => s.sha === 'm31' && s.verdict === 'skip' && s.reason === 'build failed'));

  const b = start([40], [f], rng);
  const culpritSkipped = drive(b.state, (i) => (i === 40 ? { skip: 'crash' } : b.measure(i)));
  const r2 = result(culpritSkipped.state);
  assert.equal(r2.status, 'range');
  assert.deepEqual(r2.culprits[0].range.map((c) => c.sha), ['m40', 'm41']);
  const json = toBisectJson(culpritSkipped.state);
  assert.equal(json.culprit, null);
  assert.deepEqual((json.range as Array<{ sha: string }>).map((c) => c.sha), ['m40', 'm41']);
});

test('unknown buys more samples: the same commit is probed again until decided', () => {
  const rng = seeded(41);
  const f = Math.exp(2 * logSd(quiet));
  const { state } = start([20], [f], rng);
  const [first] = nextProbes(state);
  const small = recordProbe(state, first, drawSession(quiet, 1, rng, 1));
  assert.equal(small.steps[0].verdict, 'unknown');
  assert.deepEqual(nextProbes(small), [first], 'asks for the same commit again');
  const more = recordProbe(small, first, drawSession(quiet, 10, rng, 1));
  assert.equal(more.steps[1].verdict, 'good');
  assert.equal(more.steps[1].n, 11, 'sessions are pooled');
  assert.equal(more.sessions, 2);
  assert.notDeepEqual(nextProbes(more), [first]);
  // Still unknown after maxSessionsPerCommit sessions: set aside like a skip.
  let s = createBisect({ candidates: makeCandidates(8), goodSamples: refs(quiet, rng, 1), badSamples: refs(quiet, rng, f), options: { maxSessionsPerCommit: 2 } });
  const [p] = nextProbes(s);
  const mid = Math.sqrt(f);
  s = recordProbe(s, p, drawSession(quiet, 1, rng, mid));
  s = recordProbe(s, p, { skip: 'flaky' });
  assert.ok(!nextProbes(s).includes(p), 'a skip sets it aside');
  s = createBisect({ candidates: makeCandidates(8), goodSamples: refs(quiet, rng, 1), badSamples: refs(quiet, rng, f), options: { maxSessionsPerCommit: 2 } });
  s = recordProbe(s, p, drawSession(quiet, 1, rng, mid));
  assert.deepEqual(nextProbes(s), [p]);
  s = recordProbe(s, p, [NaN]);
  assert.ok(!nextProbes(s).includes(p));
});

test('a commit beyond both references is reported as such', () => {
  const rng = seeded(51);
  const f = Math.exp(2 * logSd(quiet));
  const { state, measure } = start([30], [f], rng);
  const worse = drive(state, (i) => (i === 31 ? drawSession(quiet, 10, rng, f * f * f) : measure(i)));
  assert.ok(worse.state.steps.some((s) => s.sha === 'm31' && s.verdict === 'beyond-bad'));
  assert.equal(result(worse.state).culprits[0].commit.sha, 'm30');
});

test('not reproducible: good and bad do not differ', () => {
  const rng = seeded(61);
  const state = createBisect({ candidates: makeCandidates(64), goodSamples: refs(quiet, rng, 1), badSamples: refs(quiet, rng, 1) });
  assert.deepEqual(nextProbes(state), []);
  const r = result(state);
  assert.equal(r.status, 'not-reproducible');
  assert.ok(r.reference.ratio !== null && Math.abs(r.reference.ratio - 1) < 0.02);
  const json = toBisectJson(state) as { culprit: unknown; reference: { ratio: number; ratio_ci: number[]; p: number } };
  assert.equal(json.culprit, null);
  assert.equal(json.reference.ratio_ci.length, 2);
  assert.ok(json.reference.p > 0.05 || Math.abs(json.reference.ratio - 1) < 0.02);
});

test('two contributing merges are both reported with their shares', () => {
  const rng = seeded(71);
  const half = Math.exp(3 * logSd(quiet));
  let both = 0;
  for (let t = 0; t < 5; t++) {
    const { state, measure } = start([20, 45], [half, half], rng);
    const r = result(drive(state, measure).state);
    const shas = r.culprits.map((c) => c.commit.sha);
    if (shas.length === 2 && shas[0] === 'm20' && shas[1] === 'm45') {
      both++;
      for (const c of r.culprits) assert.ok(c.share !== null && c.share > 0.3 && c.share < 0.7, `share ${c.share}`);
    }
  }
  assert.ok(both >= 4, `${both}/5`);
});

test('k = 3 parallel probes need about log4(N) steps', () => {
  const rng = seeded(81);
  const f = Math.exp(2 * logSd(quiet));
  let steps = 0;
  let correct = 0;
  for (let t = 0; t < 10; t++) {
    const culprit = Math.floor(rng() * 64);
    const { state, measure } = start([culprit], [f], rng);
    const run = drive(state, measure, 3);
    steps += run.steps;
    if (result(run.state).culprits[0]?.commit.sha === sha(culprit)) correct++;
    assert.ok(run.state.steps.length <= 3 * run.steps);
  }
  assert.ok(correct >= 9);
  assert.ok(steps / 10 <= 4, `mean steps ${steps / 10} vs log4(64) = 3`);
});

test('toBisectJson has the CLI shape; recordProbe never mutates its input', () => {
  const rng = seeded(91);
  const f = Math.exp(3 * logSd(quiet));
  const { state, measure } = start([10], [f], rng, 16);
  const before = JSON.stringify(state);
  const [p] = nextProbes(state);
  recordProbe(state, p, measure(8));
  assert.equal(JSON.stringify(state), before);
  assert.throws(() => recordProbe(state, 'nope', [1, 2]), RangeError);
  const done = drive(state, measure).state;
  const json = toBisectJson(done) as { status: string; culprit: { sha: string; subject: string; pr: number }; steps: Array<Record<string, unknown>>; sessions: number };
  assert.equal(json.status, 'found');
  assert.deepEqual(json.culprit, { sha: 'm10', subject: 'Merge pull request #110', pr: 110 });
  assert.ok(json.steps.length >= 4);
  for (const s of json.steps) assert.deepEqual(Object.keys(s).slice(0, 5), ['sha', 'verdict', 'n', 'ratio', 'ratio_ci']);
  assert.equal(json.sessions, done.sessions);
  assert.deepEqual(JSON.parse(JSON.stringify(done)), done, 'the state is plain JSON');
  assert.throws(() => createBisect({ candidates: [], goodSamples: [1, 2], badSamples: [3, 4] }), RangeError);
});
