/**
 * geometric-mean: the suite-level summary of many ratios, exp(mean(log r)),
 * so that a 2x slowdown and a 2x speedup cancel. Agrees with
 * `scipy.stats.gmean` to 1e-9 (scripts/stats-vectors.py).
 */

/**
 * geometricMean of positive finite ratios (unitless). Returns null for an
 * empty list or when any ratio is <= 0 or not finite, where the log mean is
 * undefined (scipy returns 0, NaN or a warning instead).
 */
export function geometricMean(ratios: readonly number[]): number | null {
  if (ratios.length === 0) return null;
  let sum = 0;
  for (const r of ratios) {
    if (!(r > 0 && r < Infinity)) return null;
    sum += Math.log(r);
  }
  return Math.exp(sum / ratios.length);
}
