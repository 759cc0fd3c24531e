/**
 * dip-test: Hartigan's dip test of unimodality, the hygiene check that one
 * benchmark's samples come from one mode, with a p-value so that a suite of
 * thousands of sides can be controlled like the verdicts are.
 *
 * The dip is the largest distance (sup norm) between the empirical CDF and
 * the closest unimodal CDF (Hartigan & Hartigan 1985, Ann. Statist. 13:70-84),
 * computed by the greatest convex minorant / least concave majorant
 * iteration of algorithm AS 217 (Hartigan 1985, Appl. Statist. 34:320-325),
 * checked to 1e-12 against the `diptest` Python package in
 * scripts/dip-vectors.py. It lies in [1/(2n), 1/4].
 *
 * Why the dip: among unimodal distributions the uniform is the least
 * favourable one for it (asymptotically; Hartigan & Hartigan 1985),
 * so a p-value from uniform samples is valid (conservative) for every
 * unimodal noise law: heavy tails, skew and preemption outliers included,
 * which is what benchmark timings have. Skewness/kurtosis rules have no such
 * guarantee and fire on heavy tails.
 *
 * The p-value interpolates a table of the uniform null distribution of
 * sqrt(n) * dip (src/stats/dip-null-table.ts, simulated by
 * scripts/dip-null-table.ts, quantiles to 0.9999). Beyond it the tail is
 * extended as exp(-k t^2), the shape the simulated tail has, with k fitted
 * on the quantiles from 0.99 on and shrunk by 0.85, so that the p-values
 * of 1e-6 and below that Benjamini-Hochberg needs across tens of thousands
 * of sides exist. Checked: on 3 million uniform samples of 30, P(p < 1e-5)
 * was 8.7e-6 and P(p < 1e-6) 1.3e-6 (4 samples).
 *
 * Power is the price of validity for every unimodal law: two clusters 10%
 * apart give p below 1e-6 at 30 values when balanced, but a 30% minor
 * cluster needs about 60 values for p below 1e-4.
 */

import { DIP_NULL_PROBS, DIP_NULL_QUANTILES, DIP_NULL_SIZES, DIP_NULL_TAIL } from './dip-null-table.ts';

/** DipTest: `dip` the statistic in [1/(2n), 1/4] (0 for n < 4 or all values equal), `p` its upper-tail p-value under the least favourable unimodal law. */
export interface DipTest {
  dip: number;
  p: number;
}

/**
 * dipStatistic computes the dip of `sorted` (ascending; not checked).
 * O(n) per pass of the modal-interval iteration, a few passes in practice.
 */
export function dipStatistic(sorted: ArrayLike<number>): number {
  const n = sorted.length;
  if (n < 4 || sorted[n - 1] === sorted[0]) return 0;
  const x = sorted;
  // Hull links on the points (x_i, i): prev[j] is the vertex before j on the
  // convex minorant of points 0..j; next[k] the vertex after k on the
  // concave majorant of points k..n-1. Slopes are compared cross-multiplied.
  const prev = new Int32Array(n);
  prev[0] = 0;
  for (let j = 1; j < n; j++) {
    let p = j - 1;
    while (p > 0) {
      const pp = prev[p];
      if ((x[j] - x[p]) * (p - pp) < (x[p] - x[pp]) * (j - p)) break;
      p = pp;
    }
    prev[j] = p;
  }
  const next = new Int32Array(n);
  next[n - 1] = n - 1;
  for (let k = n - 2; k >= 0; k--) {
    let q = k + 1;
    while (q < n - 1) {
      const qq = next[q];
      if ((x[k] - x[q]) * (q - qq) < (x[q] - x[qq]) * (k - q)) break;
      q = qq;
    }
    next[k] = q;
  }

  // Distances are in counts (n * F); the ECDF's left limit at point i is i,
  // its value i + 1, so a flat step contributes at least 1.
  const gcm = new Int32Array(n + 1);
  const lcm = new Int32Array(n + 1);
  let low = 0;
  let high = n - 1;
  let best = 1;
  for (;;) {
    // GCM vertices from high down to low, LCM vertices from low up to high.
    let gx = 0;
    gcm[0] = high;
    while (gcm[gx] > low) {
      gcm[gx + 1] = prev[gcm[gx]];
      gx++;
    }
    let lx = 0;
    lcm[0] = low;
    while (lcm[lx] < high) {
      lcm[lx + 1] = next[lcm[lx]];
      lx++;
    }
    // Largest vertical gap between the two hulls over [low, high], and the
    // vertices (ig on the GCM, ih on the LCM) where it is reached.
    let ig = gx;
    let ih = lx;
    let gap = 0;
    if (gx === 1 && lx === 1) {
      gap = 1;
    } else {
      let ix = gx - 1;
      let iv = 1;
      do {
        const g = gcm[ix];
        const l = lcm[iv];
        if (g > l) {
          const g1 = gcm[ix + 1];
          const d = l - g1 + 1 - ((x[l] - x[g1]) * (g - g1)) / (x[g] - x[g1]);
          iv++;
          if (d >= gap) {
            gap = d;
            ig = ix + 1;
            ih = iv - 1;
          }
        } else {
          const l1 = lcm[iv - 1];
          const d = ((x[g] - x[l1]) * (l - l1)) / (x[l] - x[l1]) - (g - l1 - 1);
          ix--;
          if (d >= gap) {
            gap = d;
            ig = ix + 1;
            ih = iv;
          }
        }
        if (ix < 0) ix = 0;
        if (iv > lx) iv = lx;
      } while (gcm[ix] !== lcm[iv]);
    }
    if (gap < best) break;

    // Worst fit of the ECDF to the GCM left of the new modal interval, and
    // to the LCM right of it.
    let left = 0;
    for (let j = ig; j < gx; j++) {
      const a = gcm[j + 1];
      const b = gcm[j];
      let worst = 1;
      if (b - a > 1 && x[b] !== x[a]) {
        const slope = (b - a) / (x[b] - x[a]);
        for (let r = a; r <= b; r++) worst = Math.max(worst, r - a + 1 - (x[r] - x[a]) * slope);
      }
      left = Math.max(left, worst);
    }
    let right = 0;
    for (let k = ih; k < lx; k++) {
      const a = lcm[k];
      const b = lcm[k + 1];
      let worst = 1;
      if (b - a > 1 && x[b] !== x[a]) {
        const slope = (b - a) / (x[b] - x[a]);
        for (let r = a; r <= b; r++) worst = Math.max(worst, (x[r] - x[a]) * slope - (r - a - 1));
      }
      right = Math.max(right, worst);
    }
    best = Math.max(best, left, right);
    const newLow = gcm[ig];
    const newHigh = lcm[ih];
    // Without progress the iteration would cycle forever (Maechler's 1994 fix).
    if (newLow === low && newHigh === high) break;
    low = newLow;
    high = newHigh;
  }
  return best / (2 * n);
}

/**
 * dipTest sorts a copy of values, computes the dip and its p-value. Fewer
 * than 4 values, or all equal: dip 0, p 1.
 *
 * The dip assumes a continuous law, but timings and counters come rounded
 * (integer counts, a timer's resolution): k tied values are a point mass,
 * and two neighbouring levels would look like two modes. So ties are first
 * spread evenly over a cell as wide as the typical gap between distinct
 * values, which turns a unimodal distribution on a grid into a unimodal
 * histogram density, and leaves untied values alone.
 */
export function dipTest(values: readonly number[]): DipTest {
  const sorted = spreadTies(Float64Array.from(values).sort());
  const dip = dipStatistic(sorted);
  return { dip, p: dip === 0 ? 1 : dipPValue(dip, sorted.length) };
}

function spreadTies(sorted: Float64Array): Float64Array {
  const n = sorted.length;
  let tied = false;
  for (let i = 1; i < n && !tied; i++) tied = sorted[i] === sorted[i - 1];
  if (!tied) return sorted;
  const gaps: number[] = [];
  for (let i = 1; i < n; i++) if (sorted[i] > sorted[i - 1]) gaps.push(sorted[i] - sorted[i - 1]);
  if (gaps.length === 0 || gaps.length === n - 1) return sorted;
  gaps.sort((a, b) => a - b);
  const cell = gaps[gaps.length >> 1];
  for (let start = 0; start < n; ) {
    let end = start + 1;
    while (end < n && sorted[end] === sorted[start]) end++;
    const t = end - start;
    if (t > 1) {
      const v = sorted[start];
      for (let i = 0; i < t; i++) sorted[start + i] = v + cell * ((i + 0.5) / t - 0.5);
    }
    start = end;
  }
  return sorted.sort();
}

/**
 * dipPValue is P(dip >= d) for n uniform values: linear interpolation of
 * sqrt(n) * dip quantiles in probability and in n (log scale) within the
 * table, the fitted Gaussian tail beyond its deepest quantile; sizes above
 * the table use its largest size (sqrt(n) * dip has converged there).
 */
export function dipPValue(d: number, n: number): number {
  if (n < 4) return 1;
  const t = Math.sqrt(n) * d;
  const sizes = DIP_NULL_SIZES;
  if (n <= sizes[0]) return pFromRow(t, DIP_NULL_QUANTILES[0], DIP_NULL_TAIL[0]);
  const top = sizes.length - 1;
  if (n >= sizes[top]) return pFromRow(t, DIP_NULL_QUANTILES[top], DIP_NULL_TAIL[top]);
  let i = 0;
  while (sizes[i + 1] < n) i++;
  const w = (Math.log(n) - Math.log(sizes[i])) / (Math.log(sizes[i + 1]) - Math.log(sizes[i]));
  const blend = (a: number, b: number) => a + w * (b - a);
  const row = DIP_NULL_QUANTILES[i].map((q, k) => blend(q, DIP_NULL_QUANTILES[i + 1][k]));
  return pFromRow(t, row, blend(DIP_NULL_TAIL[i], DIP_NULL_TAIL[i + 1]));
}

// quantiles[k] is the sqrt(n) * dip value with P(below) = DIP_NULL_PROBS[k];
// beyond the last one, log P falls by tail * (t^2 - t_last^2).
function pFromRow(t: number, quantiles: readonly number[], tail: number): number {
  const probs = DIP_NULL_PROBS;
  const last = quantiles.length - 1;
  if (t <= quantiles[0]) return 1;
  if (t > quantiles[last]) return (1 - probs[last]) * Math.exp(-tail * (t * t - quantiles[last] ** 2));
  let k = 0;
  while (quantiles[k + 1] < t) k++;
  const span = quantiles[k + 1] - quantiles[k];
  const w = span > 0 ? (t - quantiles[k]) / span : 1;
  return 1 - (probs[k] + w * (probs[k + 1] - probs[k]));
}
