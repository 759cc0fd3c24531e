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

/**
 * selectRanks rearranges `values` in place so that each requested 0-based
 * rank holds the value a full sort would put there (quickselect, expected
 * linear time). Hodges-Lehmann needs three or four order statistics of n1*n2
 * pairwise differences; selecting them is several times faster than sorting.
 */
export function selectRanks(values: Float64Array, ranks: readonly number[]): void {
  const wanted = [...new Set(ranks)].filter((r) => r >= 0 && r < values.length).sort((a, b) => a - b);
  let from = 0;
  for (const rank of wanted) {
    select(values, rank, from, values.length - 1);
    from = rank + 1;
  }
}

function select(a: Float64Array, k: number, left: number, right: number): void {
  while (right > left) {
    // Median of three as the pivot keeps sorted or reversed input linear.
    const mid = (left + right) >>> 1;
    if (a[mid] < a[left]) swap(a, mid, left);
    if (a[right] < a[left]) swap(a, right, left);
    if (a[right] < a[mid]) swap(a, right, mid);
    const pivot = a[mid];
    let i = left;
    let j = right;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        swap(a, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return;
  }
}

function swap(a: Float64Array, i: number, j: number): void {
  const t = a[i];
  a[i] = a[j];
  a[j] = t;
}
