/**
 * hodges-lehmann: the Hodges-Lehmann estimate of the shift y - x (median of
 * all n1 n2 pairwise differences y_j - x_i) and its distribution-free
 * confidence interval obtained by inverting the two-sided Mann-Whitney test of
 * {@link mannWhitneyU} (Bauer 1972; Hollander & Wolfe, "Nonparametric
 * Statistical Methods", 4.3).
 *
 * The CI is the closure of the set of shifts d for which the test of x
 * against y - d does not reject at alpha (p > alpha). U(d) steps only at the
 * pairwise differences, so with D sorted ascending and N = n1 n2 the CI is
 * [D_(L), D_(N-L+1)], L = ceil(N/2 - h), where h is the largest half-integer
 * |U - N/2| the test accepts. h comes from the very p-value function of the
 * test: the exact null distribution when the test is exact, the normal
 * approximation with continuity correction and the tie-corrected variance of
 * the observed samples otherwise (the variance is held fixed over d rather
 * than recomputed per shift, which keeps the accepted set an interval).
 *
 * Duality with the test: `excludesZero` is exactly "the test rejects at
 * alpha" (p <= alpha), by construction. The closed bounds say the same
 * (`lower > 0 || upper < 0`) except in one boundary case: when 0 is itself
 * a CI bound and the test rejects there, which needs some x_i == y_j (a tie
 * across samples, so never with the exact method). Use `excludesZero`
 * (`excludesOne` for ratios) for decisions and the bounds for display.
 *
 * Checked against an independent numpy implementation of the same
 * definitions (scipy has no HL), with the exact critical values from scipy's
 * own Mann-Whitney null distribution: scripts/stats-vectors.py.
 */

import { asymptoticPValue, chooseMethod, exactPValue, rankSum } from './mann-whitney.ts';
import type { MannWhitneyMethod } from './mann-whitney.ts';
import { selectRanks } from './order-statistics.ts';

/** HodgesLehmannOptions: `alpha` (default 0.05) gives a 1 - alpha CI; `method` as {@link mannWhitneyU} (default `auto`). */
export interface HodgesLehmannOptions {
  alpha?: number;
  method?: MannWhitneyMethod;
}

/**
 * HodgesLehmannResult: `estimate` is the HL shift of y - x in the samples'
 * unit; `lower`/`upper` its CI (may be -Infinity/Infinity when the samples
 * are too small for any shift to be rejected, e.g. n = 1 per side); `p` the
 * two-sided Mann-Whitney p-value at shift 0; `excludesZero` is `p <= alpha`.
 */
export interface HodgesLehmannResult {
  estimate: number;
  lower: number;
  upper: number;
  alpha: number;
  p: number;
  excludesZero: boolean;
  method: 'exact' | 'asymptotic';
}

/** hodgesLehmann estimates the shift y - x with its 1 - alpha CI. Throws RangeError on an empty side, NaN, or alpha outside (0, 1). */
export function hodgesLehmann(x: readonly number[], y: readonly number[], options: HodgesLehmannOptions = {}): HodgesLehmannResult {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`hodgesLehmann: alpha must be in (0, 1), got ${alpha}`);
  const n1 = x.length;
  const n2 = y.length;
  const ranks = rankSum(x, y);
  const method = chooseMethod(options.method ?? 'auto', n1, n2, ranks.tieTerm > 0);
  const pOf = method === 'exact'
    ? (u: number) => exactPValue(u, n1, n2)
    : (u: number) => asymptoticPValue(u, n1, n2, ranks.tieTerm);
  const big = n1 * n2;
  const p = pOf(ranks.u1);

  // p depends on U only through |U - N/2| and is non-increasing in it; search
  // the largest accepted half-integer distance h over 0, 1/2, ..., N/2.
  let lo = 0; // accepted: distance 0 gives p = 1 with both methods
  let hi = big + 1; // in half-units; big + 1 is beyond the range
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (pOf(big / 2 + mid / 2) > alpha) lo = mid;
    else hi = mid;
  }
  const rank = Math.ceil(big / 2 - lo / 2);

  const diffs = new Float64Array(big);
  let k = 0;
  for (let j = 0; j < n2; j++) for (let i = 0; i < n1; i++) diffs[k++] = y[j] - x[i];
  const middle = big % 2 === 1 ? [(big - 1) / 2] : [big / 2 - 1, big / 2];
  selectRanks(diffs, rank <= 0 ? middle : [rank - 1, ...middle, big - rank]);
  const estimate = middle.length === 1 ? diffs[middle[0]] : (diffs[middle[0]] + diffs[middle[1]]) / 2;
  const lower = rank <= 0 ? -Infinity : diffs[rank - 1];
  const upper = rank <= 0 ? Infinity : diffs[big - rank];
  return { estimate, lower, upper, alpha, p, excludesZero: p <= alpha, method };
}

/**
 * RatioCi: `ratio` = head/base as exp(HL of log(head) - log(base)) and its
 * CI exp(bounds) (0 and Infinity when unbounded); `excludesOne` is the test's
 * rejection at alpha, see {@link hodgesLehmann} for the one boundary case in
 * which it is not `lower > 1 || upper < 1`.
 */
export interface RatioCi {
  ratio: number;
  lower: number;
  upper: number;
  alpha: number;
  p: number;
  excludesOne: boolean;
  method: 'exact' | 'asymptotic';
}

/**
 * ratioWithCi is the ratio head/base with its 1 - alpha CI (alpha default
 * 0.05), computed on log values. Returns null when any value is <= 0 or not
 * finite: such samples cannot be logged, and the caller should fall back to
 * {@link hodgesLehmann} on the raw values (a difference, not a ratio).
 */
export function ratioWithCi(base: readonly number[], head: readonly number[], alpha = 0.05, options: { method?: MannWhitneyMethod } = {}): RatioCi | null {
  const logBase = logAll(base);
  const logHead = logAll(head);
  if (logBase === null || logHead === null) return null;
  const hl = hodgesLehmann(logBase, logHead, { alpha, method: options.method });
  return {
    ratio: Math.exp(hl.estimate),
    lower: Math.exp(hl.lower),
    upper: Math.exp(hl.upper),
    alpha,
    p: hl.p,
    excludesOne: hl.excludesZero,
    method: hl.method,
  };
}

function logAll(values: readonly number[]): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!(v > 0 && v < Infinity)) return null;
    out.push(Math.log(v));
  }
  return out;
}
