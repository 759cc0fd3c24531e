/**
 * scan-history: the nightly scan. Every series (benchmark x metric x machine
 * fingerprint x branch) is searched for change points, each confirmed on
 * raw samples by the same rule as a PR check, and the survivors of all
 * series go through one Benjamini-Hochberg step so that scanning 300 series
 * every night does not mean a false alarm every night.
 *
 * Per series, oldest night first:
 *
 * 1. The latest ack of the series starts the baseline: nights before it are
 *    not looked at, so nothing at or before an acknowledged change alerts.
 * 2. Windowed E-divisive means (e-divisive.ts, Otava's algorithm and
 *    defaults: t test, p <= 0.001, window 30 nights) on log(median per
 *    night), with a minimum magnitude of the threshold (2%).
 * 3. Each change point needs two nights after it (one night is the fast
 *    alert's `watch`). It is moved to the night within `confirmNights`
 *    where the raw samples before and after differ most (medians locate a
 *    change only roughly, and the bisect range must contain it), then
 *    confirmed by the PR rule (compareRuns' decideVerdict) on the raw
 *    samples of up to 5 nights before vs up to 5 nights after it, pooled,
 *    never crossing a neighbouring change point: Hodges-Lehmann ratio with
 *    its Mann-Whitney CI, q < alpha after BH across all series, and the
 *    ratio beyond the threshold. p and the CI are Bonferroni-corrected for
 *    the nights the move tried.
 * 4. The fast alert: the newest two nights against the median and MAD of
 *    log(median) over the current segment. One night beyond `zThreshold`
 *    robust z (and beyond the threshold in size) is a `watch`; two
 *    consecutive nights in the same direction are an `alert`, confirmed on
 *    raw samples like a change point. E-divisive cannot see a change in the
 *    last night or two; this can, a day later.
 *
 * Change points older than `maxAgeNights` are not reported (an earlier scan
 * reported them). Nights whose median is not positive cannot be logged and
 * are left out with a warning.
 */

import type { Comparison } from '../model/comparison.ts';
import type { Direction } from '../model/measurement.ts';
import { decideVerdict } from '../compare/compare-runs.ts';
import { estimateChange } from '../compare/estimate-change.ts';
import { benjaminiHochberg } from '../stats/fdr.ts';
import { mannWhitneyU } from '../stats/mann-whitney.ts';
import { median } from '../stats/order-statistics.ts';
import { MAD_TO_SIGMA } from '../stats/robust-cv.ts';
import { eDivisive, logMagnitude } from './e-divisive.ts';

/** Night is one nightly run's samples of one series: `values` in the series' unit, `median` precomputed (else computed). */
export interface Night {
  sha: string;
  time: string;
  values: readonly number[];
  median?: number;
}

/** Series is one benchmark x metric x fingerprint x branch history, nights oldest first. `key` defaults to {@link seriesKey}. */
export interface Series {
  key?: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  fingerprintKey: string;
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
 * - `confirmNights` (5): nights pooled on each side of a change point for the PR rule;
 * - `zThreshold` (4): robust z for the fast alert; `minBaselineNights` (10) the fewest nights it needs as baseline;
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

/**
 * ScanFinding is one suspected change of one series.
 * - `kind`: `change-point` (E-divisive, confirmed), `alert` (fast alert on
 *   two nights, confirmed) or `watch` (one night beyond the robust z; not
 *   confirmed, `q` null, nothing to file yet).
 * - `ratio` after/before in the metric's unit with its CI; `direction`
 *   follows the metric's `better`.
 * - `lastGood`..`firstBad` is the commit range to bisect; `nightsSince`
 *   counts the nights from the first bad one to the newest, both included.
 * - `before`/`after`: the pooled nights of the confirmation.
 */
export interface ScanFinding {
  series: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  fingerprintKey: string;
  branch: string;
  kind: 'change-point' | 'alert' | 'watch';
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
}

/** ScanResult: findings (regressions first, then by q), how many candidates were tested, and warnings as values. */
export interface ScanResult {
  findings: ScanFinding[];
  tested: number;
  warnings: string[];
}

const DEFAULTS = {
  threshold: 0.02,
  alpha: 0.05,
  windowLen: 30,
  maxPValue: 0.001,
  confirmNights: 5,
  zThreshold: 4,
  minBaselineNights: 10,
  maxAgeNights: 30,
  trendNights: 30,
};

type Resolved = typeof DEFAULTS & { minMagnitude: number; acks: readonly Ack[] };

/** seriesKey is the default id of a series, as acks name it: `branch:benchmark:metric:fingerprintKey`. */
export function seriesKey(s: Pick<Series, 'branch' | 'benchmark' | 'metric' | 'fingerprintKey'>): string {
  return `${s.branch}:${s.benchmark}:${s.metric}:${s.fingerprintKey}`;
}

/** scanSeries scans one series; q-values are adjusted across its own candidates only. */
export function scanSeries(series: Series, options: ScanOptions = {}): ScanResult {
  return scanHistory([series], options);
}

/** scanHistory scans every series and applies Benjamini-Hochberg across all of their confirmation p-values. */
export function scanHistory(allSeries: readonly Series[], options: ScanOptions = {}): ScanResult {
  const o = resolve(options);
  const warnings: string[] = [];
  const candidates: Candidate[] = [];
  const watches: ScanFinding[] = [];
  for (const series of allSeries) {
    const found = candidatesOf(series, o, warnings);
    candidates.push(...found.candidates);
    watches.push(...found.watches);
  }
  const qs = benjaminiHochberg(candidates.map((c) => c.finding.p));
  const findings: ScanFinding[] = [];
  candidates.forEach((c, i) => {
    c.finding.q = qs[i];
    const comparison: Comparison = {
      benchmark: c.finding.benchmark, metric: c.finding.metric, unit: c.finding.unit, better: c.finding.better,
      base: null, head: null, ratio: c.finding.ratio, ratioCi: c.finding.ratioCi, p: c.finding.p, q: qs[i], verdict: 'inconclusive', warnings: [],
    };
    const verdict = decideVerdict(comparison, o.threshold, o.alpha);
    if (verdict === 'regressed' || verdict === 'improved') findings.push(c.finding);
  });
  findings.push(...watches);
  const rank = (f: ScanFinding) => (f.kind === 'watch' ? 2 : f.direction === 'regression' ? 0 : 1);
  findings.sort((a, b) => rank(a) - rank(b) || (a.q ?? a.p) - (b.q ?? b.p) || a.series.localeCompare(b.series));
  return { findings, tested: candidates.length, warnings };
}

interface Candidate {
  finding: ScanFinding;
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

function candidatesOf(series: Series, o: Resolved, warnings: string[]): { candidates: Candidate[]; watches: ScanFinding[] } {
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
  const logs = nights.slice(start).map((n) => n.log);
  const found = logs.length >= 3
    ? eDivisive(logs, { windowLen: o.windowLen, maxPValue: o.maxPValue, minMagnitude: o.minMagnitude, magnitude: logMagnitude }).changePoints.map((c) => c.index + start)
    : [];

  const candidates: Candidate[] = [];
  const boundaries = [start, ...found, end];
  for (let i = 1; i < boundaries.length - 1; i++) {
    // One night after the change is the fast alert's business: it needs a second night.
    if (end - boundaries[i] < 2) continue;
    const { at, looks } = refine(nights, boundaries[i - 1], boundaries[i], Math.min(boundaries[i + 1], end - 1), o.confirmNights);
    if (end - at > o.maxAgeNights) continue;
    const before = nights.slice(Math.max(boundaries[i - 1], at - o.confirmNights), at);
    const after = nights.slice(at, Math.min(boundaries[i + 1], at + o.confirmNights));
    const finding = confirm(series, key, nights, before, after, at, 'change-point', o, looks);
    if (finding) candidates.push({ finding });
  }

  const watches: ScanFinding[] = [];
  const fast = fastAlert(nights, [start, ...found], o);
  if (fast) {
    const at = fast.kind === 'alert' ? end - 2 : end - 1;
    // A reported change point at the same nights already covers it (one at the newest night is not reported).
    if (!found.includes(end - 2)) {
      const before = nights.slice(Math.max(fast.baselineStart, fast.baselineEnd - o.confirmNights), fast.baselineEnd);
      const finding = confirm(series, key, nights, before, nights.slice(at), at, fast.kind, o);
      if (finding) {
        finding.zScore = fast.z;
        if (fast.kind === 'alert') candidates.push({ finding });
        else watches.push(finding);
      }
    }
  }
  return { candidates, watches };
}

/**
 * refine moves a change point found on nightly medians to the night within
 * `radius` (and strictly between its neighbours) where the raw samples of
 * up to `radius` nights on each side differ most (largest |z| of the
 * Mann-Whitney U; ties keep the night closest to E-divisive's), leaving at
 * least two nights after it (`next` is capped by the caller). `looks`
 * counts the nights tried; the confirmation's p-value is multiplied by it. Medians lose most of the
 * samples' information, and a range off by a night sends the bisect to the
 * wrong commits.
 */
function refine(nights: readonly UsableNight[], prev: number, at: number, next: number, radius: number): { at: number; looks: number } {
  let best = at;
  let looks = 0;
  let bestP = Infinity;
  const from = Math.max(prev + 1, at - radius);
  const to = Math.min(next - 1, at + radius);
  for (let c = from; c <= to; c++) {
    const base = nights.slice(Math.max(prev, c - radius), c).flatMap((n) => n.values);
    const head = nights.slice(c, Math.min(next, c + radius)).flatMap((n) => n.values);
    if (base.length < 2 || head.length < 2) continue;
    looks++;
    // |z| of U rather than p: p also shrinks with n, which would favour mixed windows near the end.
    const n1 = base.length;
    const n2 = head.length;
    const z = -Math.abs(mannWhitneyU(base, head, { method: 'asymptotic' }).u - (n1 * n2) / 2) / Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
    if (z < bestP || (z === bestP && Math.abs(c - at) < Math.abs(best - at))) {
      best = c;
      bestP = z;
    }
  }
  return { at: best, looks: Math.max(1, looks) };
}

function baselineStart(key: string, nights: readonly UsableNight[], acks: readonly Ack[], warnings: string[]): number {
  let start = 0;
  for (const ack of acks) {
    if (ack.series !== key) continue;
    let at = nights.findIndex((n) => n.sha === ack.sha);
    if (at < 0 && ack.time !== undefined) {
      const t = Date.parse(ack.time);
      at = nights.findIndex((n) => Date.parse(n.time) >= t);
    }
    if (at < 0) warnings.push(`${key}: ack at ${ack.sha} matches no night${ack.time === undefined ? ' (give its time)' : ''}; ignored`);
    else start = Math.max(start, at);
  }
  return start;
}

function confirm(
  series: Series, key: string, nights: readonly UsableNight[], before: readonly UsableNight[], after: readonly UsableNight[],
  at: number, kind: ScanFinding['kind'], o: Resolved, looks = 1,
): ScanFinding | null {
  if (before.length === 0 || after.length === 0) return null;
  const base = before.flatMap((n) => n.values);
  const head = after.flatMap((n) => n.values);
  // Bonferroni over the nights refine() looked at: the night was chosen for its difference.
  const change = estimateChange(base, head, o.alpha / looks);
  const ratio = change.ratio ?? median(head) / median(base);
  if (change.p === null || !Number.isFinite(ratio)) return null;
  change.p = Math.min(1, change.p * looks);
  const worse = series.better === 'lower' ? ratio > 1 : ratio < 1;
  const trendFrom = Math.max(0, Math.min(nights.length - o.trendNights, at - 5));
  return {
    series: key, benchmark: series.benchmark, metric: series.metric, unit: series.unit, better: series.better,
    fingerprintKey: series.fingerprintKey, branch: series.branch, kind,
    direction: worse ? 'regression' : 'improvement',
    ratio, ratioCi: change.ratioCi, p: change.p, q: null,
    lastGood: ref(nights[at - 1]), firstBad: ref(nights[at]), nightsSince: nights.length - at,
    before: { nights: before.length, n: base.length, median: median(base) },
    after: { nights: after.length, n: head.length, median: median(head) },
    trend: nights.slice(trendFrom).map((n) => ({ ...ref(n), median: n.median })),
  };
}

function ref(n: UsableNight): NightRef {
  return { sha: n.sha, time: n.time };
}

interface FastAlert {
  kind: 'alert' | 'watch';
  z: number;
  baselineStart: number;
  baselineEnd: number;
}

/**
 * fastAlert tests the newest two nights against the current segment (the
 * nights since the last boundary that leaves at least `minBaselineNights`
 * before them, at most `windowLen` of them), in robust z of log medians.
 */
function fastAlert(nights: readonly UsableNight[], boundaries: readonly number[], o: Resolved): FastAlert | null {
  const end = nights.length;
  const baselineEnd = end - 2;
  let from = -1;
  for (const b of boundaries) if (baselineEnd - b >= o.minBaselineNights) from = b;
  if (from < 0) return null;
  from = Math.max(from, baselineEnd - o.windowLen);
  const logs = nights.slice(from, baselineEnd).map((n) => n.log);
  const center = median(logs);
  const sigma = MAD_TO_SIGMA * median(logs.map((v) => Math.abs(v - center)));
  const zOf = (n: UsableNight) => (n.log - center) / Math.max(sigma, 1e-12);
  const beyond = (n: UsableNight) => Math.abs(zOf(n)) >= o.zThreshold && Math.expm1(Math.abs(n.log - center)) >= o.threshold;
  const newest = nights[end - 1];
  const previous = nights[end - 2];
  if (!beyond(newest)) return null;
  const sign = Math.sign(zOf(newest));
  const base = { baselineStart: from, baselineEnd };
  if (beyond(previous) && Math.sign(zOf(previous)) === sign) return { kind: 'alert', z: Math.min(Math.abs(zOf(previous)), Math.abs(zOf(newest))) * sign, ...base };
  return { kind: 'watch', z: zOf(newest), ...base };
}
