/**
 * mann-kendall: the Mann-Kendall trend test over the round index, used to
 * flag warm-up (a monotone drift across rounds) in one side's samples.
 *
 * S = sum over i < j of sign(x_j - x_i); under no trend S has mean 0 and
 * variance (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18 over tie groups t; the
 * two-sided p-value is the normal approximation (Kendall 1975; Hipel &
 * McLeod 1994).
 *
 * With `continuity: false` the p-value is exactly
 * `scipy.stats.kendalltau(range(n), x, method="asymptotic").pvalue`
 * (scipy uses the same tie-corrected variance and no continuity correction);
 * the default `continuity: true` is the classic Mann-Kendall form
 * z = (S - sign(S)) / sqrt(var), slightly more conservative, checked against
 * a numpy implementation. Both in scripts/stats-vectors.py.
 */

import { normalSf } from './normal.ts';

/** MannKendallOptions: `continuity` (default true) applies the 1-unit continuity correction to S. */
export interface MannKendallOptions {
  continuity?: boolean;
}

/**
 * MannKendallResult: `s` the Mann-Kendall statistic (positive = rising),
 * `variance` its tie-corrected null variance, `z` the normal score, `p` the
 * two-sided p-value. Fewer than 3 values, or all values equal (variance 0;
 * scipy returns NaN there), give z = 0 and p = 1: no trend can be seen.
 */
export interface MannKendallResult {
  s: number;
  variance: number;
  z: number;
  p: number;
}

/** mannKendall tests values (in round order) for a monotone trend. O(n^2). */
export function mannKendall(values: readonly number[], options: MannKendallOptions = {}): MannKendallResult {
  const n = values.length;
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) s += Math.sign(values[j] - values[i]);
  }
  const sorted = Float64Array.from(values).sort();
  let tieSum = 0;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && sorted[end] === sorted[start]) end++;
    const t = end - start;
    tieSum += t * (t - 1) * (2 * t + 5);
    start = end;
  }
  const variance = (n * (n - 1) * (2 * n + 5) - tieSum) / 18;
  if (n < 3 || !(variance > 0)) return { s, variance, z: 0, p: 1 };
  const corrected = (options.continuity ?? true) ? s - Math.sign(s) : s;
  const z = corrected / Math.sqrt(variance);
  return { s, variance, z, p: Math.min(1, 2 * normalSf(Math.abs(z))) };
}
