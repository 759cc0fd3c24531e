/**
 * bimodality: a hygiene check that one benchmark's samples come from one
 * mode, not two (e.g. two code layouts, a frequency step, a cache that is
 * warm in some rounds only), via Sarle's bimodality coefficient
 *   BC = (G1^2 + 1) / (G2 + 3 (n-1)^2 / ((n-2)(n-3)))
 * with G1, G2 the bias-corrected sample skewness and excess kurtosis (as
 * `scipy.stats.skew(bias=False)` and `kurtosis(bias=False)`, checked to
 * 1e-9 in scripts/stats-vectors.py). BC is 1/3 for normal data, 5/9 for a
 * uniform one and approaches 1 for two separated modes; above 5/9 suggests
 * bimodality (SAS Institute 1989; Pfister et al. 2013).
 *
 * BC alone also fires on a few far outliers (one value far out gives skew^2
 * close to the kurtosis, so BC near 1), which timings have all the time and
 * which are not a second mode. So the verdict also needs the minor cluster
 * of the best two-group split (the cut of the sorted sample minimizing the
 * within-group sum of squares, 1-D 2-means) to hold at least
 * {@link BIMODALITY_MIN_SHARE} of the values. Chosen over a KDE or dip test
 * because it needs no bandwidth or lookup table and is cheap for thousands
 * of benchmarks. Known blind spots: flat (uniform-like) samples sit right at
 * the threshold, and a strongly skewed light-tailed unimodal sample can
 * cross it. Samples below {@link BIMODALITY_MIN_N} are never flagged.
 */

/** BIMODALITY_THRESHOLD is 5/9, the BC of a uniform distribution. */
export const BIMODALITY_THRESHOLD = 5 / 9;

/** BIMODALITY_MIN_N is the smallest sample that can be flagged bimodal (10 values). */
export const BIMODALITY_MIN_N = 10;

/** BIMODALITY_MIN_SHARE is the smallest share of values (0.15) the minor mode must hold. */
export const BIMODALITY_MIN_SHARE = 0.15;

/**
 * Bimodality: `coefficient` is BC (null when undefined: n < 4 or all values
 * equal), with the bias-corrected `skewness` and excess `kurtosis` it comes
 * from; `minorShare` the share of values in the smaller group of the best
 * two-group split (0 when undefined); `bimodal` is BC > 5/9 and minorShare >=
 * {@link BIMODALITY_MIN_SHARE}, with at least {@link BIMODALITY_MIN_N} values.
 */
export interface Bimodality {
  coefficient: number | null;
  skewness: number | null;
  kurtosis: number | null;
  minorShare: number;
  bimodal: boolean;
}

/** bimodality computes Sarle's bimodality coefficient of values and the verdict. */
export function bimodality(values: readonly number[]): Bimodality {
  const n = values.length;
  const none = { coefficient: null, skewness: null, kurtosis: null, minorShare: 0, bimodal: false };
  if (n < 4) return none;
  let mean = 0;
  for (const v of values) mean += v;
  mean /= n;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (const v of values) {
    const d = v - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  m2 /= n;
  m3 /= n;
  m4 /= n;
  // Relative to the mean's magnitude, a spread at rounding level is no spread.
  if (!(m2 > (Number.EPSILON * mean) ** 2 * 16) || m2 === 0) return none;
  const skewness = ((Math.sqrt((n - 1) * n) / (n - 2)) * m3) / m2 ** 1.5;
  const kurtosis = ((n * n - 1) * (m4 / (m2 * m2)) - 3 * (n - 1) ** 2) / ((n - 2) * (n - 3));
  const coefficient = (skewness * skewness + 1) / (kurtosis + (3 * (n - 1) ** 2) / ((n - 2) * (n - 3)));
  const minorShare = minorClusterShare(values);
  const bimodal = n >= BIMODALITY_MIN_N && coefficient > BIMODALITY_THRESHOLD && minorShare >= BIMODALITY_MIN_SHARE;
  return { coefficient, skewness, kurtosis, minorShare, bimodal };
}

// The best cut of the sorted sample into two groups by within-group sum of
// squares, from prefix sums: O(n log n) for the sort, O(n) for the scan.
function minorClusterShare(values: readonly number[]): number {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const shift = sorted[n >> 1];
  let total = 0;
  let totalSq = 0;
  for (const v of sorted) {
    total += v - shift;
    totalSq += (v - shift) ** 2;
  }
  let left = 0;
  let leftSq = 0;
  let best = Infinity;
  let bestCut = 0;
  for (let k = 1; k < n; k++) {
    const v = sorted[k - 1] - shift;
    left += v;
    leftSq += v * v;
    const right = total - left;
    const within = leftSq - (left * left) / k + (totalSq - leftSq) - (right * right) / (n - k);
    if (within < best) {
      best = within;
      bestCut = k;
    }
  }
  return Math.min(bestCut, n - bestCut) / n;
}
