/**
 * e-divisive: windowed E-divisive means change point detection as Apache
 * Otava (formerly DataStax Hunter) implements it (`otava.analysis.
 * compute_change_points`, Fleming et al., "Hunter: Using Change Point
 * Detection to Hunt for Performance Regressions", ICPE 2023), which builds on
 * Matteson & James, "A Nonparametric Approach for Multiple Change Point
 * Analysis of Multivariate Data" (2014).
 *
 * Split step: windows of `windowLen` points, advancing by half a window (or
 * to the last change point found), are each cut recursively at the split
 * that maximizes the energy statistic Q-hat (pairwise absolute distances,
 * power 1), as long as Student's t test between the two pieces the cut
 * separates gives p <= 10 * maxPValue (the "weak" first-pass level). Merge
 * step: the weak change points of all windows are re-tested against their
 * neighbouring change points, and the weakest (largest p above maxPValue,
 * else smallest magnitude at most minMagnitude) is dropped until all remain.
 *
 * Significance is the t test, not Matteson & James' permutation test: it is
 * deterministic (no seed to carry between runs) and is what Otava uses by
 * default. Agreement with Otava 0.8.0 is checked on generated vectors
 * (scripts/edivisive-reference.py, test/scan/vectors/edivisive.json),
 * including Otava's merge step recomputing the two change points to the
 * right of the one it removes.
 */

import { tTestFromStats } from './student-t.ts';

/** SegmentStats compares the pieces left and right of a change point: means, population standard deviations, t test p. */
export interface SegmentStats {
  meanBefore: number;
  meanAfter: number;
  stdBefore: number;
  stdAfter: number;
  nBefore: number;
  nAfter: number;
  p: number;
}

/** ChangePoint: `index` is the first point of the new segment; `qhat` the energy statistic that chose it. */
export interface ChangePoint extends SegmentStats {
  index: number;
  qhat: number;
  magnitude: number;
}

/**
 * EDivisiveOptions: `windowLen` (default 30 points), `maxPValue` (default
 * 0.001, Otava's), `minMagnitude` (default 0) and `magnitude`, the size of a
 * change from its segment statistics: Otava's relative change of means by
 * default; the scan passes a log-scale version.
 */
export interface EDivisiveOptions {
  windowLen?: number;
  maxPValue?: number;
  minMagnitude?: number;
  magnitude?: (stats: SegmentStats) => number;
}

/** EDivisiveResult: the final change points and the weak ones of the split step, both by index. */
export interface EDivisiveResult {
  changePoints: ChangePoint[];
  weakChangePoints: ChangePoint[];
}

/** otavaMagnitude is Otava's change magnitude: max(|after/before - 1|, |before/after - 1|), a zero mean counting as 0. */
export function otavaMagnitude(s: SegmentStats): number {
  const forward = s.meanBefore === 0 ? 0 : s.meanAfter / s.meanBefore - 1;
  const backward = s.meanAfter === 0 ? 0 : s.meanBefore / s.meanAfter - 1;
  return Math.max(Math.abs(forward), Math.abs(backward));
}

/** logMagnitude is the magnitude of a change of means of log values: max(|e^d - 1|, |e^-d - 1|). */
export function logMagnitude(s: SegmentStats): number {
  return Math.expm1(Math.abs(s.meanAfter - s.meanBefore));
}

/** eDivisive finds change points in a series (NaN-free, oldest first). */
export function eDivisive(series: readonly number[], options: EDivisiveOptions = {}): EDivisiveResult {
  const windowLen = options.windowLen ?? 30;
  const maxPValue = options.maxPValue ?? 0.001;
  const minMagnitude = options.minMagnitude ?? 0;
  const magnitude = options.magnitude ?? otavaMagnitude;
  if (!(windowLen >= 2)) throw new RangeError(`eDivisive: windowLen must be at least 2, got ${windowLen}`);
  for (const v of series) if (!Number.isFinite(v)) throw new RangeError('eDivisive: series values must be finite');
  // Otava's first-pass level: looser, because the merge step re-tests every weak point.
  const firstPass = maxPValue < 0.05 ? maxPValue * 10 : maxPValue < 0.5 ? maxPValue * 2 : maxPValue;
  const weak = split(series, windowLen, firstPass, magnitude);
  const changePoints = merge(weak.map((c) => ({ ...c })), series, maxPValue, minMagnitude, magnitude);
  return { changePoints, weakChangePoints: weak };
}

interface Interval {
  start: number;
  stop: number;
}

function intervalsOf(indices: readonly number[], length: number): Interval[] {
  const out: Interval[] = [];
  let start = 0;
  for (const index of indices) {
    if (index !== start) out.push({ start, stop: index });
    start = index;
  }
  if (start !== length) out.push({ start, stop: length });
  return out;
}

function segmentStats(series: readonly number[], left: Interval, right: Interval): SegmentStats {
  const a = moments(series, left);
  const b = moments(series, right);
  const p = a.n + b.n > 2 ? tTestFromStats(a.mean, a.std, a.n, b.mean, b.std, b.n) : 1;
  return { meanBefore: a.mean, meanAfter: b.mean, stdBefore: a.std, stdAfter: b.std, nBefore: a.n, nAfter: b.n, p };
}

function moments(series: readonly number[], { start, stop }: Interval): { mean: number; std: number; n: number } {
  const n = stop - start;
  let sum = 0;
  for (let i = start; i < stop; i++) sum += series[i];
  const mean = sum / n;
  if (n < 2) return { mean, std: 0, n };
  let ss = 0;
  for (let i = start; i < stop; i++) ss += (series[i] - mean) ** 2;
  return { mean, std: Math.sqrt(ss / n), n };
}

/** statsAt tests a change point that is a boundary of `intervals` (Otava's merge-step case). */
function statsAt(series: readonly number[], index: number, intervals: readonly Interval[]): SegmentStats {
  const i = intervals.findIndex((iv) => iv.stop === index);
  return segmentStats(series, intervals[i], intervals[i + 1]);
}

function split(series: readonly number[], windowLen: number, maxPValue: number, magnitude: (s: SegmentStats) => number): ChangePoint[] {
  const step = Math.floor(windowLen / 2);
  const found = new Map<number, number>(); // index -> qhat of the window that found it first
  let start = 0;
  while (start < series.length) {
    const end = Math.min(start + windowLen, series.length);
    const local = detect(series.slice(start, end), maxPValue).map((c) => ({ index: c.index + start, qhat: c.qhat }));
    const last = local.length > 0 ? local[local.length - 1].index : 0;
    start = Math.max(last, start + step);
    for (const c of local) if (!found.has(c.index)) found.set(c.index, c.qhat);
  }
  const indices = [...found.keys()].sort((a, b) => a - b);
  const intervals = intervalsOf(indices, series.length);
  return indices.map((index) => withStats(index, found.get(index) as number, statsAt(series, index, intervals), magnitude));
}

function withStats(index: number, qhat: number, stats: SegmentStats, magnitude: (s: SegmentStats) => number): ChangePoint {
  return { index, qhat, ...stats, magnitude: magnitude(stats) };
}

/** detect is one window's recursive E-divisive: indices local to `window`, sorted. */
function detect(window: readonly number[], maxPValue: number): Array<{ index: number; qhat: number }> {
  const points: Array<{ index: number; qhat: number }> = [];
  for (;;) {
    const intervals = intervalsOf(points.map((c) => c.index), window.length);
    let best: { index: number; qhat: number; interval: Interval } | undefined;
    for (const interval of intervals) {
      if (interval.stop - interval.start <= 1) continue;
      const candidate = bestSplit(window, interval.start, interval.stop);
      if (best === undefined || candidate.qhat > best.qhat) best = { ...candidate, interval };
    }
    if (best === undefined) break;
    const stats = segmentStats(window, { start: best.interval.start, stop: best.index }, { start: best.index, stop: best.interval.stop });
    if (!(stats.p <= maxPValue)) break;
    points.push({ index: best.index, qhat: best.qhat });
    points.sort((a, b) => a.index - b.index);
  }
  return points;
}

/**
 * bestSplit maximizes Q(tau, kappa) over start < tau < kappa <= stop, where
 * Q = 2/(n+m) sum|X-Y| - 2m/((n+m)(n-1)) sum_{i<k}|X_i-X_k| - 2n/((n+m)(m-1)) sum_{j<k}|Y_j-Y_k|
 * for X = [start, tau), Y = [tau, kappa) (a within-term is 0 when its side has one point).
 * Ties and an all-negative Q are resolved as numpy's argmax over Otava's Q
 * matrix (rows tau, columns kappa, zeros below the diagonal): first maximum in row-major order.
 */
function bestSplit(z: readonly number[], start: number, stop: number): { index: number; qhat: number } {
  let bestQ = -Infinity;
  let bestTau = start + 1;
  let withinX = 0;
  for (let tau = start + 1; tau < stop; tau++) {
    // withinX grows by the distances of the newly added X point z[tau-1] to the earlier ones.
    for (let i = start; i < tau - 1; i++) withinX += Math.abs(z[i] - z[tau - 1]);
    const n = tau - start;
    let cross = 0;
    let withinY = 0;
    for (let kappa = tau + 1; kappa <= stop; kappa++) {
      const y = z[kappa - 1];
      for (let i = start; i < tau; i++) cross += Math.abs(z[i] - y);
      for (let j = tau; j < kappa - 1; j++) withinY += Math.abs(z[j] - y);
      const m = kappa - tau;
      const total = n + m;
      let q = (2 / total) * cross;
      if (n > 1) q -= ((2 * m) / (total * (n - 1))) * withinX;
      if (m > 1) q -= ((2 * n) / (total * (m - 1))) * withinY;
      if (q > bestQ) {
        bestQ = q;
        bestTau = tau;
      }
    }
  }
  // Otava's matrix holds zeros below the diagonal; the first of them is row 1, column 0 (tau = start + 2).
  if (bestQ < 0 && stop - start >= 3) return { index: start + 2, qhat: 0 };
  return { index: bestTau, qhat: bestQ };
}

function merge(points: ChangePoint[], series: readonly number[], maxPValue: number, minMagnitude: number, magnitude: (s: SegmentStats) => number): ChangePoint[] {
  while (points.length > 0) {
    let weakest = firstBy(points, (a, b) => a.p > b.p);
    if (points[weakest].p < maxPValue) {
      weakest = firstBy(points, (a, b) => a.magnitude < b.magnitude);
      if (points[weakest].magnitude > minMagnitude) return points;
    }
    points.splice(weakest, 1);
    const intervals = intervalsOf(points.map((c) => c.index), series.length);
    // Otava recomputes the two points from the removed one's position on, so
    // the left neighbour keeps its old stats; kept for agreement with Otava.
    for (const k of [weakest, weakest + 1]) {
      if (k < points.length) points[k] = withStats(points[k].index, points[k].qhat, statsAt(series, points[k].index, intervals), magnitude);
    }
  }
  return points;
}

/** firstBy is the index of the first element that no later element beats (Python's max/min key semantics). */
function firstBy<T>(items: readonly T[], beats: (a: T, b: T) => boolean): number {
  let best = 0;
  for (let i = 1; i < items.length; i++) if (beats(items[i], items[best])) best = i;
  return best;
}
