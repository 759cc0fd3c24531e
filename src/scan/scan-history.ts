/**
 * scan-history: the nightly scan. Every series (benchmark x metric x machine
 * x branch) is searched for changes; a change is reported only when two
 * kinds of evidence agree, and the survivors of all series go through one
 * Benjamini-Hochberg step so that scanning 300 series every night does not
 * mean a false alarm every night.
 *
 * The unit of evidence is the night (one benchmark session): the samples of
 * one night share its offset (machine state, thermal state, what ran
 * before), so nights are compared by their medians, with the
 * night-to-night variance estimated from the history itself, never by
 * pooling raw samples of different nights as if they were independent.
 *
 * 1. History (context). Per series, oldest night first: the latest ack
 *    starts the baseline, and a night whose machine facts differ from the
 *    night before (kernel, microcode, governor, turbo, SMT, toolchain:
 *    `Night.machine`) starts a new segment, never a regression (the result
 *    lists it under `machineChanges`, with what changed). In each segment,
 *    windowed E-divisive means (Otava's algorithm and defaults) on
 *    log(median per night) with a minimum magnitude of the threshold; and
 *    the fast alert, the newest two or three nights against the segment
 *    before them. Either is a candidate only when a t test on the nights'
 *    log medians (sessionShift: up to `confirmNights` nights each side, the
 *    night-to-night standard deviation from up to `windowLen` nights of the
 *    segment before) gives p <= `historyAlpha` and a shift beyond the
 *    threshold, every night after it on the same side.
 * 2. Interleaved confirmation. The nightly job measures last night's SHA
 *    beside tonight's in ABBA rounds (`Night.ab`). A candidate is confirmed
 *    by the A/B of its first bad night against its last good one (the
 *    night among the `locateNights` around the candidate whose A/B moved
 *    most in the candidate's direction; p Bonferroni-corrected for the
 *    nights looked at) by the PR rule: Hodges-Lehmann ratio with its
 *    Mann-Whitney CI, q < alpha after BH across all series, beyond the
 *    threshold, in the direction the history moved. A candidate whose night
 *    has no A/B is `awaiting` (the nightly action measures it right away;
 *    jobs/confirm-findings.ts); one the A/B contradicts is dropped.
 * 3. A `watch` is one night beyond `zThreshold` robust z (median/MAD of
 *    log medians over the segment): shown, never filed.
 *
 * Change points older than `maxAgeNights` are not reported (an earlier scan
 * reported them). Nights whose median is not positive cannot be logged and
 * are left out with a warning.
 */

import type { Comparison } from '../model/comparison.ts';
import type { Direction } from '../model/measurement.ts';
import { decideVerdict } from '../compare/compare-runs.ts';
import { primaryMetrics } from '../compare/metric-family.ts';
import { noiseSigma } from '../compare/power.ts';
import { sequentialAb } from '../compare/sequential-ab.ts';
import { benjaminiHochberg } from '../stats/fdr.ts';
import { normalSf } from '../stats/normal.ts';
import { median } from '../stats/order-statistics.ts';
import { MAD_TO_SIGMA } from '../stats/robust-cv.ts';
import { randomEffects, sessionShift } from '../stats/sessions.ts';
import { contrast } from '../bisect/session-oracle.ts';
import { eDivisive, logMagnitude } from './e-divisive.ts';

/**
 * NightAb is the interleaved A/B the nightly job ran that night: `base`,
 * the samples of `baseSha` (the previous nightly's commit, or the last good
 * one when the A/B was run to confirm a finding) measured in the same
 * session, ABBA, as the night's own `values`.
 */
export interface NightAb {
  baseSha: string;
  base: readonly number[];
  /** head samples when they are not the night's `values` (a confirmation run after the night). */
  head?: readonly number[];
  /** more interleaved sessions of the same pair (baseSha vs this night's SHA), run to settle an inconclusive A/B. */
  extra?: ReadonlyArray<{ base: readonly number[]; head: readonly number[] }>;
}

/**
 * Night is one nightly run's samples of one series: `values` in the
 * series' unit, `median` precomputed (else computed), `ab` the night's
 * interleaved A/B, `machine` the facts that start a new segment when they
 * change (e.g. {kernel, microcode, governor, toolchain}).
 */
export interface Night {
  sha: string;
  time: string;
  values: readonly number[];
  median?: number;
  ab?: NightAb;
  machine?: Readonly<Record<string, string>>;
}

/**
 * Series is one benchmark x metric x machine x branch history, nights oldest
 * first. `key` defaults to {@link seriesKey}; `machineKey` names the machine
 * (model/fingerprint.ts: hostKey for nightly series, else a machine key).
 */
export interface Series {
  key?: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  machineKey: string;
  branch: string;
  nights: readonly Night[];
}

/**
 * Ack marks an expected change of one series at a commit: no alert at or
 * before it, and a new baseline starts there. `time` places it when `sha`
 * is not one of the nightly SHAs (e.g. the culprit merge between two nightlies):
 * the baseline then starts at the first night at or after that time.
 */
export interface Ack {
  series: string;
  sha: string;
  time?: string;
  reason?: string;
}

/**
 * ScanOptions (all optional):
 * - `threshold` theta, fraction (0.02): the PR rule's threshold and the default `minMagnitude`;
 * - `alpha` (0.05): the FDR level across all series and 1 - the CI level;
 * - `windowLen` (30 nights), `maxPValue` (0.001), `minMagnitude` (= threshold): E-divisive;
 *   `windowLen` also caps the nights the night-to-night spread is estimated from;
 * - `confirmNights` (5): nights each side of a change point in the history test;
 * - `historyAlpha` (0.01): the history test's level (t test on nightly log medians);
 * - `locateNights` (2): nights either side of a change point whose A/B may confirm it;
 * - `maxConfirmSessions` (3): interleaved A/B sessions of one pair before an inconclusive one is dropped;
 * - `minRuns`/`maxRuns` (10/40): the round budget of one A/B session (the action's `min-runs`/`max-runs`):
 *   each session is judged by `run`'s looks (compare/sequential-ab.ts), as the run that measured it stopped;
 * - `abAlpha` (0.05, the PR rule's own level): a night's own A/B decided regressed or improved by run's
 *   looks with its look-adjusted p at most this raises an `ab-alert` candidate; null turns that off;
 * - `zThreshold` (4): robust z of a one-night watch; `minBaselineNights` (10) the fewest nights the fast alert needs before it;
 * - `maxAgeNights` (30): change points whose first bad night is older are not reported;
 * - `trendNights` (30): nights in each finding's trend;
 * - `acks`: expected changes.
 */
export interface ScanOptions {
  threshold?: number;
  alpha?: number;
  windowLen?: number;
  maxPValue?: number;
  minMagnitude?: number;
  confirmNights?: number;
  historyAlpha?: number;
  locateNights?: number;
  maxConfirmSessions?: number;
  minRuns?: number;
  maxRuns?: number;
  abAlpha?: number | null;
  zThreshold?: number;
  minBaselineNights?: number;
  maxAgeNights?: number;
  trendNights?: number;
  acks?: readonly Ack[];
}

/** NightRef names one nightly run. */
export interface NightRef {
  sha: string;
  time: string;
}

/** TrendPoint is one night of a finding's trend: the median in the series' unit. */
export interface TrendPoint extends NightRef {
  median: number;
}

/** AbConfirmation is the interleaved A/B that confirmed (or not yet) a finding: last good vs first bad in one session. */
export interface AbConfirmation {
  baseSha: string;
  headSha: string;
  time: string;
  ratio: number;
  ratioCi: [number, number] | null;
  p: number;
  nBase: number;
  nHead: number;
  sessions: number;
}

/** HistoryEvidence is the nights' side: the shift of log medians after vs before, its CI and t test p, and the night-to-night SD (log). */
export interface HistoryEvidence {
  ratio: number;
  ratioCi: [number, number];
  p: number;
  nightSd: number;
}

/** MachineChange is a night whose machine facts differ from the night before: a new segment starts there. */
export interface MachineChange {
  series: string;
  benchmark: string;
  metric: string;
  night: NightRef;
  previous: NightRef;
  changes: { field: string; before: string | null; after: string | null }[];
}

/**
 * ScanFinding is one suspected change of one series.
 * - `kind`: `change-point` (E-divisive), `alert` (the newest two or three
 *   nights) or `watch` (one night beyond the robust z; `q` null, nothing to
 *   file).
 * - `ratio` after/before in the metric's unit: the interleaved A/B's when
 *   confirmed (`confirmation`), else the history's; `history` the nights'
 *   evidence; `p`/`q` the confirmation's; `direction` follows `better`.
 * - `lastGood`..`firstBad` is the commit range to bisect; `nightsSince`
 *   counts the nights from the first bad one to the newest, both included.
 * - `before`/`after`: the nights the history test compared (median of
 *   their medians, samples in them).
 * - `machineChanges`: machine changes within the trend.
 */
export interface ScanFinding {
  series: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  machineKey: string;
  branch: string;
  kind: 'change-point' | 'alert' | 'ab-alert' | 'watch';
  direction: 'regression' | 'improvement';
  ratio: number;
  ratioCi: [number, number] | null;
  p: number;
  q: number | null;
  lastGood: NightRef;
  firstBad: NightRef;
  nightsSince: number;
  before: { nights: number; n: number; median: number };
  after: { nights: number; n: number; median: number };
  zScore?: number;
  trend: TrendPoint[];
  history?: HistoryEvidence;
  confirmation?: AbConfirmation | null;
  machineChanges?: MachineChange[];
}

/**
 * ScanResult: `findings` (confirmed regressions first, then by q, then
 * watches), `awaiting` (history candidates whose first bad night has no
 * interleaved A/B yet: measure lastGood vs firstBad, then scan again),
 * `refuted` (candidates the A/B did not confirm), `machineChanges`,
 * `timeFamilies` (benchmarks with both real_time and cpu_time: which one
 * was scanned, see {@link timeFamilies}), how many candidates were tested,
 * and warnings as values.
 */
export interface ScanResult {
  findings: ScanFinding[];
  awaiting: ScanFinding[];
  refuted: ScanFinding[];
  machineChanges: MachineChange[];
  timeFamilies?: TimeFamily[];
  tested: number;
  warnings: string[];
}

const DEFAULTS = {
  threshold: 0.02,
  alpha: 0.05,
  windowLen: 30,
  maxPValue: 0.001,
  confirmNights: 5,
  historyAlpha: 0.01,
  locateNights: 2,
  maxConfirmSessions: 3,
  minRuns: 10,
  maxRuns: 40,
  abAlpha: 0.05 as number | null,
  zThreshold: 4,
  minBaselineNights: 10,
  maxAgeNights: 30,
  trendNights: 30,
};

type Resolved = typeof DEFAULTS & { minMagnitude: number; acks: readonly Ack[] };

/** seriesKey is the default id of a series, as acks name it: `branch:benchmark:metric:machineKey`. */
export function seriesKey(s: Pick<Series, 'branch' | 'benchmark' | 'metric' | 'machineKey'>): string {
  return `${s.branch}:${s.benchmark}:${s.metric}:${s.machineKey}`;
}

/** scanSeries scans one series; q-values are adjusted across its own candidates only. */
export function scanSeries(series: Series, options: ScanOptions = {}): ScanResult {
  return scanHistory([series], options);
}

interface Candidate {
  finding: ScanFinding;
  ab: AbConfirmation | null;
  /** sessionsBefore: sessions of the pair not counted in `ab` (the night's own A/B that raised an `ab-alert`). */
  sessionsBefore?: number;
  abCi: { ratioCi: [number, number] | null; equivalenceCi: [number, number] | null };
}

/**
 * TimeFamily is one benchmark (on one machine and branch) with both of
 * Google Benchmark's times: `primary` is the metric scanned, `secondary`
 * the one left out, `noise` each one's per-round noise (log scale, median
 * over its newest nights).
 */
export interface TimeFamily {
  benchmark: string;
  machineKey: string;
  branch: string;
  primary: string;
  secondary: string;
  noise: Record<string, number | null>;
}

/**
 * timeFamilies treats `real_time` and `cpu_time` of one benchmark as one
 * measurement, as the PR check does (compare/metric-family.ts):
 * `real_time` is primary unless `cpu_time`'s per-round noise is below
 * CPU_TIME_QUIETER (one half) of real_time's. The noise is each series' own
 * spread within a night (noiseSigma, median over up to `windowLen` newest
 * nights), never a change between nights, so the choice cannot favour a
 * finding. Only the primary one is scanned: two series of one measurement
 * would count it twice in the FDR family and file one regression twice.
 * Other metrics (counters, rates) stay series of their own.
 */
export function timeFamilies(allSeries: readonly Series[], windowLen = DEFAULTS.windowLen): TimeFamily[] {
  const groups = new Map<string, Map<string, Series>>();
  for (const s of allSeries) {
    if (s.metric !== 'real_time' && s.metric !== 'cpu_time') continue;
    const k = `${s.branch}\u0000${s.benchmark}\u0000${s.machineKey}`;
    const g = groups.get(k) ?? new Map<string, Series>();
    groups.set(k, g);
    g.set(s.metric, s);
  }
  const out: TimeFamily[] = [];
  for (const g of groups.values()) {
    const real = g.get('real_time');
    const cpu = g.get('cpu_time');
    if (!real || !cpu) continue;
    const noise = (s: Series) => {
      const sigmas = s.nights.slice(-windowLen).map((n) => noiseSigma(n.values)).filter((x): x is number => x !== null);
      return sigmas.length > 0 ? median(sigmas) : null;
    };
    const sigma = new Map([[real, noise(real)], [cpu, noise(cpu)]]);
    const primary = primaryMetrics([real, cpu], (s) => sigma.get(s) ?? undefined).get(real.benchmark) ?? 'real_time';
    out.push({
      benchmark: real.benchmark, machineKey: real.machineKey, branch: real.branch,
      primary, secondary: primary === 'cpu_time' ? 'real_time' : 'cpu_time',
      noise: { real_time: sigma.get(real) ?? null, cpu_time: sigma.get(cpu) ?? null },
    });
  }
  return out;
}

const familyKey = (s: { branch: string; benchmark: string; machineKey: string }, metric: string) => `${s.branch}\u0000${s.benchmark}\u0000${s.machineKey}\u0000${metric}`;

/** scanHistory scans every series and applies Benjamini-Hochberg across all of their confirmations' p-values. */
export function scanHistory(allSeries: readonly Series[], options: ScanOptions = {}): ScanResult {
  const scan = new HistoryScan(options);
  scan.add(allSeries);
  return scan.result();
}

/** UnmatchedAck is the warning about an ack that matches no night of its series, kept until the caller says whether it counts. */
interface UnmatchedAck {
  key: string;
  ack: Ack;
}

/**
 * HistoryScan is scanHistory a batch of series at a time, for histories
 * too big to hold at once: `add` scans a batch and keeps only what it found
 * (candidates with their p-values, watches, machine changes, warnings),
 * `result` applies Benjamini-Hochberg once across every batch's
 * confirmations. Batches added in the order of one scanHistory call give
 * the same result as that call, whatever their size.
 */
export class HistoryScan {
  private readonly o: Resolved;
  private readonly candidates: Candidate[] = [];
  private readonly watches: ScanFinding[] = [];
  private readonly machineChanges: MachineChange[] = [];
  private readonly families: TimeFamily[] = [];
  private readonly warnings: Array<string | UnmatchedAck> = [];
  /** series counts the series added so far. */
  series = 0;

  constructor(options: ScanOptions = {}) {
    this.o = resolve(options);
  }

  /** add scans a batch of series; nothing of the batch is kept but what it found. */
  add(batch: readonly Series[]): void {
    // A benchmark's real_time and cpu_time are one measurement: both must be in the same batch (timeFamilies).
    const families = timeFamilies(batch, this.o.windowLen);
    const secondary = new Set(families.map((f) => familyKey(f, f.secondary)));
    for (const f of families) this.families.push(f);
    for (const series of batch) {
      if (secondary.has(familyKey(series, series.metric))) continue;
      const found = candidatesOf(series, this.o, this.warnings);
      for (const c of found.candidates) this.candidates.push(c);
      for (const w of found.watches) this.watches.push(w);
      for (const m of found.machineChanges) this.machineChanges.push(m);
      this.series++;
    }
  }

  /**
   * result adjusts every confirmation's p-value across all batches and
   * decides. `ackCounts` says whether an ack that matched no night of its
   * series is worth a warning (default: every one is); the CLI leaves out
   * those older than every night it read (scan-command.ts).
   */
  result(options: { ackCounts?: (ack: Ack) => boolean } = {}): ScanResult {
    const warnings = this.warnings.flatMap((w) => {
      if (typeof w === 'string') return [w];
      if (options.ackCounts && !options.ackCounts(w.ack)) return [];
      return [`${w.key}: ack at ${w.ack.sha} matches no night${w.ack.time === undefined ? ' (give its time)' : ''}; ignored`];
    });
    return { ...decide(this.candidates, this.watches, this.machineChanges, warnings, this.o), timeFamilies: this.families };
  }
}

function decide(candidates: readonly Candidate[], watches: readonly ScanFinding[], machineChanges: MachineChange[], warnings: string[], o: Resolved): ScanResult {
  const awaiting = candidates.filter((c) => c.ab === null).map((c) => c.finding);
  const tested = candidates.filter((c) => c.ab !== null);
  const qs = benjaminiHochberg(tested.map((c) => c.finding.p));
  const findings: ScanFinding[] = [];
  const refuted: ScanFinding[] = [];
  tested.forEach((c, i) => {
    c.finding.q = qs[i];
    const ab = c.ab as AbConfirmation;
    const comparison: Comparison = {
      benchmark: c.finding.benchmark, metric: c.finding.metric, unit: c.finding.unit, better: c.finding.better,
      base: null, head: null, ratio: ab.ratio, ratioCi: c.abCi.ratioCi, equivalenceCi: c.abCi.equivalenceCi ?? undefined, p: ab.p, q: qs[i], verdict: 'inconclusive', warnings: [],
    } as Comparison;
    const verdict = decideVerdict(comparison, o.threshold, o.alpha);
    const historyWorse = c.finding.direction === 'regression';
    const abWorse = c.finding.better === 'lower' ? ab.ratio > 1 : ab.ratio < 1;
    const agrees = abWorse === historyWorse;
    if ((verdict === 'regressed' || verdict === 'improved') && agrees) findings.push(c.finding);
    // Inconclusive but leaning the history's way: one more interleaved session of the pair may settle it.
    else if (verdict === 'inconclusive' && agrees && ab.sessions + (c.sessionsBefore ?? 0) < o.maxConfirmSessions) awaiting.push(c.finding);
    else refuted.push(c.finding);
  });
  findings.push(...watches);
  const rank = (f: ScanFinding) => (f.kind === 'watch' ? 2 : f.direction === 'regression' ? 0 : 1);
  findings.sort((a, b) => rank(a) - rank(b) || (a.q ?? a.p) - (b.q ?? b.p) || a.series.localeCompare(b.series));
  return { findings, awaiting, refuted, machineChanges, timeFamilies: [], tested: tested.length, warnings };
}

function resolve(options: ScanOptions): Resolved {
  const o = { ...DEFAULTS } as Resolved;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  o.minMagnitude = options.minMagnitude ?? o.threshold;
  o.acks = options.acks ?? [];
  return o;
}

interface UsableNight extends Night {
  median: number;
  log: number;
}

function candidatesOf(series: Series, o: Resolved, warnings: Array<string | UnmatchedAck>): { candidates: Candidate[]; watches: ScanFinding[]; machineChanges: MachineChange[] } {
  const key = series.key ?? seriesKey(series);
  const nights: UsableNight[] = [];
  let dropped = 0;
  for (const night of series.nights) {
    const m = night.median ?? (night.values.length > 0 ? median(night.values) : NaN);
    if (m > 0 && Number.isFinite(m) && night.values.length > 0) nights.push({ ...night, median: m, log: Math.log(m) });
    else dropped++;
  }
  if (dropped > 0) warnings.push(`${key}: ${dropped} night(s) without a positive median left out`);

  const start = baselineStart(key, nights, o.acks, warnings);
  const end = nights.length;
  const machineChanges = machineChangesOf(series, key, nights);
  // A machine change is a segment boundary, never a candidate itself.
  const segmentStarts = [start, ...machineChanges.map((c) => nights.findIndex((n) => n === c.nightRef)).filter((i) => i > start)];
  const found: number[] = [];
  for (let s = 0; s < segmentStarts.length; s++) {
    const from = segmentStarts[s];
    const to = s + 1 < segmentStarts.length ? segmentStarts[s + 1] : end;
    const logs = nights.slice(from, to).map((n) => n.log);
    if (logs.length >= 3) {
      found.push(...eDivisive(logs, { windowLen: o.windowLen, maxPValue: o.maxPValue, minMagnitude: o.minMagnitude, magnitude: logMagnitude }).changePoints.map((c) => c.index + from));
    }
  }
  const boundaries = [...new Set([...segmentStarts, ...found, end])].sort((a, b) => a - b);
  const isFound = new Set(found);
  const changes = machineChanges.map(({ nightRef: _n, ...c }) => c);

  const candidates: Candidate[] = [];
  const seen = new Set<number>();
  for (let i = 1; i < boundaries.length - 1; i++) {
    const at = boundaries[i];
    if (!isFound.has(at)) continue;
    // One night after the change is not enough history; the fast alert takes it from the second night.
    if (end - at < 2) continue;
    if (end - at > o.maxAgeNights) continue;
    const c = candidate(series, key, nights, boundaries[i - 1], at, boundaries[i + 1], 'change-point', o, changes);
    if (c && !seen.has(nightIndex(nights, c.finding.firstBad))) {
      seen.add(nightIndex(nights, c.finding.firstBad));
      candidates.push(c);
    }
  }

  // The fast alert: the newest two, then three, nights against the segment before them.
  const segmentFrom = (k: number) => Math.max(...boundaries.filter((b) => b <= k - o.minBaselineNights), -1);
  for (const k of [end - 2, end - 3]) {
    if (k < 0 || found.some((f) => Math.abs(f - k) <= o.locateNights) || seen.has(k)) continue;
    const from = segmentFrom(k);
    // A boundary between the baseline and the newest nights (a machine change, an ack) means there is no baseline.
    if (from < 0 || boundaries.some((b) => b > from && b <= k && b !== k) || boundaries.some((b) => b > k && b < end)) continue;
    const c = candidate(series, key, nights, from, k, end, 'alert', o, changes);
    if (c) {
      seen.add(nightIndex(nights, c.finding.firstBad));
      candidates.push(c);
      break;
    }
  }

  // The interleaved alert: one of the newest nights' own A/B, decided by run's looks at abAlpha, before the history can see the change.
  if (o.abAlpha !== null) {
    for (const k of [end - 1, end - 2, end - 3]) {
      if (k < 1 || k <= start || candidates.some((c) => Math.abs(nightIndex(nights, c.finding.firstBad) - k) <= o.locateNights)) continue;
      // Not `seen`: the one-night watch stays shown while an interleaved alert awaits its confirmation.
      const c = abAlert(series, key, nights, boundaries, k, o, changes);
      if (c) candidates.push(c);
    }
  }

  const watches: ScanFinding[] = [];
  const watch = oneNightWatch(series, key, nights, boundaries, o, changes);
  if (watch && !seen.has(end - 1)) watches.push(watch);
  return { candidates, watches, machineChanges: changes };
}

function nightIndex(nights: readonly UsableNight[], ref: NightRef): number {
  return nights.findIndex((n) => n.sha === ref.sha && n.time === ref.time);
}

/**
 * candidate tests a change at night `at` (between the boundaries `prev` and
 * `next`) on the nights' log medians, then looks for its interleaved
 * confirmation among the A/Bs of the nights around it.
 */
function candidate(
  series: Series, key: string, nights: readonly UsableNight[], prev: number, at: number, next: number,
  kind: 'change-point' | 'alert', o: Resolved, changes: readonly MachineChange[],
): Candidate | null {
  const history = historyTest(nights, prev, at, next, o, kind);
  if (history === null) return null;
  const { test, before, after, baseline } = history;
  if (!(test.p <= o.historyAlpha) || Math.expm1(Math.abs(test.estimate)) < o.threshold) return null;
  const sign = Math.sign(test.estimate);
  // Every night after the change on the same side of the baseline: a change, not one outlier dragging a mean.
  const center = median(baseline.map((n) => n.log));
  if (after.some((n) => Math.sign(n.log - center) !== sign)) return null;

  const located = locate(nights, prev, at, next, sign, o, series.better);
  const firstBad = located?.at ?? at;
  const worse = series.better === 'lower' ? sign > 0 : sign < 0;
  const ratio = Math.exp(test.estimate);
  const trendFrom = Math.max(0, Math.min(nights.length - o.trendNights, firstBad - 5));
  const trendNights = nights.slice(trendFrom);
  const finding: ScanFinding = {
    series: key, benchmark: series.benchmark, metric: series.metric, unit: series.unit, better: series.better,
    machineKey: series.machineKey, branch: series.branch, kind,
    direction: worse ? 'regression' : 'improvement',
    ratio, ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, q: null,
    lastGood: ref(nights[firstBad - 1]), firstBad: ref(nights[firstBad]), nightsSince: nights.length - firstBad,
    before: { nights: before.length, n: before.reduce((a, n) => a + n.values.length, 0), median: median(before.map((n) => n.median)) },
    after: { nights: after.length, n: after.reduce((a, n) => a + n.values.length, 0), median: median(after.map((n) => n.median)) },
    trend: trendNights.map((n) => ({ ...ref(n), median: n.median })),
    history: { ratio, ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, nightSd: test.se / Math.sqrt(1 / before.length + 1 / after.length) },
    confirmation: null,
    machineChanges: changes.filter((c) => trendNights.some((n) => n.sha === c.night.sha && n.time === c.night.time)),
  };
  if (located === null) return { finding, ab: null, abCi: { ratioCi: null, equivalenceCi: null } };
  finding.confirmation = located.ab;
  finding.ratio = located.ab.ratio;
  finding.ratioCi = located.ci.ratioCi;
  finding.p = located.ab.p;
  return { finding, ab: located.ab, abCi: located.ci };
}

/**
 * abAlert raises a candidate from night `k`'s own interleaved A/B (the
 * previous nightly's commit beside tonight's, one session): decided
 * regressed or improved by run's looks with its look-adjusted p at most
 * `abAlpha`. That session chose the candidate, so it cannot confirm it:
 * only the sessions of the same pair measured after it (`NightAb.extra`)
 * do, combined by random effects when there are several, by the PR rule
 * as any finding; with none it is awaiting. The history (the nights from
 * `k` on against the segment before) is reported as context.
 */
function abAlert(series: Series, key: string, nights: readonly UsableNight[], boundaries: readonly number[], k: number, o: Resolved, changes: readonly MachineChange[]): Candidate | null {
  const night = nights[k];
  const ab = night.ab;
  if (!ab || ab.baseSha !== nights[k - 1].sha) return null;
  const found = sequentialAb(ab.base, ab.head ?? night.values, { threshold: o.threshold, alpha: o.alpha, minRuns: o.minRuns, maxRuns: o.maxRuns, better: series.better });
  const c = found?.comparison;
  if (!found || !c || c.ratio === null || found.pAdjusted === null || found.pAdjusted > (o.abAlpha as number)) return null;
  if (c.verdict !== 'regressed' && c.verdict !== 'improved') return null;
  const prev = Math.max(...boundaries.filter((b) => b < k));
  const history = historyTest(nights, prev, k, nights.length, o, 'alert');
  if (history === null) return null;
  const { test, before, after } = history;
  const worse = c.verdict === 'regressed';
  const trendFrom = Math.max(0, Math.min(nights.length - o.trendNights, k - 5));
  const trendNights = nights.slice(trendFrom);
  const finding: ScanFinding = {
    series: key, benchmark: series.benchmark, metric: series.metric, unit: series.unit, better: series.better,
    machineKey: series.machineKey, branch: series.branch, kind: 'ab-alert',
    direction: worse ? 'regression' : 'improvement',
    ratio: c.ratio, ratioCi: c.ratioCi, p: found.pAdjusted, q: null,
    lastGood: ref(nights[k - 1]), firstBad: ref(night), nightsSince: nights.length - k,
    before: { nights: before.length, n: before.reduce((a, n) => a + n.values.length, 0), median: median(before.map((n) => n.median)) },
    after: { nights: after.length, n: after.reduce((a, n) => a + n.values.length, 0), median: median(after.map((n) => n.median)) },
    trend: trendNights.map((n) => ({ ...ref(n), median: n.median })),
    history: { ratio: Math.exp(test.estimate), ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, nightSd: test.se / Math.sqrt(1 / before.length + 1 / after.length) },
    confirmation: null,
    machineChanges: changes.filter((m) => trendNights.some((n) => n.sha === m.night.sha && n.time === m.night.time)),
  };
  const fresh = ab.extra ?? [];
  const change = fresh.length > 0 ? abChange(fresh, o.alpha, o, series.better) : null;
  if (change === null) return { finding, ab: null, abCi: { ratioCi: null, equivalenceCi: null }, sessionsBefore: 1 };
  const confirmation: AbConfirmation = {
    baseSha: ab.baseSha, headSha: night.sha, time: night.time, ratio: change.ratio, ratioCi: change.ratioCi, p: change.p,
    nBase: fresh.reduce((a, x) => a + x.base.length, 0), nHead: fresh.reduce((a, x) => a + x.head.length, 0), sessions: fresh.length,
  };
  finding.confirmation = confirmation;
  finding.ratio = change.ratio;
  finding.ratioCi = change.ratioCi;
  finding.p = change.p;
  return { finding, ab: confirmation, abCi: { ratioCi: change.ratioCi, equivalenceCi: change.equivalenceCi }, sessionsBefore: 1 };
}

/** historyTest compares the nights after `at` with those before it on log medians, the spread taken from the segment before. */
function historyTest(nights: readonly UsableNight[], prev: number, at: number, next: number, o: Resolved, kind: 'change-point' | 'alert') {
  const baseline = nights.slice(Math.max(prev, at - o.windowLen), at);
  const before = kind === 'alert' ? baseline : nights.slice(Math.max(prev, at - o.confirmNights), at);
  const after = nights.slice(at, Math.min(next, at + o.confirmNights));
  if (before.length < 2 || after.length < 1) return null;
  // The spread comes from the history: the segment's nights before the change (at least three of them), else both sides pooled.
  const test = sessionShift(before.map((n) => n.log), after.map((n) => n.log), { history: baseline.length >= 3 ? baseline.map((n) => n.log) : undefined, alpha: o.alpha, minSd: 1e-4 });
  return test === null ? null : { test, before, after, baseline };
}

/**
 * abChange is the A/B's change over its sessions: one session by the PR
 * rule's rank test (Hodges-Lehmann ratio, Mann-Whitney CI and p) at `run`'s
 * looks over its rounds (compare/sequential-ab.ts: the look that settled it,
 * p adjusted for that look's level); several,
 * each session's Hodges-Lehmann contrast combined by random effects (the
 * session is the unit: a second session adds one session of evidence, not
 * ten samples). `equivalenceCi` is the 1 - 2 alpha interval.
 */
function abChange(sessions: ReadonlyArray<{ base: readonly number[]; head: readonly number[] }>, alpha: number, o: Resolved, better: Direction): { ratio: number; ratioCi: [number, number] | null; equivalenceCi: [number, number] | null; p: number } | null {
  if (sessions.length === 1) {
    // One session is judged as the run that measured it stopped: run's looks over its rounds, p adjusted for the look.
    const s = sequentialAb(sessions[0].base, sessions[0].head, { threshold: o.threshold, alpha, minRuns: o.minRuns, maxRuns: o.maxRuns, better });
    const c = s?.comparison;
    return !s || !c || c.ratio === null || s.pAdjusted === null ? null : { ratio: c.ratio, ratioCi: c.ratioCi, equivalenceCi: c.equivalenceCi ?? null, p: s.pAdjusted };
  }
  const contrasts = sessions.map((x) => contrast(x.base, x.head)).filter((c): c is NonNullable<typeof c> => c !== null);
  const r = randomEffects(contrasts.map((c) => c.estimate), contrasts.map((c) => c.variance), { alpha });
  const r2 = randomEffects(contrasts.map((c) => c.estimate), contrasts.map((c) => c.variance), { alpha: 2 * alpha });
  if (r === null || r2 === null) return null;
  return { ratio: Math.exp(r.mean), ratioCi: [Math.exp(r.lower), Math.exp(r.upper)], equivalenceCi: [Math.exp(r2.lower), Math.exp(r2.upper)], p: r.p };
}

/**
 * locate finds the interleaved A/B that confirms a change the history put
 * at night `at`: that night's A/B against the night before, as it is (the
 * history chose the night, not the A/B). When it has none or does not
 * confirm, the nights within `locateNights` (inside the segment) are
 * tried, and the one whose A/B moved most in the direction `sign` is
 * taken with its p multiplied by the A/Bs looked at (the night was then
 * chosen for its difference). Null when no night there has an A/B.
 */
function locate(nights: readonly UsableNight[], prev: number, at: number, next: number, sign: number, o: Resolved, better: Direction) {
  const abAt = (c: number, alpha: number) => {
    const night = nights[c];
    const ab = night.ab;
    if (!ab || c < 1 || ab.baseSha !== nights[c - 1].sha) return null;
    const head = ab.head ?? night.values;
    if (ab.base.length < 2 || head.length < 2) return null;
    const sessions = [{ base: ab.base, head }, ...(ab.extra ?? [])];
    const change = abChange(sessions, alpha, o, better);
    if (change === null) return null;
    return {
      at: c, moved: Math.sign(Math.log(change.ratio)) === sign, ci: { ratioCi: change.ratioCi, equivalenceCi: change.equivalenceCi },
      ab: { baseSha: ab.baseSha, headSha: night.sha, time: night.time, ratio: change.ratio, ratioCi: change.ratioCi, p: change.p, nBase: sessions.reduce((a, x) => a + x.base.length, 0), nHead: sessions.reduce((a, x) => a + x.head.length, 0), sessions: sessions.length } as AbConfirmation,
    };
  };
  const own = at < nights.length ? abAt(at, o.alpha) : null;
  if (own !== null && own.moved && own.ab.p < o.alpha) return own;
  const around: number[] = [];
  for (let c = Math.max(prev + 1, at - o.locateNights, 1); c <= Math.min(next - 1, at + o.locateNights, nights.length - 1); c++) around.push(c);
  const looks = around.filter((c) => abAt(c, o.alpha) !== null).length;
  let best: ReturnType<typeof abAt> = null;
  for (const c of around) {
    const r = abAt(c, o.alpha / Math.max(1, looks));
    if (r === null || !r.moved) continue;
    if (best === null || r.ab.p < best.ab.p || (r.ab.p === best.ab.p && Math.abs(c - at) < Math.abs(best.at - at))) best = r;
  }
  if (best === null || looks <= 1) return best ?? own;
  best.ab.p = Math.min(1, best.ab.p * looks);
  return own !== null && own.ab.p <= best.ab.p ? own : best;
}

/** machineChangesOf lists the nights whose machine facts differ from the previous night's (both known). */
function machineChangesOf(series: Series, key: string, nights: readonly UsableNight[]): Array<MachineChange & { nightRef: UsableNight }> {
  const out: Array<MachineChange & { nightRef: UsableNight }> = [];
  for (let i = 1; i < nights.length; i++) {
    const a = nights[i - 1].machine;
    const b = nights[i].machine;
    if (a === undefined || b === undefined) continue;
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    const changes = fields.filter((f) => a[f] !== b[f]).map((f) => ({ field: f, before: a[f] ?? null, after: b[f] ?? null }));
    if (changes.length > 0) out.push({ series: key, benchmark: series.benchmark, metric: series.metric, night: ref(nights[i]), previous: ref(nights[i - 1]), changes, nightRef: nights[i] });
  }
  return out;
}

function baselineStart(key: string, nights: readonly UsableNight[], acks: readonly Ack[], warnings: Array<string | UnmatchedAck>): number {
  let start = 0;
  for (const ack of acks) {
    if (ack.series !== key) continue;
    let at = nights.findIndex((n) => n.sha === ack.sha);
    if (at < 0 && ack.time !== undefined) {
      const t = Date.parse(ack.time);
      at = nights.findIndex((n) => Date.parse(n.time) >= t);
    }
    if (at < 0) warnings.push({ key, ack });
    else start = Math.max(start, at);
  }
  return start;
}

function ref(n: UsableNight): NightRef {
  return { sha: n.sha, time: n.time };
}

/**
 * oneNightWatch: the newest night against the current segment (at least
 * `minBaselineNights`, at most `windowLen` nights before it) in robust z of
 * log medians; beyond `zThreshold` and the threshold it is a watch.
 */
function oneNightWatch(series: Series, key: string, nights: readonly UsableNight[], boundaries: readonly number[], o: Resolved, changes: readonly MachineChange[]): ScanFinding | null {
  const end = nights.length;
  const baselineEnd = end - 1;
  let from = -1;
  for (const b of boundaries) if (b <= baselineEnd && baselineEnd - b >= o.minBaselineNights) from = b;
  // E-divisive may already mark the newest night itself; only a boundary inside the baseline leaves it too short.
  if (from < 0 || boundaries.some((b) => b > from && b < baselineEnd)) return null;
  from = Math.max(from, baselineEnd - o.windowLen);
  const base = nights.slice(from, baselineEnd);
  const logs = base.map((n) => n.log);
  const center = median(logs);
  const sigma = MAD_TO_SIGMA * median(logs.map((v) => Math.abs(v - center)));
  const newest = nights[end - 1];
  const z = (newest.log - center) / Math.max(sigma, 1e-12);
  if (Math.abs(z) < o.zThreshold || Math.expm1(Math.abs(newest.log - center)) < o.threshold) return null;
  const ratio = Math.exp(newest.log - center);
  const worse = series.better === 'lower' ? ratio > 1 : ratio < 1;
  const trend = nights.slice(Math.max(0, end - o.trendNights));
  return {
    series: key, benchmark: series.benchmark, metric: series.metric, unit: series.unit, better: series.better,
    machineKey: series.machineKey, branch: series.branch, kind: 'watch', direction: worse ? 'regression' : 'improvement',
    ratio, ratioCi: null, p: Math.min(1, 2 * normalSf(Math.abs(z))), q: null,
    lastGood: ref(nights[end - 2]), firstBad: ref(newest), nightsSince: 1,
    before: { nights: base.length, n: base.reduce((a, n) => a + n.values.length, 0), median: Math.exp(center) },
    after: { nights: 1, n: newest.values.length, median: newest.median },
    zScore: z, trend: trend.map((n) => ({ ...ref(n), median: n.median })), confirmation: null,
    machineChanges: changes.filter((c) => trend.some((n) => n.sha === c.night.sha && n.time === c.night.time)),
  };
}
