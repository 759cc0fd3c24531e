/**
 * student-t: Student's t distribution with real (Welch-Satterthwaite)
 * degrees of freedom: survival function and quantile, as
 * `scipy.stats.t.sf` / `scipy.stats.t.ppf`, which Yuen's test needs for its
 * p-value and its confidence interval.
 *
 * The tail is the regularized incomplete beta I_x(df/2, 1/2) at
 * x = df / (df + t^2) (the continued fraction in scan/student-t.ts, shared
 * rather than copied: both are pure). The quantile inverts it by Newton steps
 * on the density from a normal start, guarded by bisection, to about 1e-12
 * relative: far below what a CI bound displayed to 0.1 % can show.
 */

import { logGamma, regularizedBeta } from '../scan/student-t.ts';
import { normalQuantile, normalSf } from './normal.ts';

/** studentTSf is P(T > t) for T ~ t(df), df > 0 (Infinity gives the normal tail). */
export function studentTSf(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`studentTSf: df must be positive, got ${df}`);
  if (Number.isNaN(t)) return NaN;
  if (t === Infinity) return 0;
  if (t === -Infinity) return 1;
  if (df === Infinity) return normalSf(t);
  const tail = 0.5 * regularizedBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? tail : 1 - tail;
}

/** studentTPdf is the density of t(df) at t. */
export function studentTPdf(t: number, df: number): number {
  const logC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  return Math.exp(logC - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/**
 * studentTQuantile is the p-quantile of t(df) (scipy's `t.ppf(p, df)`), for
 * p in (0, 1) and df > 0. Throws RangeError outside that domain.
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df must be positive, got ${df}`);
  if (p === 0.5) return 0;
  // Solve in the upper tail and mirror: sf keeps precision where cdf would round to 1.
  const upper = p > 0.5 ? 1 - p : p;
  const sign = p > 0.5 ? 1 : -1;
  if (df === Infinity) return sign * normalQuantile(1 - upper);
  // Bracket [lo, hi] with sf(lo) >= upper >= sf(hi).
  let lo = 0;
  let hi = Math.max(1, normalQuantile(1 - upper));
  while (studentTSf(hi, df) > upper) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) return sign * Infinity;
  }
  let x = Math.min(Math.max(normalQuantile(1 - upper), lo), hi);
  for (let i = 0; i < 200; i++) {
    const f = studentTSf(x, df) - upper;
    if (f > 0) lo = x;
    else hi = x;
    // f = sf(x) - target; d sf / dx = -pdf(x).
    let next = x + f / studentTPdf(x, df);
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - x) <= 1e-14 * Math.max(1, Math.abs(x))) {
      x = next;
      break;
    }
    x = next;
  }
  return sign * x;
}
