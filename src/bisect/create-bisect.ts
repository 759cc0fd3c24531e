/**
 * create-bisect: the bisection state machine, pure (no I/O, no clock). The
 * caller measures; this decides what to measure next and what it means.
 *
 * The unit of evidence is the session: one benchmark session measures
 * commits interleaved (session-oracle.ts), so every comparison this makes
 * is between arms of one session, never between samples of different
 * sessions. Three kinds of session:
 *
 * - `reference`: good and bad, interleaved. Good vs bad must differ
 *   (Hodges-Lehmann shift with a CI excluding 0 at ciAlpha, and beyond the
 *   threshold) before anything is classified. Undecided, the references get
 *   another session; the status is `not-reproducible` only once their CI
 *   rules out a change of the threshold, or after maxSessionsPerCommit
 *   sessions of them (referenceSettled).
 * - `probe`: one candidate interleaved with good and bad. Its contrasts
 *   with both references, combined with its earlier sessions by random
 *   effects, are classified; `unknown` asks for another session of that
 *   commit, up to `maxSessionsPerCommit`; still unknown then, the commit is
 *   set aside like a skipped one. Every probe session also re-measures the
 *   good-to-bad shift, which all sessions estimate together.
 * - `confirm`: a culprit interleaved with its own first parent. A culprit is
 *   named only when this confirms it (confirmAgainstParent). Refuted, the
 *   merge is innocent and the search's last good verdict was wrong (a
 *   session that landed in the other cluster): the search walks back once,
 *   to that commit, and confirms it against its own parent; refuted again,
 *   the culprit is left as a range and nobody is named.
 *
 * Model: `candidates` are the first-parent merges in (good, bad], oldest
 * first, so the last candidate is the bad commit itself. The culprit is the
 * first candidate that is not good: the search keeps the newest good index
 * `lo` (-1 = the good commit) and the oldest bad index `hi`. A skip (build
 * failure, crash) is `git bisect skip`. With k parallel probes each step
 * splits the open range into k + 1 parts.
 *
 * Several contributing merges: once a culprit is confirmed, its sessions'
 * bad-minus-probe contrast says whether bad is still worse by a quarter of
 * the shift (at level ciAlpha / 5); if so, a new search runs over the later
 * candidates with the culprit as the good reference (probe - culprit is the
 * difference of two within-session contrasts with good). Each culprit's
 * share is its confirmed shift over its own parent divided by the larger of
 * the total shift and the sum of the culprits' shifts, so shares never sum
 * past 1.
 *
 * Counted work (`work`: instructions or estimated cycles under valgrind)
 * is compared by workContrast: a count does not see the machine, so one
 * value per commit decides, no session offset needs cancelling, and a
 * probe session may carry the references' counts measured once before
 * (`referencesReused`) instead of measuring them again.
 *
 * The state is plain JSON; every function returns a new state and never
 * mutates its argument.
 */

import { classifySessions, combine, confirmAgainstParent, contrastFor, difference } from './session-oracle.ts';
import type { ConfirmVerdict, Contrast, Estimate } from './session-oracle.ts';
import type { OracleOptions, OracleVerdict } from './session-oracle.ts';
import { normalQuantile, normalSf } from '../stats/normal.ts';
import { REFERENCE_STEP } from './bisect-log.ts';
import type { BisectLog, BisectLogCommit } from './bisect-log.ts';

/** Commit is one candidate merge: `pr` its pull request number when known, `parent` its first parent's SHA when known. */
export interface Commit {
  sha: string;
  subject: string;
  pr?: number;
  parent?: string;
}

/**
 * BisectOptions: the oracle's options (session-oracle.ts) plus
 * `maxSessionsPerCommit` (default 4: sessions an unknown commit, or an
 * unconfirmed culprit, may get), `maxCulprits` (default 3) and
 * `maxSessions` (the whole bisection's budget; default 0: each search, one
 * per culprit, gets its own searchBudget of its range; spent, it stops with
 * what it has, an open search as a range).
 */
export interface BisectOptions extends OracleOptions {
  maxSessionsPerCommit?: number;
  /** parallel: probes measured per step (nextSessions' k, default 1); each search's budget grows with it. */
  parallel?: number;
  maxCulprits?: number;
  maxSessions?: number;
  /** work: the series followed is counted work (default false): contrasts by workContrast, one value a side enough. */
  work?: boolean;
}

/**
 * BisectInput: candidates oldest first (the last is the bad commit), the
 * good commit's SHA (the parent of the first candidate when it has none),
 * and optionally a reference session already measured (good and bad
 * interleaved, e.g. the nightly A/B that confirmed the regression:
 * `counted: false` keeps it out of the session count).
 */
export interface BisectInput {
  candidates: readonly Commit[];
  good?: string;
  reference?: ReferenceSession & { counted?: boolean };
  options?: BisectOptions;
}

/** ReferenceSession is good and bad measured interleaved in one session. */
export interface ReferenceSession {
  good: readonly number[];
  bad: readonly number[];
}

/**
 * ProbeSession is a candidate measured interleaved with good and bad in one
 * session. `referencesReused`: good and bad are counts measured in an
 * earlier session (counted work only), so they add nothing to the shift.
 */
export interface ProbeSession {
  good: readonly number[];
  probe: readonly number[];
  bad: readonly number[];
  referencesReused?: boolean;
}

/** ConfirmSession is a culprit measured interleaved with its first parent in one session. */
export interface ConfirmSession {
  parent: readonly number[];
  probe: readonly number[];
}

/** Skip marks a session that could not be measured (build failure, crash). */
export interface Skip {
  skip: string;
}

/** SessionRequest is what to measure next: the references, a candidate with them, or a culprit with its parent. */
export type SessionRequest =
  | { kind: 'reference' }
  | { kind: 'probe'; sha: string }
  | { kind: 'confirm'; sha: string; parent: string };

/**
 * BisectStep is one recorded session: its kind, the verdict after combining
 * every session of that commit so far (`skip`; for confirm sessions
 * `confirmed`, `refuted` or `unknown`), `n` the probe arm's samples in all
 * its sessions, `ratio`/`ratioCi` the combined probe over good (over the
 * parent for confirm sessions), and the search it belongs to.
 */
export interface BisectStep {
  kind: 'reference' | 'probe' | 'confirm';
  sha: string;
  verdict: OracleVerdict | ConfirmVerdict | 'skip';
  n: number;
  ratio: number | null;
  ratioCi: [number, number] | null;
  partial: boolean;
  search: number;
  sessions: number;
  reason?: string;
}

/** Probe is everything measured on one commit: per-session contrasts with the references. */
export interface Probe {
  index: number;
  fromGood: Contrast[];
  toBad: Contrast[];
  n: number;
  sessions: number;
  skip?: string;
}

/** Confirmation is a culprit's sessions against its parent and the verdict so far. */
export interface Confirmation {
  index: number;
  parent: string;
  vsParent: Contrast[];
  sessions: number;
  verdict: ConfirmVerdict | 'skip';
  skip?: string;
}

/** Search is one bisection from the known-good index `from` (-1: the good commit), begun after `startedAt` sessions (absent: 0). */
export interface Search {
  from: number;
  startedAt?: number;
  /** ref: the search's good reference relative to the good commit (the earlier culprits' confirmed shifts); absent for the first. */
  ref?: Estimate;
}

/** Reference is the good-vs-bad check over every session: ratio bad/good with its CI and p, and the between-session spread. */
export interface Reference {
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  reproducible: boolean;
  sessions: number;
  tau: number | null;
}

/** BisectState is the whole bisection, plain JSON. `sessions` counts benchmark sessions (skips and uncounted references excluded). */
export interface BisectState {
  candidates: Commit[];
  good: string;
  options: Required<BisectOptions>;
  shift: Contrast[];
  referenceMeasured: boolean;
  reference: Reference;
  probes: Record<string, Probe>;
  confirmations: Record<string, Confirmation>;
  rechecks: Record<string, number>;
  culpritAt: Record<number, number>;
  steps: BisectStep[];
  sessions: number;
  searches: Search[];
  finished: boolean;
}

/** Culprit is one contributing merge (or the range it is in) with its share of the shift and its confirmation against its parent. */
export interface Culprit {
  commit: Commit;
  /** range: every candidate the culprit may be, oldest first; one commit when pinned down and confirmed. */
  range: Commit[];
  share: number | null;
  ratio: number | null;
  confirmation: { parent: string; verdict: ConfirmVerdict | 'skip'; ratio: number | null; ratioCi: [number, number] | null; sessions: number } | null;
}

/** BisectStatus: `running`, `found` (every culprit pinned to one confirmed merge), `range` (some culprit is a range), `not-reproducible`. */
export type BisectStatus = 'running' | 'found' | 'range' | 'not-reproducible';

/** BisectResult is what result() reports. */
export interface BisectResult {
  status: BisectStatus;
  culprits: Culprit[];
  sessions: number;
  reference: Reference;
}

const DEFAULT_OPTIONS: Required<BisectOptions> = {
  alpha: 0.01, beta: 0.01, ciAlpha: 0.05, threshold: 0.02, maxSessionsPerCommit: 4, parallel: 1, maxCulprits: 3, maxSessions: 0, work: false,
};

/** createBisect starts a bisection. Throws RangeError without candidates or with duplicate SHAs. */
export function createBisect(input: BisectInput): BisectState {
  if (input.candidates.length === 0) throw new RangeError('createBisect: no candidates between good and bad');
  if (new Set(input.candidates.map((c) => c.sha)).size !== input.candidates.length) throw new RangeError('createBisect: duplicate candidate SHAs');
  const options = { ...DEFAULT_OPTIONS };
  for (const [k, v] of Object.entries(input.options ?? {})) if (v !== undefined) (options as Record<string, number | boolean>)[k] = v;
  let state: BisectState = {
    candidates: input.candidates.map((c) => ({ ...c })), good: input.good ?? input.candidates[0].parent ?? 'good', options,
    shift: [], referenceMeasured: false, reference: emptyReference(), probes: {}, confirmations: {}, rechecks: {}, culpritAt: {}, steps: [], sessions: 0,
    searches: [{ from: -1 }], finished: false,
  };
  if (input.reference) state = recordReference(state, input.reference, input.reference.counted ?? true);
  return state;
}

function emptyReference(): Reference {
  return { ratio: null, ratioCi: null, p: null, reproducible: false, sessions: 0, tau: null };
}

function referenceOf(shift: readonly Contrast[], options: Required<BisectOptions>): Reference {
  const e = combine(shift);
  if (e === null) return { ...emptyReference(), sessions: shift.length };
  const z = normalQuantile(1 - options.ciAlpha / 2);
  const p = Math.min(1, 2 * normalSf(Math.abs(e.mean) / e.se));
  return {
    ratio: Math.exp(e.mean), ratioCi: [Math.exp(e.mean - z * e.se), Math.exp(e.mean + z * e.se)], p,
    reproducible: Math.abs(e.mean) / e.se >= z && Math.abs(e.mean) >= Math.log1p(options.threshold),
    sessions: shift.length, tau: Math.sqrt(e.tau2),
  };
}

/** recordReference adds a reference session (good and bad interleaved). */
export function recordReference(state: BisectState, session: ReferenceSession | Skip, counted = true): BisectState {
  if (isSkip(session)) {
    const step: BisectStep = { kind: 'reference', sha: REFERENCE_STEP, verdict: 'skip', n: 0, ratio: null, ratioCi: null, partial: false, search: 0, sessions: 0, reason: session.skip };
    return { ...state, steps: [...state.steps, step], finished: true };
  }
  const c = contrastFor(state.options.work)(session.good, session.bad);
  if (c === null) {
    // Measured again they would not compare either (zeros, a single value): stop rather than ask for references forever.
    const step: BisectStep = { kind: 'reference', sha: REFERENCE_STEP, verdict: 'skip', n: session.bad.length, ratio: null, ratioCi: null, partial: false, search: 0, sessions: state.shift.length, reason: 'values that cannot be compared (not positive, or too few)' };
    return { ...state, steps: [...state.steps, step], referenceMeasured: true, sessions: state.sessions + (counted ? 1 : 0), finished: true };
  }
  const shift = [...state.shift, c];
  const reference = referenceOf(shift, state.options);
  const step: BisectStep = { kind: 'reference', sha: REFERENCE_STEP, verdict: reference.reproducible ? 'bad' : 'unknown', n: session.bad.length, ratio: reference.ratio, ratioCi: reference.ratioCi, partial: false, search: 0, sessions: shift.length };
  return advance({ ...state, shift, reference, referenceMeasured: true, steps: [...state.steps, step], sessions: state.sessions + (counted ? 1 : 0) });
}

type Status = 'good' | 'bad' | 'pending' | 'aside';

interface View {
  lo: number;
  hi: number;
  status: Map<number, Status>;
  pending: number[];
  open: number[];
}

function shiftEstimate(state: BisectState): Estimate {
  return combine(state.shift) as Estimate;
}

/** searchGood is the estimate of the search's good reference relative to the good commit: the confirmed culprits' shifts so far. */
function searchGood(_state: BisectState, search: Search): Estimate {
  return search.ref ?? { mean: 0, se: 0, tau2: 0, k: 0 };
}

/** classifyProbe classifies one measured commit in a search. */
function classifyProbe(state: BisectState, probe: Probe, search: Search): ReturnType<typeof classifySessions> | null {
  const fromGood = combine(probe.fromGood);
  const toBad = combine(probe.toBad);
  if (fromGood === null || toBad === null) return null;
  const ref = searchGood(state, search);
  const shift = shiftEstimate(state).mean - ref.mean;
  return classifySessions(search.from < 0 ? fromGood : difference(fromGood, ref), toBad, shift, state.options);
}

/** view derives the current search's bounds from every probe, classified against that search's references. */
function view(state: BisectState, searchIndex = state.searches.length - 1): View {
  const search = state.searches[searchIndex];
  const last = state.candidates.length - 1;
  const status = new Map<number, Status>();
  for (const probe of Object.values(state.probes)) {
    if (probe.index <= search.from || probe.index >= last) continue;
    if (probe.skip !== undefined) {
      status.set(probe.index, 'aside');
      continue;
    }
    const sha = state.candidates[probe.index].sha;
    const verdict = classifyProbe(state, probe, search)?.verdict ?? 'unknown';
    const more = probe.sessions < state.options.maxSessionsPerCommit;
    if ((state.rechecks[sha] ?? 0) > probe.sessions && more) status.set(probe.index, 'pending');
    else if (verdict === 'bad' || verdict === 'beyond-bad') status.set(probe.index, 'bad');
    else if (verdict === 'good' || verdict === 'beyond-good') status.set(probe.index, 'good');
    else status.set(probe.index, more ? 'pending' : 'aside');
  }
  let hi = last;
  for (const [i, s] of status) if (s === 'bad' && i < hi) hi = i;
  // A walk-back after a refuted culprit fixes the suspect whatever its first session said.
  const forced = state.culpritAt[searchIndex];
  if (forced !== undefined) hi = forced;
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

/**
 * searchBudget is the sessions one search over `merges` candidates may use,
 * its culprit's confirmation included: what a clean run needs (k probes a
 * step over log_(k+1)(merges) steps, and the confirmation) plus sessions
 * for undecided commits, half a log2(merges) and at least two. With one
 * probe a step that is 1.5 log2(merges): 9 for 64 merges.
 */
export function searchBudget(merges: number, parallel = 1): number {
  const m = Math.max(2, merges);
  const k = Math.max(1, Math.floor(parallel));
  const clean = k * Math.ceil(Math.log(m) / Math.log(k + 1) - 1e-9) + 1;
  return clean + Math.max(2, Math.ceil(1.5 * Math.log2(m)) - Math.ceil(Math.log2(m)) - 1);
}

/** overSearchBudget: the current search has spent its searchBudget (the default when `maxSessions` is 0). */
function overSearchBudget(state: BisectState): boolean {
  const search = state.searches[state.searches.length - 1];
  return state.sessions - (search.startedAt ?? 0) >= searchBudget(state.candidates.length - 1 - search.from, state.options.parallel);
}

function parentOf(state: BisectState, index: number): string {
  return state.candidates[index].parent ?? (index > 0 ? state.candidates[index - 1].sha : state.good);
}

/** confirmationState says where the current search's culprit stands: still to confirm, confirmed, or what to do about a refutation. */
function confirmationOf(state: BisectState, index: number): Confirmation | undefined {
  return state.confirmations[state.candidates[index].sha];
}

/**
 * referenceSettled says that good and bad do not differ, for good: their
 * combined shift's CI lies inside (-threshold, +threshold), or
 * maxSessionsPerCommit reference sessions left it undecided. One noisy
 * session (a busy machine, a CI of +-20% around a real 8%) rules nothing
 * out: the references get another session instead.
 */
function referenceSettled(state: BisectState): boolean {
  const ci = state.reference.ratioCi;
  const inside = ci !== null && Math.max(Math.abs(Math.log(ci[0])), Math.abs(Math.log(ci[1]))) < Math.log1p(state.options.threshold);
  return inside || state.shift.length >= state.options.maxSessionsPerCommit;
}

/**
 * advance settles what can be settled: reproducibility, refuted culprits
 * (another session of the last good commit, or a range), and the next
 * search while a confirmed culprit leaves part of the shift.
 */
function advance(state: BisectState): BisectState {
  // Before any session the shift is unknown: the first probe session measures it (its good and bad arms).
  if (state.shift.length === 0) return { ...state, finished: false };
  if (!state.reference.reproducible) return { ...state, finished: referenceSettled(state) };
  // A bisection whose sessions keep disagreeing stops and says what it has, rather than measuring every merge.
  if (state.options.maxSessions > 0 ? state.sessions >= state.options.maxSessions : overSearchBudget(state)) return { ...state, finished: true };
  for (;;) {
    const v = view(state);
    if (v.pending.length > 0 || v.open.length > 0) return { ...state, finished: false };
    const conf = confirmationOf(state, v.hi);
    if (conf === undefined || (conf.verdict === 'unknown' && conf.sessions < state.options.maxSessionsPerCommit)) return { ...state, finished: false };
    if (conf.verdict === 'refuted') {
      // The culprit's parent already carries the shift: the last good verdict before it was a session in the other
      // cluster. Walk back once: the last good commit becomes the suspect and is confirmed against its own parent.
      const at = state.searches.length - 1;
      if (v.lo > state.searches[at].from && state.culpritAt[at] === undefined) {
        state = { ...state, culpritAt: { ...state.culpritAt, [at]: v.lo } };
        continue;
      }
      return { ...state, finished: true };
    }
    if (conf.verdict !== 'confirmed') return { ...state, finished: true };
    const last = state.candidates.length - 1;
    if (v.hi === last || state.searches.length >= state.options.maxCulprits) return { ...state, finished: true };
    // The culprit's level against good, from its own probe sessions and from the confirmed shifts so far (the earlier
    // culprits' plus its own against its parent), combined by random effects: two ways of measuring it that must agree.
    const own = combine(conf.vsParent) as Estimate;
    const prior = searchGood(state, state.searches[state.searches.length - 1]);
    const probe = state.probes[state.candidates[v.hi].sha];
    const viaParent: Contrast = { estimate: prior.mean + own.mean, variance: prior.se ** 2 + own.se ** 2 };
    const ref = combine([...(probe?.fromGood ?? []), viaParent]) as Estimate;
    const total = shiftEstimate(state);
    const quarter = Math.max(Math.log1p(state.options.threshold), Math.abs(total.mean) / 4);
    const strict = normalQuantile(1 - state.options.ciAlpha / 10);
    const d = Math.sign(total.mean) || 1;
    const left = d * (total.mean - ref.mean);
    // And bad still worse than the culprit inside the culprit's own sessions.
    const toBad = probe ? combine(probe.toBad) : null;
    const inside = toBad === null || (d * toBad.mean >= quarter && (d * toBad.mean) / toBad.se >= strict);
    const more = inside && left >= quarter && left / Math.hypot(total.se, ref.se) >= strict;
    if (!more) return { ...state, finished: true };
    state = { ...state, searches: [...state.searches, { from: v.hi, ref, startedAt: state.sessions }] };
  }
}

/**
 * nextSessions returns up to k sessions to measure next: the reference
 * session first; a culprit's confirmation against its parent when a search
 * has narrowed to one merge; else probes, commits still undecided first,
 * then new commits splitting the open range into equal parts (a skipped
 * commit's nearest open neighbour takes its place). Empty when finished.
 */
export function nextSessions(state: BisectState, k = 1): SessionRequest[] {
  if (state.finished || k < 1) return [];
  if (state.shift.length === 0) {
    // Nothing measured yet: the first probe's good and bad arms are the reference session.
    // A first probe that could not be measured still leaves the references to measure on their own.
    if (state.referenceMeasured || Object.keys(state.probes).length > 0) return [{ kind: 'reference' }];
    const last = state.candidates.length - 1;
    const picks = new Set<number>();
    for (let j = 1; j <= k; j++) picks.add(Math.min(last, Math.max(0, -1 + Math.round((j * (last + 1)) / (k + 1)))));
    return [...picks].sort((a, b) => a - b).map((i) => ({ kind: 'probe' as const, sha: state.candidates[i].sha }));
  }
  // Good and bad not told apart yet (a noisy session): measure them again before anything is classified against them.
  if (!state.reference.reproducible) return [{ kind: 'reference' }];
  const v = view(state);
  if (v.pending.length === 0 && v.open.length === 0) {
    const conf = confirmationOf(state, v.hi);
    if (conf === undefined || conf.verdict === 'unknown') return [{ kind: 'confirm', sha: state.candidates[v.hi].sha, parent: parentOf(state, v.hi) }];
    return [];
  }
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
  return picks.sort((a, b) => a - b).map((i) => ({ kind: 'probe' as const, sha: state.candidates[i].sha }));
}

/** nextProbes is nextSessions' probe SHAs alone (empty while a reference or confirmation session is due). */
export function nextProbes(state: BisectState, k = 1): string[] {
  return nextSessions(state, k).flatMap((r) => (r.kind === 'probe' ? [r.sha] : []));
}

function indexOf(state: BisectState, sha: string, caller: string): number {
  const index = state.candidates.findIndex((c) => c.sha === sha);
  if (index < 0) throw new RangeError(`${caller}: ${sha} is not a candidate`);
  return index;
}

/** recordProbe adds one probe session (or a skip) for a candidate. Throws RangeError for an unknown SHA. */
export function recordProbe(state: BisectState, sha: string, outcome: ProbeSession | Skip): BisectState {
  const index = indexOf(state, sha, 'recordProbe');
  const previous = state.probes[sha];
  const probe: Probe = previous ? { ...previous, fromGood: [...previous.fromGood], toBad: [...previous.toBad] } : { index, fromGood: [], toBad: [], n: 0, sessions: 0 };
  const search = state.searches.length - 1;
  let shift = state.shift;
  let step: BisectStep;
  let sessions = state.sessions;
  const contrast = contrastFor(state.options.work);
  const g = isSkip(outcome) ? null : contrast(outcome.good, outcome.probe);
  const b = isSkip(outcome) ? null : contrast(outcome.probe, outcome.bad);
  if (isSkip(outcome) || g === null || b === null) {
    const reason = isSkip(outcome) ? outcome.skip : 'values that cannot be compared (not positive, or too few)';
    probe.skip = reason;
    if (!isSkip(outcome)) sessions += 1;
    step = { kind: 'probe', sha, verdict: 'skip', n: probe.n, ratio: null, ratioCi: null, partial: false, search, sessions: probe.sessions, reason };
  } else {
    probe.fromGood.push(g);
    probe.toBad.push(b);
    probe.n += outcome.probe.length;
    probe.sessions += 1;
    sessions += 1;
    const d = outcome.referencesReused ? null : contrast(outcome.good, outcome.bad);
    if (d !== null) shift = [...shift, d];
    const next = { ...state, shift, reference: referenceOf(shift, state.options), probes: { ...state.probes, [sha]: probe } };
    const c = classifyProbe(next, probe, state.searches[search]);
    const e = combine(probe.fromGood) as Estimate;
    // Without a reproducible shift there is nothing to classify against.
    const verdict = next.reference.reproducible ? (c?.verdict ?? 'unknown') : 'unknown';
    step = { kind: 'probe', sha, verdict, n: probe.n, ...ratioOf(e, state.options), partial: verdict === 'bad' && (c?.partial ?? false), search, sessions: probe.sessions };
  }
  return advance({ ...state, shift, reference: referenceOf(shift, state.options), referenceMeasured: state.referenceMeasured || shift.length > 0, probes: { ...state.probes, [sha]: probe }, steps: [...state.steps, step], sessions });
}

/** recordConfirmation adds one session of a culprit interleaved with its parent (or a skip). Throws RangeError for an unknown SHA. */
export function recordConfirmation(state: BisectState, sha: string, outcome: ConfirmSession | Skip): BisectState {
  const index = indexOf(state, sha, 'recordConfirmation');
  const previous = state.confirmations[sha];
  const conf: Confirmation = previous ? { ...previous, vsParent: [...previous.vsParent] } : { index, parent: parentOf(state, index), vsParent: [], sessions: 0, verdict: 'unknown' };
  const search = state.searches.length - 1;
  const c = isSkip(outcome) ? null : contrastFor(state.options.work)(outcome.parent, outcome.probe);
  let sessions = state.sessions;
  let step: BisectStep;
  if (c === null) {
    conf.verdict = 'skip';
    conf.skip = isSkip(outcome) ? outcome.skip : 'values that cannot be compared';
    if (!isSkip(outcome)) sessions += 1;
    step = { kind: 'confirm', sha, verdict: 'skip', n: 0, ratio: null, ratioCi: null, partial: false, search, sessions: conf.sessions, reason: `against parent ${conf.parent}: ${conf.skip}` };
  } else {
    conf.vsParent.push(c);
    conf.sessions += 1;
    sessions += 1;
    const e = combine(conf.vsParent) as Estimate;
    const ref = searchGood(state, state.searches[search]);
    conf.verdict = confirmAgainstParent(e, shiftEstimate(state).mean - ref.mean, state.options);
    step = { kind: 'confirm', sha, verdict: conf.verdict, n: (isSkip(outcome) ? 0 : outcome.probe.length) * conf.sessions, ...ratioOf(e, state.options), partial: false, search, sessions: conf.sessions, reason: `against its parent ${conf.parent}` };
  }
  // A confirmation made against an older search's evidence would be stale if the culprit changes; re-keying by SHA keeps it with its merge.
  return advance({ ...state, confirmations: { ...state.confirmations, [sha]: conf }, steps: [...state.steps, step], sessions });
}

function ratioOf(e: Estimate, options: Required<BisectOptions>): { ratio: number; ratioCi: [number, number] } {
  const z = normalQuantile(1 - options.ciAlpha / 2);
  return { ratio: Math.exp(e.mean), ratioCi: [Math.exp(e.mean - z * e.se), Math.exp(e.mean + z * e.se)] };
}

function isSkip(outcome: unknown): outcome is Skip {
  return typeof outcome === 'object' && outcome !== null && typeof (outcome as Skip).skip === 'string';
}

/** result reports the status and every culprit found so far (the last one only once its search finished). */
export function result(state: BisectState): BisectResult {
  const base = { sessions: state.sessions, reference: state.reference };
  if (state.shift.length > 0 && !state.reference.reproducible) return { status: state.finished ? 'not-reproducible' : 'running', culprits: [], ...base };
  if (!state.finished && state.steps.length === 0) return { status: 'running', culprits: [], ...base };
  const culprits: Culprit[] = [];
  let ranged = false;
  const total = state.shift.length > 0 ? shiftEstimate(state).mean : 0;
  const d = Math.sign(total) || 1;
  const shifts: number[] = [];
  for (let s = 0; s < state.searches.length; s++) {
    const finished = s < state.searches.length - 1 || state.finished;
    if (!finished) break;
    const v = view(state, s);
    const conf = confirmationOf(state, v.hi);
    const commit = state.candidates[v.hi];
    const confirmed = conf?.verdict === 'confirmed';
    // An unconfirmed culprit is not named: the range reaches back to the last commit known good.
    // Refuted, the last good verdict is in doubt too: the range reaches back to the search's start. Not measurable
    // (a parent that does not build) or undecided, the culprit is somewhere after the last good commit, as with skips.
    const refuted = conf?.verdict === 'refuted';
    const range = state.candidates.slice(refuted ? Math.max(0, state.searches[s].from + 1) : v.lo + 1, v.hi + 1);
    if (range.length > 1 || !confirmed) ranged = true;
    const e = conf && conf.vsParent.length > 0 ? combine(conf.vsParent) : null;
    shifts.push(confirmed && e ? Math.max(0, d * e.mean) : 0);
    const probe = state.probes[commit.sha];
    const vsGood = probe ? combine(probe.fromGood) : null;
    culprits.push({
      commit, range, share: null,
      ratio: v.hi === state.candidates.length - 1 ? Math.exp(total) : vsGood ? Math.exp(vsGood.mean) : null,
      confirmation: conf ? { parent: conf.parent, verdict: conf.verdict, sessions: conf.sessions, ...(e ? ratioOf(e, state.options) : { ratio: null, ratioCi: null }) } : null,
    });
  }
  const denominator = Math.max(Math.abs(total), shifts.reduce((a, b) => a + b, 0));
  culprits.forEach((c, i) => {
    c.share = denominator > 0 && c.confirmation?.verdict === 'confirmed' ? shifts[i] / denominator : null;
  });
  const status: BisectStatus = !state.finished ? 'running' : ranged ? 'range' : 'found';
  return { status, culprits, ...base };
}

/**
 * toBisectJson is the state machine's part of bisect.json (BisectLog,
 * bisect-log.ts): `culprit` (the first culprit, null while
 * running, when not reproducible, or when it is a range or unconfirmed),
 * `culprits` with shares and their confirmation against the parent,
 * `range` (candidates the first culprit may be), `steps`, `sessions`,
 * `status` and the `reference` check; ratios are probe/good (probe/parent
 * for confirm steps).
 */
export function toBisectJson(state: BisectState): BisectLog {
  const r = result(state);
  const commitJson = (c: Commit): BisectLogCommit => ({ sha: c.sha, subject: c.subject, pr: c.pr ?? null });
  const first = r.culprits[0];
  const named = first !== undefined && first.range.length === 1 && first.confirmation?.verdict === 'confirmed';
  return {
    status: r.status,
    culprit: named ? commitJson(first.commit) : null,
    culprits: r.culprits.map((c) => ({
      ...commitJson(c.commit), share: c.share, ratio: c.ratio, range: c.range.map((x) => x.sha),
      confirmation: c.confirmation === null ? null : { parent: c.confirmation.parent, verdict: c.confirmation.verdict, ratio: c.confirmation.ratio, ratio_ci: c.confirmation.ratioCi, sessions: c.confirmation.sessions },
    })),
    range: first === undefined ? [] : first.range.map(commitJson),
    steps: state.steps.map((s) => ({
      sha: s.sha, verdict: s.verdict, n: s.n, ratio: s.ratio, ratio_ci: s.ratioCi, kind: s.kind, sessions: s.sessions,
      ...(s.partial ? { partial: true } : {}), ...(s.reason === undefined ? {} : { reason: s.reason }),
    })),
    sessions: r.sessions,
    reference: { ratio: r.reference.ratio, ratio_ci: r.reference.ratioCi, p: r.reference.p, reproducible: r.reference.reproducible, sessions: r.reference.sessions, tau: r.reference.tau },
  };
}
