/**
 * sequential-alpha: how adaptive sampling splits its error budget alpha over
 * the looks it takes (by default after 10, 15, 20, 30 and 40 rounds per
 * side), so that stopping at the first decisive look does not inflate the
 * false-alarm rate.
 *
 * Look k is tested at alpha_k = f(t_k) - f(t_(k-1)), t_k = looks[k] /
 * looks[last] the information fraction, with a Lan-DeMets spending function
 * f (Lan & DeMets 1983). The alpha_k sum to alpha, so by the union bound
 * P(any false rejection) <= sum alpha_k = alpha whatever the correlation
 * between looks and whatever valid test runs at each look: the guarantee
 * needs no multivariate-normal integration, at the price of being somewhat
 * conservative (looks on nested samples are strongly correlated). A seeded
 * simulation under the null checks it (test/stats/sequential-alpha.test.ts).
 *
 * Default spending is Pocock-type, f(t) = alpha ln(1 + (e - 1) t): it spends
 * enough early (about 36 % of alpha at 10 of 40 rounds) that clear changes
 * stop at the first look, which is what adaptive sampling is for. The
 * O'Brien-Fleming type f(t) = 2 - 2 Phi(z_(1-alpha/2) / sqrt(t)) keeps almost
 * everything for the last look; `bonferroni` splits alpha equally.
 */

import { normalCdf, normalQuantile } from './normal.ts';

/** DEFAULT_LOOKS are the rounds per side at which adaptive sampling looks. */
export const DEFAULT_LOOKS: readonly number[] = [10, 15, 20, 30, 40];

/** SpendingFunction names the alpha-spending shape. */
export type SpendingFunction = 'pocock' | 'obrien-fleming' | 'bonferroni';

/** SequentialAlphaOptions: overall `alpha` (default 0.05), `looks` (rounds per side, increasing), `spending` (default `pocock`). */
export interface SequentialAlphaOptions {
  alpha?: number;
  looks?: readonly number[];
  spending?: SpendingFunction;
}

/**
 * sequentialAlpha returns the significance level for each look, in look
 * order; they are positive and sum to alpha (the last one absorbs rounding so
 * the sum never exceeds it). Throws RangeError for alpha outside (0, 1) or
 * looks that are empty, non-positive or not increasing.
 */
export function sequentialAlpha(options: SequentialAlphaOptions = {}): number[] {
  const alpha = options.alpha ?? 0.05;
  const looks = options.looks ?? DEFAULT_LOOKS;
  const spending = options.spending ?? 'pocock';
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`sequentialAlpha: alpha must be in (0, 1), got ${alpha}`);
  if (looks.length === 0 || !(looks[0] > 0) || looks.some((l, i) => i > 0 && !(l > looks[i - 1]))) {
    throw new RangeError(`sequentialAlpha: looks must be positive and increasing, got [${looks.join(', ')}]`);
  }
  const last = looks[looks.length - 1];
  const spent = (t: number): number => {
    switch (spending) {
      case 'pocock':
        return alpha * Math.log(1 + (Math.E - 1) * t);
      case 'obrien-fleming':
        return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
      case 'bonferroni':
        return alpha * t;
    }
  };
  const out: number[] = [];
  let previous = 0;
  for (let k = 0; k < looks.length; k++) {
    const cumulative = k === looks.length - 1 ? alpha : Math.min(alpha, spent(looks[k] / last));
    const level = spending === 'bonferroni' ? alpha / looks.length : cumulative - previous;
    out.push(level);
    previous = cumulative;
  }
  const total = out.reduce((a, b) => a + b, 0);
  if (total > alpha) out[out.length - 1] -= total - alpha;
  return out;
}
