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

/**
 * mannKendall tests values (in round order) for a monotone trend. O(n log n):
 * S counts pairs by merge sort (Knight 1966) instead of visiting all
 * n(n-1)/2 of them, which at 200,000 rounds would be 2e10 steps.
 */
export function mannKendall(values: readonly number[], options: MannKendallOptions = {}): MannKendallResult {
  const n = values.length;
  const { sorted, inversions } = sortCountingInversions(values);
  let tiePairs = 0;
  let tieSum = 0;
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && sorted[end] === sorted[start]) end++;
    const t = end - start;
    tieSum += t * (t - 1) * (2 * t + 5);
    tiePairs += (t * (t - 1)) / 2;
    start = end;
  }
  // Rising pairs minus falling pairs; every pair is one of those or a tie.
  const pairs = n < 2 ? 0 : (n * (n - 1)) / 2; // not -0 at n = 0
  const s = pairs - tiePairs - 2 * inversions;
  const variance = (n * (n - 1) * (2 * n + 5) - tieSum) / 18;
  if (n < 3 || !(variance > 0)) return { s, variance, z: 0, p: 1 };
  const corrected = (options.continuity ?? true) ? s - Math.sign(s) : s;
  const z = corrected / Math.sqrt(variance);
  return { s, variance, z, p: Math.min(1, 2 * normalSf(Math.abs(z))) };
}

/**
 * sortCountingInversions sorts a copy of values ascending (bottom-up merge
 * sort) and counts the pairs i < j with values[i] > values[j], strictly:
 * equal values are merged left first and never counted.
 */
function sortCountingInversions(values: readonly number[]): { sorted: Float64Array; inversions: number } {
  const n = values.length;
  let from = Float64Array.from(values);
  let to = new Float64Array(n);
  let inversions = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (from[i] <= from[j]) to[k++] = from[i++];
        else {
          inversions += mid - i;
          to[k++] = from[j++];
        }
      }
      while (i < mid) to[k++] = from[i++];
      while (j < hi) to[k++] = from[j++];
    }
    [from, to] = [to, from];
  }
  return { sorted: from, inversions };
}
