/**
 * create-bisect: the bisection state machine, pure (no I/O, no clock). The
 * caller measures; this decides what to measure next and what it means.
 *
 * Model: `candidates` are the first-parent merges in (good, bad], oldest
 * first, so the last candidate is the bad commit itself and is known bad
 * from `badSamples`; the good commit is known good from `goodSamples`. The
 * culprit is the first candidate that is not good: the search keeps the
 * newest good index `lo` (-1 = the good commit) and the oldest bad index
 * `hi`, and probes in between.
 *
 * - Reproducibility first: good vs bad must differ (Hodges-Lehmann ratio
 *   with a CI excluding 1 at ciAlpha, and beyond the threshold), else the
 *   status is `not-reproducible` and nothing is probed.
 * - Each session's samples are pooled with earlier sessions of the same
 *   commit and classified by the oracle (classify.ts). `unknown` asks for
 *   another session of that commit, up to `maxSessionsPerCommit`; still
 *   unknown then, the commit is set aside like a skipped one.
 * - A skip (build failure, crash) is `git bisect skip`: the commit is set
 *   aside, probes move to its neighbours, and the culprit may end up a range.
 * - `beyond-bad` steers like bad and `beyond-good` like good, and both are
 *   reported in the steps.
 * - With k parallel probes, each step splits the open range into k + 1
 *   parts, so N candidates take about log_{k+1}(N) steps.
 * - Several contributing merges: once a culprit is found, its samples are
 *   compared to the bad reference. If the bad commit is still significantly
 *   worse by more than the threshold, a new search runs over the candidates
 *   after the culprit with the culprit's samples as the good reference
 *   (every probe already measured is re-classified against the new
 *   references, so its samples are reused). Each culprit's share is its
 *   Hodges-Lehmann log shift over the total good-to-bad log shift.
 *
 * The state is plain JSON (it can be saved between workflow runs); every
 * function returns a new state and never mutates its argument.
 */

import { ratioWithCi } from '../stats/hodges-lehmann.ts';
import { classifyDetailed } from './classify.ts';
import type { OracleOptions, OracleVerdict } from './classify.ts';

/** Commit is one candidate merge: `pr` its pull request number when known. */
export interface Commit {
  sha: string;
  subject: string;
  pr?: number;
}

/**
 * BisectOptions: the oracle's options (classify.ts) plus
 * `maxSessionsPerCommit` (default 4: sessions an unknown commit may get
 * before it is set aside) and `maxCulprits` (default 3: searches for
 * further contributing merges).
 */
export interface BisectOptions extends OracleOptions {
  maxSessionsPerCommit?: number;
  maxCulprits?: number;
}

/** BisectInput is what createBisect needs: candidates oldest first (the last is the bad commit), and the reference samples. */
export interface BisectInput {
  candidates: readonly Commit[];
  goodSamples: readonly number[];
  badSamples: readonly number[];
  options?: BisectOptions;
}

/** Skip marks a probe that could not be measured (build failure, crash). */
export interface Skip {
  skip: string;
}

/**
 * BisectStep is one recorded session: the verdict after pooling every
 * session of that commit so far (`skip` for a skip), `n` pooled samples,
 * `ratio` and `ratioCi` against the good reference of the search it belongs to.
 */
export interface BisectStep {
  sha: string;
  verdict: OracleVerdict | 'skip';
  n: number;
  ratio: number | null;
  ratioCi: [number, number] | null;
  partial: boolean;
  search: number;
  reason?: string;
}

/** Probe is everything measured on one commit. */
export interface Probe {
  index: number;
  samples: number[];
  sessions: number;
  skip?: string;
}

/** Search is one bisection: from the known-good index `from` (-1: the good commit) with `good` as its good reference. */
export interface Search {
  from: number;
  good: number[];
}

/** Reference is the good-vs-bad check: ratio bad/good with its CI and the U test's p. */
export interface Reference {
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  reproducible: boolean;
}

/** BisectState is the whole bisection, plain JSON. `sessions` counts benchmark sessions (skips excluded). */
export interface BisectState {
  candidates: Commit[];
  good: number[];
  bad: number[];
  options: Required<BisectOptions>;
  reference: Reference;
  probes: Record<string, Probe>;
  steps: BisectStep[];
  sessions: number;
  searches: Search[];
  finished: boolean;
}

/** Culprit is one contributing merge (or, with skips, the range it is in) and its share of the total shift. */
export interface Culprit {
  commit: Commit;
  /** range: every candidate the culprit may be, oldest first; one commit when pinned down. */
  range: Commit[];
  share: number | null;
  ratio: number | null;
}

/** BisectStatus: `running` (probe more), `found` (every culprit pinned to one merge), `range` (some culprit is a range), `not-reproducible`. */
export type BisectStatus = 'running' | 'found' | 'range' | 'not-reproducible';

/** BisectResult is what result() reports. */
export interface BisectResult {
  status: BisectStatus;
  culprits: Culprit[];
  sessions: number;
  reference: Reference;
}

const DEFAULT_OPTIONS: Required<BisectOptions> = {
  alpha: 0.01, beta: 0.01, ciAlpha: 0.05, threshold: 0.02, maxSessionsPerCommit: 4, maxCulprits: 3,
};

/** createBisect starts a bisection. Throws RangeError without candidates or with duplicate SHAs. */
export function createBisect(input: BisectInput): BisectState {
  if (input.candidates.length === 0) throw new RangeError('createBisect: no candidates between good and bad');
  if (new Set(input.candidates.map((c) => c.sha)).size !== input.candidates.length) throw new RangeError('createBisect: duplicate candidate SHAs');
  const options = { ...DEFAULT_OPTIONS };
  for (const [k, v] of Object.entries(input.options ?? {})) if (v !== undefined) (options as Record<string, number>)[k] = v;
  const good = [...input.goodSamples];
  const bad = [...input.badSamples];
  const state: BisectState = {
    candidates: input.candidates.map((c) => ({ ...c })), good, bad, options,
    reference: referenceCheck(good, bad, options), probes: {}, steps: [], sessions: 0,
    searches: [{ from: -1, good }], finished: false,
  };
  return advance(state);
}

function referenceCheck(good: number[], bad: number[], options: Required<BisectOptions>): Reference {
  if (good.length < 2 || bad.length < 2) return { ratio: null, ratioCi: null, p: null, reproducible: false };
  const r = ratioWithCi(good, bad, options.ciAlpha);
  if (r === null) return { ratio: null, ratioCi: null, p: null, reproducible: false };
  return { ratio: r.ratio, ratioCi: [r.lower, r.upper], p: r.p, reproducible: r.excludesOne && Math.abs(Math.log(r.ratio)) >= Math.log1p(options.threshold) };
}

type Status = 'good' | 'bad' | 'pending' | 'aside';

interface View {
  lo: number;
  hi: number;
  status: Map<number, Status>;
  pending: number[];
  open: number[];
}

/** view derives the current search's bounds from every probe, classified against that search's references. */
function view(state: BisectState): View {
  const search = state.searches[state.searches.length - 1];
  const last = state.candidates.length - 1;
  const status = new Map<number, Status>();
  for (const probe of Object.values(state.probes)) {
    if (probe.index <= search.from || probe.index >= last) continue;
    if (probe.skip !== undefined) {
      status.set(probe.index, 'aside');
      continue;
    }
    const verdict = classifyDetailed(probe.samples, search.good, state.bad, state.options).verdict;
    if (verdict === 'bad' || verdict === 'beyond-bad') status.set(probe.index, 'bad');
    else if (verdict === 'good' || verdict === 'beyond-good') status.set(probe.index, 'good');
    else status.set(probe.index, probe.sessions < state.options.maxSessionsPerCommit ? 'pending' : 'aside');
  }
  let hi = last;
  for (const [i, s] of status) if (s === 'bad' && i < hi) hi = i;
  let lo = search.from;
  for (const [i, s] of status) if (s === 'good' && i < hi && i > lo) lo = i;
  const pending: number[] = [];
  const open: number[] = [];
  for (let i = lo + 1; i < hi; i++) {
    const s = status.get(i);
    if (s === 'pending') pending.push(i);
    else if (s === undefined) open.push(i);
  }
  return { lo, hi, status, pending, open };
}

/** advance moves to the next search while the current one is finished and a shift remains, and marks the bisection finished. */
function advance(state: BisectState): BisectState {
  if (!state.reference.reproducible) return { ...state, finished: true };
  for (;;) {
    const v = view(state);
    if (v.pending.length > 0 || v.open.length > 0) return { ...state, finished: false };
    const last = state.candidates.length - 1;
    if (v.hi === last || state.searches.length >= state.options.maxCulprits) return { ...state, finished: true };
    const culpritSamples = state.probes[state.candidates[v.hi].sha].samples;
    const remaining = ratioWithCi(culpritSamples, state.bad, state.options.ciAlpha);
    const total = Math.log(state.reference.ratio as number);
    // As strict as the oracle's partial-shift rule: a quarter of the total shift, at level ciAlpha / 5.
    const quarter = Math.max(Math.log1p(state.options.threshold), Math.abs(total) / 4);
    const more = remaining !== null && remaining.p <= state.options.ciAlpha / 5 && Math.sign(total) * Math.log(remaining.ratio) >= quarter;
    if (!more) return { ...state, finished: true };
    state = { ...state, searches: [...state.searches, { from: v.hi, good: [...culpritSamples] }] };
  }
}

/**
 * nextProbes returns up to k SHAs to measure next: commits whose pooled
 * samples are still unknown first, then new commits splitting the open
 * range into equal parts (a skipped commit's nearest open neighbour takes its
 * place). Empty when the bisection is finished.
 */
export function nextProbes(state: BisectState, k = 1): string[] {
  if (state.finished || k < 1) return [];
  const v = view(state);
  const picks = v.pending.slice(0, k);
  const slots = k - picks.length;
  const open = [...v.open];
  for (let j = 1; j <= slots && open.length > 0; j++) {
    const ideal = v.lo + Math.round((j * (v.hi - v.lo)) / (slots + 1));
    let best = 0;
    for (let i = 1; i < open.length; i++) if (Math.abs(open[i] - ideal) < Math.abs(open[best] - ideal)) best = i;
    picks.push(open[best]);
    open.splice(best, 1);
  }
  return picks.sort((a, b) => a - b).map((i) => state.candidates[i].sha);
}

/** recordProbe adds one session's samples (or a skip) for a candidate and returns the new state. Throws RangeError for an unknown SHA. */
export function recordProbe(state: BisectState, sha: string, outcome: readonly number[] | Skip): BisectState {
  const index = state.candidates.findIndex((c) => c.sha === sha);
  if (index < 0) throw new RangeError(`recordProbe: ${sha} is not a candidate`);
  const previous = state.probes[sha];
  const probe: Probe = previous ? { ...previous, samples: [...previous.samples] } : { index, samples: [], sessions: 0 };
  const search = state.searches.length - 1;
  let step: BisectStep;
  let sessions = state.sessions;
  if (isSkip(outcome)) {
    probe.skip = outcome.skip;
    step = { sha, verdict: 'skip', n: probe.samples.length, ratio: null, ratioCi: null, partial: false, search, reason: outcome.skip };
  } else {
    probe.samples.push(...outcome);
    probe.sessions += 1;
    sessions += 1;
    const c = classifyDetailed(probe.samples, state.searches[search].good, state.bad, state.options);
    step = { sha, verdict: c.verdict, n: c.n, ratio: c.ratio, ratioCi: c.ratioCi, partial: c.partial, search };
  }
  return advance({ ...state, probes: { ...state.probes, [sha]: probe }, steps: [...state.steps, step], sessions });
}

function isSkip(outcome: readonly number[] | Skip): outcome is Skip {
  return !Array.isArray(outcome);
}

/** result reports the status and every culprit found so far (the last one only once its search finished). */
export function result(state: BisectState): BisectResult {
  const base = { sessions: state.sessions, reference: state.reference };
  if (!state.reference.reproducible) return { status: 'not-reproducible', culprits: [], ...base };
  const culprits: Culprit[] = [];
  const total = Math.log(state.reference.ratio as number);
  let ranged = false;
  for (let s = 0; s < state.searches.length; s++) {
    const finished = s < state.searches.length - 1 || state.finished;
    if (!finished) break;
    // A search's culprit is where the next search starts, or, for the last search, its final hi.
    const sub = { ...state, searches: state.searches.slice(0, s + 1) };
    const v = view(sub);
    const samples = v.hi === state.candidates.length - 1 ? state.bad : state.probes[state.candidates[v.hi].sha].samples;
    const r = ratioWithCi(state.searches[s].good, samples, state.options.ciAlpha);
    const range = state.candidates.slice(v.lo + 1, v.hi + 1);
    if (range.length > 1) ranged = true;
    culprits.push({
      commit: state.candidates[v.hi], range,
      share: r === null || total === 0 ? null : Math.log(r.ratio) / total,
      ratio: r === null ? null : r.ratio,
    });
  }
  const status: BisectStatus = !state.finished ? 'running' : ranged ? 'range' : 'found';
  return { status, culprits, ...base };
}

/**
 * toBisectJson is the CLI's JSON: `culprit` (the first culprit, null while
 * running, when not reproducible, or when it is a range), `culprits` with
 * shares, `range` (candidates the first culprit may be), `steps`,
 * `sessions`, `status` and the `reference` check; ratios are probe/good.
 */
export function toBisectJson(state: BisectState): Record<string, unknown> {
  const r = result(state);
  const commitJson = (c: Commit) => ({ sha: c.sha, subject: c.subject, pr: c.pr ?? null });
  const first = r.culprits[0];
  return {
    status: r.status,
    culprit: first !== undefined && first.range.length === 1 ? commitJson(first.commit) : null,
    culprits: r.culprits.map((c) => ({ ...commitJson(c.commit), share: c.share, ratio: c.ratio, range: c.range.map((x) => x.sha) })),
    range: first === undefined ? [] : first.range.map(commitJson),
    steps: state.steps.map((s) => ({ sha: s.sha, verdict: s.verdict, n: s.n, ratio: s.ratio, ratio_ci: s.ratioCi, ...(s.partial ? { partial: true } : {}), ...(s.reason === undefined ? {} : { reason: s.reason }) })),
    sessions: r.sessions,
    reference: { ratio: r.reference.ratio, ratio_ci: r.reference.ratioCi, p: r.reference.p, reproducible: r.reference.reproducible },
  };
}
