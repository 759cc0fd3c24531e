/**
 * mann-whitney: the two-sided Mann-Whitney U (Wilcoxon rank-sum) test.
 *
 * Agrees with `scipy.stats.mannwhitneyu(x, y, alternative="two-sided")` to
 * 1e-9 (test/stats/mann-whitney.test.ts, vectors from
 * scripts/stats-vectors.py): the statistic is U of x (sum of x's mid-ranks
 * minus n1(n1+1)/2, i.e. #{x > y} + #{x = y}/2); the exact p-value is twice
 * the upper tail of the null distribution of U at max(U1, U2), clipped to 1,
 * with U floored to an integer as scipy does when forced onto tied data; the
 * asymptotic p-value is the normal approximation with the tie-corrected
 * variance and a 1/2 continuity correction.
 *
 * The exact null distribution is counted, not simulated: the number of
 * arrangements with U = u is the coefficient of q^u in the Gaussian binomial
 * [n1 + n2 choose n1]_q, built as prod_i (1 - q^(n2+i)) / (1 - q^i) in BigInt
 * (exact at any size), O(n1 * n1 * n2) once per (n1, n2) and cached, so every
 * later test of the same sizes is a table lookup.
 */

import { normalSf } from './normal.ts';

/**
 * MannWhitneyMethod picks how the p-value is computed:
 * - `auto` (benchbot's default): exact when there are no ties and both
 *   samples have at most {@link EXACT_MAX_N} values, asymptotic otherwise.
 *   Past 50 per side the normal approximation is within ~1e-3 of exact in the
 *   range of p that matters, and the exact table would cost O(n^3).
 * - `scipy`: scipy's own `method="auto"` rule, exact when there are no ties
 *   and either sample has at most 8 values; this reproduces compare.py.
 * - `exact`: the exact null distribution, ignoring ties (as scipy).
 * - `asymptotic`: normal approximation with tie and continuity correction.
 */
export type MannWhitneyMethod = 'auto' | 'scipy' | 'exact' | 'asymptotic';

/** EXACT_MAX_N is the largest per-side size for which `auto` uses the exact distribution. */
export const EXACT_MAX_N = 50;

/** MannWhitneyOptions configures {@link mannWhitneyU}; `method` defaults to `auto`. */
export interface MannWhitneyOptions {
  method?: MannWhitneyMethod;
}

/**
 * MannWhitneyResult: `u` is U of x as scipy's `statistic`; `p` the two-sided
 * p-value in [0, 1]; `method` the computation actually used.
 */
export interface MannWhitneyResult {
  u: number;
  p: number;
  method: 'exact' | 'asymptotic';
}

/**
 * mannWhitneyU runs the two-sided Mann-Whitney U test of x against y.
 *
 * Defined on every non-empty input: all values equal on both sides gives
 * p = 1 (as scipy), n = 1 per side gives p = 1. Throws RangeError for an
 * empty side or a NaN value (scipy raises ValueError for both).
 */
export function mannWhitneyU(x: readonly number[], y: readonly number[], options: MannWhitneyOptions = {}): MannWhitneyResult {
  const ranks = rankSum(x, y);
  const n1 = x.length;
  const n2 = y.length;
  const method = chooseMethod(options.method ?? 'auto', n1, n2, ranks.tieTerm > 0);
  const u = ranks.u1;
  const p = method === 'exact' ? exactPValue(u, n1, n2) : asymptoticPValue(u, n1, n2, ranks.tieTerm);
  return { u, p, method };
}

/** RankSum is U of x and the tie term sum(t^3 - t) over tie groups of the pooled sample. */
export interface RankSum {
  u1: number;
  tieTerm: number;
}

/** rankSum computes U of x from pooled mid-ranks, and the tie term for the variance. */
export function rankSum(x: readonly number[], y: readonly number[]): RankSum {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('mannWhitneyU: both samples must be non-empty');
  // Sort each side and merge: cheaper than sorting pooled indices with a comparator.
  const xs = Float64Array.from(x).sort();
  const ys = Float64Array.from(y).sort();
  if (Number.isNaN(xs[n1 - 1]) || Number.isNaN(ys[n2 - 1])) throw new RangeError('mannWhitneyU: samples must not contain NaN');
  let r1 = 0;
  let tieTerm = 0;
  let i = 0;
  let j = 0;
  let rank = 0; // ranks assigned so far
  while (i < n1 || j < n2) {
    const v = j >= n2 || (i < n1 && xs[i] <= ys[j]) ? xs[i] : ys[j];
    let a = 0;
    while (i < n1 && xs[i] === v) {
      i++;
      a++;
    }
    let b = 0;
    while (j < n2 && ys[j] === v) {
      j++;
      b++;
    }
    const t = a + b;
    r1 += a * (rank + (t + 1) / 2);
    if (t > 1) tieTerm += t * t * t - t;
    rank += t;
  }
  return { u1: r1 - (n1 * (n1 + 1)) / 2, tieTerm };
}

/** chooseMethod resolves `auto` and `scipy` into the computation to use. */
export function chooseMethod(method: MannWhitneyMethod, n1: number, n2: number, ties: boolean): 'exact' | 'asymptotic' {
  switch (method) {
    case 'exact':
    case 'asymptotic':
      return method;
    case 'scipy':
      return !ties && (n1 <= 8 || n2 <= 8) ? 'exact' : 'asymptotic';
    case 'auto':
      return !ties && n1 <= EXACT_MAX_N && n2 <= EXACT_MAX_N ? 'exact' : 'asymptotic';
  }
}

/**
 * exactPValue is the two-sided exact p-value for U (of either sample; the
 * test is symmetric): 2 P(U >= floor(max(u, n1 n2 - u))), clipped to 1.
 */
export function exactPValue(u: number, n1: number, n2: number): number {
  const big = n1 * n2;
  const k = Math.floor(Math.max(u, big - u));
  // P(U >= k) = P(U <= n1 n2 - k) by symmetry: the lower tail keeps precision.
  const p = 2 * exactCdf(n1, n2)[big - k];
  return Math.min(1, p);
}

/**
 * asymptoticPValue is the two-sided normal-approximation p-value for U with
 * tie term sum(t^3 - t) and continuity correction 1/2, as scipy. With zero
 * variance (all values equal) it is 1.
 */
export function asymptoticPValue(u: number, n1: number, n2: number, tieTerm: number): number {
  const mu = (n1 * n2) / 2;
  const n = n1 + n2;
  const s = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  const numerator = Math.max(u, n1 * n2 - u) - mu - 0.5;
  if (!(s > 0)) return numerator > 0 ? 0 : 1;
  return Math.min(1, 2 * normalSf(numerator / s));
}

const cdfCache = new Map<string, Float64Array>();

/**
 * exactCdf is the null CDF of U for sizes (n1, n2): entry u is P(U <= u),
 * u = 0..n1 n2. Cached by the unordered pair; BigInt counts, so exact up to
 * the final rounding of each ratio to a double.
 */
export function exactCdf(n1: number, n2: number): Float64Array {
  const m = Math.min(n1, n2);
  const n = Math.max(n1, n2);
  const key = `${m},${n}`;
  const cached = cdfCache.get(key);
  if (cached) return cached;
  const big = m * n;
  const c: bigint[] = new Array(big + m + 1).fill(0n);
  c[0] = 1n;
  for (let i = 1; i <= m; i++) {
    const step = n + i;
    for (let k = (i - 1) * n + step; k >= step; k--) c[k] -= c[k - step];
    for (let k = i; k <= i * n; k++) c[k] += c[k - i];
    // The division is exact: what the product left above degree i*n cancels.
    for (let k = i * n + 1; k <= i * n + i; k++) c[k] = 0n;
  }
  let total = 0n;
  for (let k = 0; k <= big; k++) total += c[k];
  // Doubles overflow near 1e308; shifting both counts keeps the ratio exact enough.
  const shift = BigInt(Math.max(0, total.toString(2).length - 1000));
  const denominator = Number(total >> shift);
  const cdf = new Float64Array(big + 1);
  let running = 0n;
  for (let k = 0; k <= big; k++) {
    running += c[k];
    cdf[k] = Number(running >> shift) / denominator;
  }
  cdfCache.set(key, cdf);
  return cdf;
}
