import type { Comparison } from '../model/comparison.ts';
import { normalCdf, normalQuantile } from '../stats/normal.ts';
import { studentTQuantile } from '../stats/student-t.ts';
import { DEFAULT_TRIM, trimmedSummary } from '../stats/yuen.ts';

/**
 * power: what a round budget can decide on a machine with a given noise,
 * for futility stopping, the smallest detectable change and the suggested
 * thresholds. All of it works on log values, where a benchmark's noise is
 * one number: `sigma`, the standard deviation of one round's log value as
 * the trimmed mean sees it (winsorized SD / (1 - 2 trim)), so that the
 * standard error of a side's trimmed mean after n rounds is sigma / sqrt(n)
 * and of the difference of two sides sigma sqrt(2 / n).
 *
 * The projections use the normal approximation of the estimate (Student t
 * quantiles for the final intervals). They steer sampling and advice; they
 * never decide a verdict, so their approximation cannot raise false alarms.
 */

/** DETECT_POWER is the probability at which a change counts as detectable: 80%, the usual design power. */
export const DETECT_POWER = 0.8;
/**
 * FUTILITY_POWER: a comparison whose chance of being decided by the end of
 * the budget, if the change is what the data say so far, is below this
 * (10%) stops sampling. Stopping for futility never claims anything, so it
 * cannot raise either error rate; it only gives up power, which the
 * measurements in docs/statistics.md show is small.
 */
export const FUTILITY_POWER = 0.1;

/**
 * noiseSigma is one side's per-round noise on log values (see the module
 * comment), or null when it cannot be told: fewer than 3 values, or a value
 * that is not positive.
 */
export function noiseSigma(values: readonly number[], trim = DEFAULT_TRIM): number | null {
  if (values.length < 3 || values.some((v) => !(v > 0 && v < Infinity))) return null;
  const s = trimmedSummary(values.map(Math.log), trim);
  return Number.isFinite(s.d) ? Math.sqrt(s.d * values.length) : null;
}

/** finalDf is the degrees of freedom of Yuen's test at n rounds per side with equal noise. */
export function finalDf(n: number, trim = DEFAULT_TRIM): number {
  const h = n - 2 * Math.floor(trim * n);
  return Math.max(1, 2 * (h - 1));
}

/**
 * costLogInterval turns a ratio interval into log cost terms: for a
 * higher-is-better metric the ratio is inverted, so a positive value is
 * always a slowdown.
 */
export function costLogInterval(ci: readonly [number, number], better: Comparison['better']): [number, number] {
  return better === 'lower' ? [Math.log(ci[0]), Math.log(ci[1])] : [-Math.log(ci[1]), -Math.log(ci[0])];
}

/**
 * boundOf is what an equivalence CI rules out: the smallest band +-bound it
 * lies inside (a fraction: exp of the farther log end, minus 1, so a CI of
 * [-1.2%, +3.1%] gives 0.031), and which side sets it.
 */
export function boundOf(equivalenceCi: readonly [number, number], better: Comparison['better']): { bound: number; side: 'slower' | 'faster' } {
  const [lo, hi] = costLogInterval(equivalenceCi, better);
  // A band +-b holds the CI when 1 - b < exp(lo) and exp(hi) < 1 + b.
  const slower = Math.expm1(hi);
  const faster = -Math.expm1(lo);
  return slower >= faster ? { bound: Math.max(0, slower), side: 'slower' } : { bound: Math.max(0, faster), side: 'faster' };
}

/**
 * FutilityContext is where sampling stands: rounds per side now and at the
 * budget, the two-sided level of this look and of the last (`alpha`,
 * `lastAlpha`), and the one-sided levels of the equivalence tests (default
 * the same).
 */
export interface FutilityContext {
  roundsPerSide: number;
  maxRoundsPerSide: number;
  alpha: number;
  lastAlpha: number;
  equivalenceAlpha?: number;
  lastEquivalenceAlpha?: number;
  threshold: number;
  /** futilityPower overrides {@link FUTILITY_POWER}. */
  futilityPower?: number;
}

/**
 * decisionChance is the probability that a comparison not yet decided will
 * be decided (unchanged, regressed or improved) at the end of the budget if
 * the true change is its current estimate: the final estimate is then
 * normal around it with the variance the remaining rounds add, and it must
 * land where the final intervals decide. Null when the comparison has no
 * equivalence CI to project from.
 */
export function decisionChance(c: Comparison, ctx: FutilityContext): number | null {
  if (c.equivalenceCi === null || c.equivalenceCi === undefined || c.ratio === null || !(c.ratio > 0)) return null;
  const [lo, hi] = costLogInterval(c.equivalenceCi, c.better);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return null;
  const n = ctx.roundsPerSide;
  const big = ctx.maxRoundsPerSide;
  if (!(big > n)) return 0;
  const estimate = c.better === 'lower' ? Math.log(c.ratio) : -Math.log(c.ratio);
  const halfWidth = (hi - lo) / 2;
  // The interval is a t interval at Yuen's df for n rounds per side (for the rank test a close stand-in).
  const seNow = halfWidth / studentTQuantile(1 - (ctx.equivalenceAlpha ?? ctx.alpha), finalDf(n));
  if (!(seNow > 0)) return 1;
  const seCap = seNow * Math.sqrt(n / big);
  const spread = seCap * Math.sqrt((big - n) / big);
  const df = finalDf(big);
  const wCap = studentTQuantile(1 - (ctx.lastEquivalenceAlpha ?? ctx.lastAlpha), df) * seCap;
  const dCap = studentTQuantile(1 - ctx.lastAlpha / 2, df) * seCap;
  const upper = Math.log1p(ctx.threshold);
  const lower = Math.log1p(-ctx.threshold);
  const cdf = (x: number) => normalCdf((x - estimate) / spread);
  const equivalent = lower + wCap < upper - wCap ? cdf(upper - wCap) - cdf(lower + wCap) : 0;
  const regressed = 1 - cdf(Math.max(dCap, upper));
  const improved = cdf(Math.min(-dCap, lower));
  return Math.min(1, equivalent + regressed + improved);
}

/** isFutile says whether a comparison not yet decided should stop sampling (see {@link FUTILITY_POWER}). */
export function isFutile(c: Comparison, ctx: FutilityContext): boolean {
  const chance = decisionChance(c, ctx);
  return chance !== null && chance < (ctx.futilityPower ?? FUTILITY_POWER);
}

/** BudgetContext: rounds per side at the budget, the last look's two-sided level (and one-sided equivalence level, default the same) and the threshold. */
export interface BudgetContext {
  maxRoundsPerSide: number;
  lastAlpha: number;
  lastEquivalenceAlpha?: number;
  threshold: number;
}

/**
 * detectableChange is the smallest slowdown (a fraction) that a benchmark
 * with per-round noise sigma is found `regressed` with probability
 * {@link DETECT_POWER} within the budget: the estimate must clear both the
 * significance bound and the threshold.
 */
export function detectableChange(sigma: number, ctx: BudgetContext): number {
  const se = sigma * Math.sqrt(2 / ctx.maxRoundsPerSide);
  const df = finalDf(ctx.maxRoundsPerSide);
  const needed = Math.max(studentTQuantile(1 - ctx.lastAlpha / 2, df) * se, Math.log1p(ctx.threshold)) + normalQuantile(DETECT_POWER) * se;
  return Math.expm1(needed);
}

/**
 * suggestedThreshold is the smallest threshold, rounded up to 0.5%, at
 * which a benchmark with per-round noise sigma that did not change is
 * decided `unchanged` with probability {@link DETECT_POWER} within the
 * budget: the equivalence interval's half-width plus the estimate's spread
 * must fit inside the band.
 */
export function suggestedThreshold(sigma: number, ctx: Omit<BudgetContext, 'threshold'>): number {
  const se = sigma * Math.sqrt(2 / ctx.maxRoundsPerSide);
  const df = finalDf(ctx.maxRoundsPerSide);
  const needed = (studentTQuantile(1 - (ctx.lastEquivalenceAlpha ?? ctx.lastAlpha), df) + normalQuantile(0.5 + DETECT_POWER / 2)) * se;
  return Math.ceil(Math.expm1(needed) * 200 - 1e-9) / 200;
}

/**
 * annotateBudget sets `detectable` and `suggestedThreshold` on every tested
 * comparison whose noise the machine knows (`sigmaOf` returns undefined for
 * the others), for a budget of `maxRoundsPerSide` tested at `lastAlpha`.
 */
export function annotateBudget(comparisons: readonly Comparison[], sigmaOf: (c: Comparison) => number | undefined, ctx: BudgetContext): void {
  for (const c of comparisons) {
    if (c.p === null || c.ratio === null) continue;
    const sigma = sigmaOf(c);
    if (sigma === undefined || !Number.isFinite(sigma)) continue;
    const threshold = c.threshold ?? ctx.threshold;
    c.detectable = detectableChange(sigma, { ...ctx, threshold });
    c.suggestedThreshold = suggestedThreshold(sigma, ctx);
  }
}
