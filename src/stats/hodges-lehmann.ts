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
 * The order statistics of D are selected without building D
 * ({@link PairwiseDifferences}): O(n1 + n2) memory, so 200,000 rounds per
 * side cost a few seconds instead of 320 GB.
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
  return hodgesLehmannLevels(x, y, [options.alpha ?? 0.05], options)[0];
}

/**
 * hodgesLehmannLevels is hodgesLehmann at each of `alphas` (`options.alpha`
 * is ignored), sharing the ranks and the pairwise differences: a comparison
 * wants its CI at alpha and the equivalence test's at 2 alpha.
 */
export function hodgesLehmannLevels(x: readonly number[], y: readonly number[], alphas: readonly number[], options: HodgesLehmannOptions = {}): HodgesLehmannResult[] {
  for (const alpha of alphas) {
    if (!(alpha > 0 && alpha < 1)) throw new RangeError(`hodgesLehmann: alpha must be in (0, 1), got ${alpha}`);
  }
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
  // N passes 2^32 at 65,536 per side, so no `>>> 1` here.
  const boundRanks = alphas.map((alpha) => {
    let lo = 0; // accepted: distance 0 gives p = 1 with both methods
    let hi = big + 1; // in half-units; big + 1 is beyond the range
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (pOf(big / 2 + mid / 2) > alpha) lo = mid;
      else hi = mid;
    }
    return Math.ceil(big / 2 - lo / 2);
  });

  const differences = new PairwiseDifferences(x, y);
  const middle = big % 2 === 1 ? [(big - 1) / 2, (big - 1) / 2] : [big / 2 - 1, big / 2];
  const wanted = [...middle];
  for (const rank of boundRanks) if (rank > 0) wanted.push(rank - 1, big - rank);
  const values = differences.orderStatistics(wanted);
  const at = new Map(wanted.map((r, i) => [r, values[i]]));
  const estimate = big % 2 === 1 ? values[0] : (values[0] + values[1]) / 2;
  return alphas.map((alpha, i) => {
    const rank = boundRanks[i];
    const lower = rank <= 0 ? -Infinity : (at.get(rank - 1) as number);
    const upper = rank <= 0 ? Infinity : (at.get(big - rank) as number);
    return { estimate, lower, upper, alpha, p, excludesZero: p <= alpha, method };
  });
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
  return ratioWithCis(base, head, [alpha], options)?.[0] ?? null;
}

/** ratioWithCis is ratioWithCi at each of `alphas`, computed together (see hodgesLehmannLevels). */
export function ratioWithCis(base: readonly number[], head: readonly number[], alphas: readonly number[], options: { method?: MannWhitneyMethod } = {}): RatioCi[] | null {
  const logBase = logAll(base);
  const logHead = logAll(head);
  if (logBase === null || logHead === null) return null;
  return hodgesLehmannLevels(logBase, logHead, alphas, { method: options.method }).map((hl) => ({
    ratio: Math.exp(hl.estimate),
    lower: Math.exp(hl.lower),
    upper: Math.exp(hl.upper),
    alpha: hl.alpha,
    p: hl.p,
    excludesOne: hl.excludesZero,
    method: hl.method,
  }));
}

function logAll(values: readonly number[]): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!(v > 0 && v < Infinity)) return null;
    out.push(Math.log(v));
  }
  return out;
}

/**
 * PairwiseDifferences gives order statistics of the n1 n2 differences
 * y_j - x_i (as computed in doubles) without materializing them: 200,000
 * rounds per side, which pytest-benchmark data can have, would be 4e10
 * doubles (320 GB). With x and y sorted, the differences form an implicit
 * matrix sorted along both axes (rounding is monotone, so the computed
 * differences are too), and the number of pairs <= t is one two-pointer
 * walk, O(n1 + n2). orderStatistic bisects on t over the doubles in their
 * total order (bit patterns mapped to ordered integers) until at most
 * 2 (n1 + n2) differences lie between the bounds, then lists those and
 * selects among them; bisecting to the end would stop on the smallest
 * double with at least r + 1 pairs at or below it. Either way the result is
 * exactly the value a full sort would put at rank r: at most 64 walks,
 * O((n1 + n2) log range) time and O(n1 + n2) memory. (-0 and +0 are one
 * point of the bisection's order, so a -0 difference may come back as +0.)
 */
export class PairwiseDifferences {
  private readonly xs: Float64Array;
  private readonly ys: Float64Array;

  /** Throws RangeError on an empty side or a value that is not finite (Infinity - Infinity has no order). */
  constructor(x: readonly number[], y: readonly number[]) {
    if (x.length === 0 || y.length === 0) throw new RangeError('hodgesLehmann: both samples must be non-empty');
    this.xs = Float64Array.from(x).sort();
    this.ys = Float64Array.from(y).sort();
    for (const side of [this.xs, this.ys]) {
      if (!Number.isFinite(side[0]) || !Number.isFinite(side[side.length - 1])) throw new RangeError('hodgesLehmann: samples must be finite numbers');
    }
  }

  /**
   * orderStatistics is orderStatistic of each rank. Up to
   * MATERIALIZED_DIFFERENCES differences are listed once and the ranks
   * selected among them together (a comparison at 30 rounds per side asks
   * for four ranks of 900: one listing instead of four bisections).
   */
  orderStatistics(ranks: readonly number[]): number[] {
    const { xs, ys } = this;
    const n1 = xs.length;
    if (n1 * ys.length > MATERIALIZED_DIFFERENCES) return ranks.map((r) => this.orderStatistic(r));
    const all = new Float64Array(n1 * ys.length);
    let k = 0;
    for (let j = 0; j < ys.length; j++) {
      const yj = ys[j];
      for (let i = 0; i < n1; i++) all[k++] = yj - xs[i];
    }
    selectRanks(all, ranks);
    return ranks.map((r) => all[r]);
  }

  /** orderStatistic is the difference y_j - x_i at 0-based rank r of all n1 n2 of them, ascending. */
  orderStatistic(r: number): number {
    const { xs, ys } = this;
    const wanted = r + 1;
    const smallest = ys[0] - xs[xs.length - 1];
    const largest = ys[ys.length - 1] - xs[0];
    // Invariant: count(lo) < wanted <= count(hi), lo and hi as ordered keys.
    // Below the smallest difference the count is 0; an overflowed (infinite)
    // difference has no double below it, so there lo starts on it, and then
    // the bracket never narrows to a set small enough to list.
    const finite = Number.isFinite(smallest) && Number.isFinite(largest);
    let lo = orderedKey(smallest) - (finite ? 1n : 0n);
    let loCount = 0;
    let hi = orderedKey(largest);
    let hiCount = xs.length * ys.length;
    // Listing what lies between the bounds ends the search early, in memory
    // of the order of the samples': about 25 walks instead of 64 at 200 k.
    const budget = 2 * (xs.length + ys.length);
    while (hi - lo > 1n) {
      if (finite && hiCount - loCount <= budget) return this.select(keyValue(lo), keyValue(hi), wanted - loCount - 1, hiCount - loCount);
      const mid = (lo + hi) >> 1n; // arithmetic shift: floor, also for negative keys
      const count = this.countAtMost(keyValue(mid));
      if (count >= wanted) {
        hi = mid;
        hiCount = count;
      } else {
        lo = mid;
        loCount = count;
      }
    }
    return keyValue(hi);
  }

  /** select lists the `size` differences in (below, atMost] and returns the one at 0-based rank r among them. */
  private select(below: number, atMost: number, r: number, size: number): number {
    const { xs, ys } = this;
    const n1 = xs.length;
    const between = new Float64Array(size);
    let k = 0;
    let a = 0; // first x with y_j - x_i <= atMost
    let b = 0; // first x with y_j - x_i <= below
    for (let j = 0; j < ys.length; j++) {
      const yj = ys[j];
      while (a < n1 && yj - xs[a] > atMost) a++;
      while (b < n1 && yj - xs[b] > below) b++;
      for (let i = a; i < b; i++) between[k++] = yj - xs[i];
    }
    selectRanks(between, [r]);
    return between[r];
  }

  /** countAtMost is the number of pairs with y_j - x_i <= t. */
  private countAtMost(t: number): number {
    const { xs, ys } = this;
    const n1 = xs.length;
    let count = 0;
    let i = 0; // first x with y_j - x_i <= t; only moves up as y_j grows
    for (let j = 0; j < ys.length; j++) {
      const yj = ys[j];
      while (i < n1 && yj - xs[i] > t) i++;
      count += n1 - i;
    }
    return count;
  }
}

/** MATERIALIZED_DIFFERENCES is the most differences orderStatistics lists whole (128 KiB) rather than bisecting for each rank. */
const MATERIALIZED_DIFFERENCES = 16_384;

const keyBits = new Float64Array(1);
const keyInts = new BigInt64Array(keyBits.buffer);
const SIGN = -0x8000000000000000n;

// orderedKey maps a non-NaN double to an integer with the same order (IEEE
// 754 sign-magnitude to two's complement); keyValue is its inverse.
function orderedKey(v: number): bigint {
  keyBits[0] = v;
  const bits = keyInts[0];
  return bits >= 0n ? bits : -(bits & ~SIGN);
}

function keyValue(key: bigint): number {
  keyInts[0] = key >= 0n ? key : -key | SIGN;
  return keyBits[0];
}
