/**
 * order-statistics: sorting, median and linear-interpolation quantiles, the
 * definitions numpy uses by default (`np.median`, `np.quantile(...,
 * method="linear")`, Hyndman & Fan type 7), so that every estimate in
 * src/stats agrees with the scipy/numpy references.
 */

/** sortedCopy returns the values sorted ascending in a fresh Float64Array. */
export function sortedCopy(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}

/**
 * quantileSorted is the type-7 (linear) q-quantile, q in [0, 1], of values
 * already sorted ascending; NaN for an empty array.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  if (lo >= n - 1) return sorted[n - 1];
  const t = h - lo;
  const a = sorted[lo];
  const b = sorted[lo + 1];
  // numpy's lerp: interpolate from the nearer end, which keeps it monotone.
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

/** quantile is the type-7 (linear) q-quantile of unsorted values; NaN for none. */
export function quantile(values: readonly number[], q: number): number {
  return quantileSorted(sortedCopy(values), q);
}

/** median is the middle value (mean of the two middle values for even n); NaN for none. */
export function median(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  return medianSorted(sorted);
}

/** medianSorted is the median of values already sorted ascending; NaN for none. */
export function medianSorted(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const mid = n >> 1;
  return n % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
