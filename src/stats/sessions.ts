/**
 * sessions: statistics where the unit of evidence is a benchmark session
 * (one night, one bisect probe), not a sample. Samples inside one session
 * share its offset (machine state, thermal state, what ran before), so
 * pooling them as independent overstates the evidence whenever sessions
 * are compared; these functions work on one number per session and take
 * the between-session variance from the sessions themselves.
 *
 * - {@link sessionShift}: the shift between two groups of session values
 *   (log medians per night), a t test whose variance comes from the
 *   history (a longer baseline of sessions) when given.
 * - {@link randomEffects}: per-session estimates with their within-session
 *   variances combined by DerSimonian-Laird, the between-session variance
 *   tau^2 estimated from their spread.
 * - {@link varianceComponents}: one-way random-effects ANOVA (method of
 *   moments): within- and between-session variance of raw values.
 */

import { normalQuantile, normalSf } from './normal.ts';
import { studentTQuantile, studentTSf } from './student-t.ts';

/** ShiftTest: `estimate` = mean(after) - mean(before) with its standard error, t, df, two-sided p and 1 - alpha CI. */
export interface ShiftTest {
  estimate: number;
  se: number;
  df: number;
  t: number;
  p: number;
  lower: number;
  upper: number;
}

function mean(values: readonly number[]): number {
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

function sumSquares(values: readonly number[]): number {
  const m = mean(values);
  let s = 0;
  for (const v of values) s += (v - m) ** 2;
  return s;
}

/**
 * sessionShift tests the shift between sessions `before` and `after` (one
 * value each, e.g. log of a night's median). The session-to-session
 * standard deviation is the pooled one of `before` and `after`, or, when
 * `history` is given (two or more sessions of the same segment, usually
 * the longer baseline `before` was taken from), the standard deviation of
 * `history` with its degrees of freedom: a steadier estimate than five
 * nights can give. `minSd` floors it (a history of identical medians would
 * otherwise make any difference infinitely significant). Null when a side
 * is empty or no spread can be estimated.
 */
export function sessionShift(before: readonly number[], after: readonly number[], options: { history?: readonly number[]; alpha?: number; minSd?: number } = {}): ShiftTest | null {
  const alpha = options.alpha ?? 0.05;
  if (before.length === 0 || after.length === 0) return null;
  let variance: number;
  let df: number;
  const history = options.history;
  if (history !== undefined && history.length >= 2) {
    df = history.length - 1;
    variance = sumSquares(history) / df;
  } else {
    df = before.length + after.length - 2;
    if (df < 1) return null;
    variance = (sumSquares(before) + sumSquares(after)) / df;
  }
  const sd = Math.max(Math.sqrt(variance), options.minSd ?? 0);
  const estimate = mean(after) - mean(before);
  const se = sd * Math.sqrt(1 / before.length + 1 / after.length);
  if (!(se > 0)) return estimate === 0 ? { estimate, se, df, t: 0, p: 1, lower: 0, upper: 0 } : { estimate, se, df, t: Math.sign(estimate) * Infinity, p: 0, lower: estimate, upper: estimate };
  const t = estimate / se;
  const half = studentTQuantile(1 - alpha / 2, df) * se;
  return { estimate, se, df, t, p: Math.min(1, 2 * studentTSf(Math.abs(t), df)), lower: estimate - half, upper: estimate + half };
}

/**
 * RandomEffects: the combined estimate `mean` with standard error `se`,
 * `tau2` the between-session variance (DerSimonian-Laird, floored at 0),
 * `k` sessions, `p` the two-sided p of mean = 0 and the 1 - alpha CI
 * (normal, as DerSimonian and Laird; tau^2 already widens it when the
 * sessions disagree).
 */
export interface RandomEffects {
  mean: number;
  se: number;
  tau2: number;
  k: number;
  p: number;
  lower: number;
  upper: number;
}

/**
 * randomEffects combines k per-session estimates y_i with within-session
 * variances v_i: tau^2 = max(0, (Q - (k - 1)) / (S1 - S2 / S1)) with
 * Q = sum w_i (y_i - ybar_w)^2, w_i = 1 / v_i; then weights 1 / (v_i + tau^2).
 * One session gives its own estimate and variance (tau^2 cannot be told
 * from one session; the within-session contrast is then all there is).
 * Null without sessions; a zero variance is floored at `minVariance`.
 */
export function randomEffects(estimates: readonly number[], variances: readonly number[], options: { alpha?: number; minVariance?: number } = {}): RandomEffects | null {
  const alpha = options.alpha ?? 0.05;
  const k = estimates.length;
  if (k === 0 || variances.length !== k) return null;
  const floor = options.minVariance ?? 1e-12;
  const v = variances.map((x) => Math.max(x, floor));
  const w = v.map((x) => 1 / x);
  const s1 = w.reduce((a, b) => a + b, 0);
  const s2 = w.reduce((a, b) => a + b * b, 0);
  const fixed = estimates.reduce((a, y, i) => a + w[i] * y, 0) / s1;
  const q = estimates.reduce((a, y, i) => a + w[i] * (y - fixed) ** 2, 0);
  const tau2 = k >= 2 ? Math.max(0, (q - (k - 1)) / (s1 - s2 / s1)) : 0;
  const wr = v.map((x) => 1 / (x + tau2));
  const sr = wr.reduce((a, b) => a + b, 0);
  const m = estimates.reduce((a, y, i) => a + wr[i] * y, 0) / sr;
  const se = Math.sqrt(1 / sr);
  const z = m / se;
  const p = Math.min(1, 2 * normalSf(Math.abs(z)));
  const crit = normalQuantile(1 - alpha / 2);
  return { mean: m, se, tau2, k, p, lower: m - crit * se, upper: m + crit * se };
}

/** VarianceComponents: `within` and `between` session variances (between floored at 0), the grand mean and the sessions used. */
export interface VarianceComponents {
  within: number;
  between: number;
  mean: number;
  sessions: number;
}

/**
 * varianceComponents is the one-way random-effects ANOVA of values grouped
 * by session (method of moments, unbalanced groups through n0):
 * within = MSW, between = max(0, (MSB - MSW) / n0). Sessions with fewer
 * than one value are ignored; null with fewer than two sessions.
 */
export function varianceComponents(groups: readonly (readonly number[])[]): VarianceComponents | null {
  const used = groups.filter((g) => g.length > 0);
  const a = used.length;
  if (a < 2) return null;
  const n = used.reduce((s, g) => s + g.length, 0);
  const grand = used.reduce((s, g) => s + g.reduce((x, y) => x + y, 0), 0) / n;
  let ssb = 0;
  let ssw = 0;
  for (const g of used) {
    const m = mean(g);
    ssb += g.length * (m - grand) ** 2;
    ssw += sumSquares(g);
  }
  const msb = ssb / (a - 1);
  const msw = n > a ? ssw / (n - a) : 0;
  const n0 = (n - used.reduce((s, g) => s + g.length ** 2, 0) / n) / (a - 1);
  return { within: msw, between: Math.max(0, (msb - msw) / n0), mean: grand, sessions: a };
}
