/**
 * quantile-ci: a quantile (the median by default) with its distribution-free
 * order-statistic confidence interval (Hahn & Meeker, "Statistical
 * Intervals", 5.2; the interval benchstat reports for a median).
 *
 * For n values and quantile q, the number B of values below the true
 * quantile is Binomial(n, q), so [X_(j), X_(k)] (1-based order statistics)
 * covers it with probability P(j <= B <= k - 1). The ranks are
 *   j = binom.ppf(alpha/2, n, q),   k = binom.ppf(1 - alpha/2, n, q) + 1
 * (ppf(a) = the smallest x with cdf(x) >= a), so each tail misses with
 * probability at most alpha/2 and coverage is >= 1 - alpha. When n is too
 * small for that (j < 1 or k > n; for the median at 95 % that is n < 6) the
 * ranks are clamped to 1 and n and `coverage` reports the smaller confidence
 * actually achieved instead of an infinite interval.
 *
 * Checked against the same construction with `scipy.stats.binom.ppf/cdf`
 * and `np.quantile` in scripts/stats-vectors.py.
 */

import { quantileSorted, sortedCopy } from './order-statistics.ts';

export { median, quantile } from './order-statistics.ts';

/** QuantileCiOptions: `q` the quantile in (0, 1) (default 0.5); `alpha` gives a 1 - alpha CI (default 0.05). */
export interface QuantileCiOptions {
  q?: number;
  alpha?: number;
}

/**
 * QuantileCi: `estimate` is the type-7 (numpy linear) quantile; `lower` and
 * `upper` are the order statistics of 1-based ranks `lowerRank` and
 * `upperRank`; `coverage` the exact binomial coverage P(lowerRank <= B <
 * upperRank), >= 1 - alpha unless the ranks had to be clamped.
 */
export interface QuantileCi {
  estimate: number;
  lower: number;
  upper: number;
  lowerRank: number;
  upperRank: number;
  coverage: number;
}

/**
 * quantileCi computes the q-quantile and its order-statistic CI. Returns null
 * for no values; throws RangeError for q or alpha outside (0, 1) or NaN values.
 */
export function quantileCi(values: readonly number[], options: QuantileCiOptions = {}): QuantileCi | null {
  const q = options.q ?? 0.5;
  const alpha = options.alpha ?? 0.05;
  if (!(q > 0 && q < 1)) throw new RangeError(`quantileCi: q must be in (0, 1), got ${q}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`quantileCi: alpha must be in (0, 1), got ${alpha}`);
  const n = values.length;
  if (n === 0) return null;
  const sorted = sortedCopy(values);
  if (Number.isNaN(sorted[n - 1])) throw new RangeError('quantileCi: values must not contain NaN');
  const cdf = binomialCdf(n, q);
  const lowerRank = Math.max(1, ppf(cdf, alpha / 2));
  const upperRank = Math.min(n, ppf(cdf, 1 - alpha / 2) + 1);
  return {
    estimate: quantileSorted(sorted, q),
    lower: sorted[lowerRank - 1],
    upper: sorted[upperRank - 1],
    lowerRank,
    upperRank,
    coverage: cdf[upperRank - 1] - cdf[lowerRank - 1],
  };
}

/** medianCi is {@link quantileCi} at q = 0.5. */
export function medianCi(values: readonly number[], alpha = 0.05): QuantileCi | null {
  return quantileCi(values, { q: 0.5, alpha });
}

// A suite compares thousands of benchmarks with the same n; the CDF depends on (n, q) only.
const cdfCache = new Map<string, Float64Array>();

/** binomialCdf returns P(B <= k) for k = 0..n, B ~ Binomial(n, q), summed from log-space pmfs (cached; do not modify the result). */
export function binomialCdf(n: number, q: number): Float64Array {
  const key = `${n}/${q}`;
  const cached = cdfCache.get(key);
  if (cached) return cached;
  if (cdfCache.size > 1000) cdfCache.clear();
  const cdf = new Float64Array(n + 1);
  const logQ = Math.log(q);
  const log1mQ = Math.log1p(-q);
  let logChoose = 0;
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logChoose += Math.log((n - k + 1) / k);
    sum += Math.exp(logChoose + k * logQ + (n - k) * log1mQ);
    cdf[k] = Math.min(1, sum);
  }
  cdfCache.set(key, cdf);
  return cdf;
}

function ppf(cdf: Float64Array, a: number): number {
  for (let k = 0; k < cdf.length; k++) if (cdf[k] >= a) return k;
  return cdf.length - 1;
}
