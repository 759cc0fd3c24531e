// `npm run bench:bisect`: how well the bisect works on real noise, beside
// what people do today (the nightly scan and issue 12's whole table are
// `npm run bench:nightly`, bench/nightly.ts, which shares these helpers).
//
// The noise is real: fixtures/noise/ holds run-to-run samples captured on a
// shared development machine. A session measures its commits interleaved
// (drawInterleaved): iid draws every sample independently; block deals one
// contiguous stretch of a pool, in capture order, to the session's arms, so
// the session carries that stretch's level, drift and bursts. A regression
// multiplies the values; a shift of "s noise SDs" multiplies by
// exp(s * sigma), sigma the standard deviation of the pool's log values.
//
// Bisect: 64 candidate merges, one of them (uniformly) the culprit.
// benchbot = the state machine of src/bisect, 10 rounds per arm and
// session, every probe interleaved with good and bad, every culprit
// confirmed against its parent; all its sessions are counted. plain = what
// a naive `git bisect run` script does: one sample per probe, bad when above
// the midpoint of one good and one bad sample.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCorpus, type Pool } from './quality.ts';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, result } from '../src/bisect/create-bisect.ts';
import type { BisectOptions, Commit } from '../src/bisect/create-bisect.ts';
import type { Series } from '../src/scan/series.ts';
import { xoshiro128 } from '../src/stats/bootstrap.ts';
import { BISECT_DEFAULTS } from '../src/jobs/bisect-session.ts';

export { loadCorpus };
export type { Pool };

/** SESSION_SAMPLES is the number of samples of one nightly benchmark session. */
export const SESSION_SAMPLES = 10;
/** BISECT_ROUNDS is the rounds per arm of one bisect session: `benchbot bisect`'s default. */
export const BISECT_ROUNDS: number = BISECT_DEFAULTS.rounds;
/** CANDIDATES is the number of merges between good and bad in the bisect simulation. */
export const CANDIDATES = 64;

/** Rng is a uniform [0, 1) generator. */
export type Rng = () => number;

/** seeded returns a seeded xoshiro128** generator. */
export function seeded(seed: number): Rng {
  return xoshiro128(seed);
}

/** logSd is the standard deviation of a pool's log values: what "one noise SD" means here. */
export function logSd(values: readonly number[]): number {
  const logs = values.map(Math.log);
  const m = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, b) => a + (b - m) ** 2, 0) / (logs.length - 1));
}

/**
 * Draw says how a session samples a pool: `iid` draws each sample
 * independently (with replacement); `block` takes a contiguous block in
 * capture order, so a session inherits the drift and bursts of one stretch
 * of the shared machine (session-to-session noise, the pessimistic case).
 */
export type Draw = 'iid' | 'block';

/** drawSession is one session of n samples from a pool, times `factor`. */
export function drawSession(values: readonly number[], n: number, rng: Rng, factor = 1, draw: Draw = 'iid'): number[] {
  if (draw === 'iid') return Array.from({ length: n }, () => values[Math.floor(rng() * values.length)] * factor);
  const start = Math.floor(rng() * values.length);
  return Array.from({ length: n }, (_, i) => values[(start + i) % values.length] * factor);
}

/** HistorySpec: a nightly history of `nights` nights from a pool, multiplied by `factor` from night `stepAt` on. */
export interface HistorySpec {
  pool: Pool;
  nights: number;
  samplesPerNight?: number;
  stepAt?: number;
  factor?: number;
  key?: string;
  better?: 'lower' | 'higher';
  draw?: Draw;
}

/**
 * makeHistory builds a scan Series with SHAs `n000`, `n001`... one night per
 * day from 2026-01-01. Each night is the nightly job's session: last
 * night's commit beside tonight's, interleaved (drawInterleaved), so every
 * night but the first carries its A/B (`ab`); `values` are tonight's.
 */
export function makeHistory(spec: HistorySpec, rng: Rng): Series {
  const n = spec.samplesPerNight ?? SESSION_SAMPLES;
  const factorAt = (i: number) => (spec.stepAt !== undefined && i >= spec.stepAt ? (spec.factor ?? 1) : 1);
  const sha = (i: number) => `n${String(i).padStart(3, '0')}`;
  const nights = Array.from({ length: spec.nights }, (_, i) => {
    const [base, head] = drawInterleaved(spec.pool.values, [factorAt(Math.max(0, i - 1)), factorAt(i)], n, rng, spec.draw);
    return { sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString(), values: head, ...(i > 0 ? { ab: { baseSha: sha(i - 1), base } } : {}) };
  });
  return {
    key: spec.key ?? spec.pool.name, benchmark: spec.pool.name, metric: 'time', unit: spec.pool.unit,
    better: spec.better ?? 'lower', machineKey: 'fp', branch: 'main', nights,
  };
}

/** makeCandidates names N merges `m00`... with PR numbers 100 + i. */
export function makeCandidates(n: number): Commit[] {
  return Array.from({ length: n }, (_, i) => ({ sha: `m${String(i).padStart(2, '0')}`, subject: `Merge pull request #${100 + i}`, pr: 100 + i }));
}

/** BisectTrial is one simulated bisect's outcome. */
export interface BisectTrial {
  correct: boolean;
  /** innocent: a merge other than the culprits was named (confirmed). */
  innocent: boolean;
  sessions: number;
  steps: number;
  status: string;
  culprits: string[];
}

/**
 * drawInterleaved is one session of `factors.length` arms measured
 * interleaved, n rounds each: iid draws every sample independently; block
 * takes one contiguous stretch of arms x n samples of the capture and deals
 * it round by round, each round's arms in a random order, so all arms of a
 * session share the stretch's level and drift (as interleaved rounds on a
 * real machine do).
 */
export function drawInterleaved(values: readonly number[], factors: readonly number[], n: number, rng: Rng, draw: Draw = 'iid'): number[][] {
  const arms = factors.map(() => [] as number[]);
  const start = Math.floor(rng() * values.length);
  let k = 0;
  for (let r = 0; r < n; r++) {
    const order = factors.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const a of order) {
      const v = draw === 'iid' ? values[Math.floor(rng() * values.length)] : values[(start + k) % values.length];
      k++;
      arms[a].push(v * factors[a]);
    }
  }
  return arms;
}

/** SessionSource measures one interleaved session: arms with these factors (commit i's factor), n rounds each. */
export type SessionSource = (factors: readonly number[], n: number) => number[][];

/** poolSource draws sessions from a noise pool. */
export function poolSource(values: readonly number[], rng: Rng, draw: Draw = 'iid'): SessionSource {
  return (factors, n) => drawInterleaved(values, factors, n, rng, draw);
}

/**
 * simulateBisect runs benchbot's state machine on a simulated range:
 * candidate i has factor `factorAt(i)` (1 for good); `skips` are SHAs that
 * fail to build. Every session is interleaved: the reference session good
 * and bad, a probe session good, the candidate and bad, a confirmation the
 * culprit and its parent. `source` (default: the pool, `draw`) measures them.
 */
export function simulateBisect(opts: {
  values: readonly number[];
  factorAt: (i: number) => number;
  n?: number;
  rng: Rng;
  k?: number;
  skips?: ReadonlySet<string>;
  options?: BisectOptions;
  expected: string[];
  draw?: Draw;
  source?: SessionSource;
  candidates?: number;
}): BisectTrial {
  const n = opts.n ?? BISECT_ROUNDS;
  const count = opts.candidates ?? CANDIDATES;
  const candidates = makeCandidates(count);
  const source = opts.source ?? poolSource(opts.values, opts.rng, opts.draw);
  const bad = opts.factorAt(count - 1);
  const factorOf = (sha: string) => {
    const i = candidates.findIndex((c) => c.sha === sha);
    return i < 0 ? 1 : opts.factorAt(i);
  };
  let state = createBisect({ candidates, good: 'good', options: { parallel: opts.k ?? 1, ...opts.options } });
  let steps = 0;
  for (let guard = 0; guard < 300; guard++) {
    const requests = nextSessions(state, opts.k ?? 1);
    if (requests.length === 0) break;
    steps++;
    for (const r of requests) {
      if (r.kind === 'reference') {
        const [good, b] = source([1, bad], n);
        state = recordReference(state, { good, bad: b });
      } else if (r.kind === 'probe') {
        if (opts.skips?.has(r.sha)) state = recordProbe(state, r.sha, { skip: 'build failed' });
        else {
          const [good, probe, b] = source([1, factorOf(r.sha), bad], n);
          state = recordProbe(state, r.sha, { good, probe, bad: b });
        }
      } else {
        const [parent, probe] = source([factorOf(r.parent), factorOf(r.sha)], n);
        state = recordConfirmation(state, r.sha, { parent, probe });
      }
    }
  }
  const r = result(state);
  const culprits = r.culprits.filter((c) => c.range.length === 1 && c.confirmation?.verdict === 'confirmed').map((c) => c.commit.sha);
  return {
    correct: r.status === 'found' && culprits.length === opts.expected.length && culprits.every((c, i) => c === opts.expected[i]),
    innocent: culprits.some((c) => !opts.expected.includes(c)),
    sessions: r.sessions, steps, status: r.status, culprits: r.culprits.map((c) => c.commit.sha),
  };
}

/** simulatePlain is the naive `git bisect run` oracle: one sample per probe against the midpoint of one good and one bad sample. */
export function simulatePlain(values: readonly number[], factorAt: (i: number) => number, rng: Rng, culprit: number, draw: Draw = 'iid'): BisectTrial {
  const one = (factor: number) => drawSession(values, 1, rng, factor, draw)[0];
  const mid = (one(1) + one(factorAt(CANDIDATES - 1))) / 2;
  let lo = -1;
  let hi = CANDIDATES - 1;
  let sessions = 0;
  while (hi - lo > 1) {
    const m = lo + Math.round((hi - lo) / 2);
    sessions++;
    if (one(factorAt(m)) > mid) hi = m;
    else lo = m;
  }
  return { correct: hi === culprit, innocent: hi !== culprit, sessions, steps: sessions, status: 'found', culprits: [`m${String(hi).padStart(2, '0')}`] };
}

interface Tally {
  correct: number;
  innocent: number;
  sessions: number;
  maxSessions: number;
  steps: number;
  trials: number;
}

const tally = (): Tally => ({ correct: 0, innocent: 0, sessions: 0, maxSessions: 0, steps: 0, trials: 0 });
const add = (t: Tally, r: BisectTrial) => {
  t.trials++;
  t.sessions += r.sessions;
  t.maxSessions = Math.max(t.maxSessions, r.sessions);
  t.steps += r.steps;
  if (r.correct) t.correct++;
  if (r.innocent) t.innocent++;
};
const pct = (t: Tally) => `${((100 * t.correct) / t.trials).toFixed(1)}%`;
const mean = (x: number, t: Tally) => (x / t.trials).toFixed(2);

/** benchBisect runs every section and returns the markdown lines. */
export async function benchBisect(trialsPerPool = 30, seed = 20261122): Promise<string[]> {
  const pools = loadCorpus();
  const rng = seeded(seed);
  const log2n = Math.log2(CANDIDATES);
  const lines: string[] = ['## Bisect: benchbot oracle vs a plain single-sample `git bisect run` (resampled real noise)', ''];
  lines.push(
    `${CANDIDATES} candidate merges, culprit uniform, ${trialsPerPool} bisects per pool and row over ${pools.length} pools (fixtures/noise/). ` +
      `1 SD = the standard deviation of the pool's log values. benchbot: ${BISECT_ROUNDS} rounds per arm and session, each probe interleaved with good and bad, the culprit confirmed against its parent; ` +
      'every session counted. plain: one sample per probe, bad when above the midpoint of one good and one bad sample. ' +
      'Accuracy = exactly the true culprit named, and no other; innocent = some other merge named (a range or not-reproducible names nobody).',
    '',
  );
  lines.push('| draw | shift | benchbot accuracy | innocent named | benchbot sessions (mean / max) | plain accuracy | plain sessions |', '| --- | --- | --- | --- | --- | --- | --- |');
  let at2: Tally | undefined;
  // `clustered`: block draws where one session in five lands in the other cluster of a bimodal machine (the whole session x0.85).
  const rows: Array<[Draw | 'clustered', number]> = [['iid', 1], ['iid', 2], ['iid', 3], ['block', 1], ['block', 2], ['block', 3], ['clustered', 2]];
  for (const [draw, sds] of rows) {
    const ours = tally();
    const plain = tally();
    for (const pool of pools) {
      const factor = Math.exp(sds * logSd(pool.values));
      const source: SessionSource = (fs, n) => {
        const arms = drawInterleaved(pool.values, fs, n, rng, draw === 'iid' ? 'iid' : 'block');
        return draw === 'clustered' && rng() < 0.2 ? arms.map((a) => a.map((v) => v * 0.85)) : arms;
      };
      for (let t = 0; t < trialsPerPool; t++) {
        const culprit = Math.floor(rng() * CANDIDATES);
        const factorAt = (i: number) => (i >= culprit ? factor : 1);
        add(ours, simulateBisect({ values: pool.values, factorAt, rng, source, expected: [`m${String(culprit).padStart(2, '0')}`] }));
        add(plain, simulatePlain(pool.values, factorAt, rng, culprit, draw === 'iid' ? 'iid' : 'block'));
      }
    }
    if (draw === 'block' && sds === 2) at2 = ours;
    lines.push(`| ${draw} | ${sds} SD | ${pct(ours)} | ${ours.innocent} | ${mean(ours.sessions, ours)} / ${ours.maxSessions} | ${pct(plain)} | ${mean(plain.sessions, plain)} |`);
  }
  lines.push('', 'iid: every sample drawn independently from the pool. block: a session is one contiguous stretch of the capture dealt to its arms, so it carries that stretch\'s level, drift and bursts; the arms of one session share them and the contrasts inside the session cancel them.');

  lines.push('', `Parallel probes (iid, 2 SD; steps = rounds of k simultaneous sessions):`, '');
  lines.push('| k | accuracy | mean steps | log_(k+1) N | mean sessions |', '| --- | --- | --- | --- | --- |');
  for (const k of [1, 3]) {
    const t = tally();
    for (const pool of pools) {
      const factor = Math.exp(2 * logSd(pool.values));
      for (let i = 0; i < Math.ceil(trialsPerPool / 3); i++) {
        const culprit = Math.floor(rng() * CANDIDATES);
        add(t, simulateBisect({ values: pool.values, factorAt: (j) => (j >= culprit ? factor : 1), rng, k, expected: [`m${String(culprit).padStart(2, '0')}`] }));
      }
    }
    lines.push(`| ${k} | ${pct(t)} | ${mean(t.steps, t)} | ${(Math.log(CANDIDATES) / Math.log(k + 1)).toFixed(2)} | ${mean(t.sessions, t)} |`);
  }

  const target = 1.5 * log2n;
  const ok = at2 !== undefined && at2.correct / at2.trials >= 0.95 && at2.sessions / at2.trials <= target;
  lines.push('', `Target (>= 95% accuracy at 2 SD with <= ${target.toFixed(1)} sessions, block draws): ${ok ? 'MET' : 'NOT MET'} (benchbot ${at2 ? pct(at2) : '?'} with ${at2 ? mean(at2.sessions, at2) : '?'} sessions on average)`);
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = process.hrtime.bigint();
  const text = `${(await benchBisect()).join('\n')}\n\n(${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s)\n`;
  console.log(text);
  if (process.argv.includes('--save')) {
    const dir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}bisect.md`, text);
  }
}
