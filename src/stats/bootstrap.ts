/**
 * bootstrap: seeded percentile and BCa bootstrap confidence intervals of a
 * one-sample statistic (the median by default).
 *
 * The interval arithmetic follows `scipy.stats.bootstrap` (Efron &
 * Tibshirani, "An Introduction to the Bootstrap", 14.3 and 15.4): the
 * percentile CI is the type-7 quantiles alpha/2 and 1 - alpha/2 of the
 * bootstrap distribution; BCa shifts those levels by the bias correction
 * z0 = ndtri(mean of #{b < theta} and #{b <= theta} over B) and the jackknife
 * acceleration a = sum(U^3) / (6 sum(U^2)^1.5), U_i = (n-1)(mean - theta_(i)).
 * scipy draws its resamples with numpy's generator, so the two agree to 1e-9
 * when given the same resample indices: {@link bootstrapCiFromResamples}
 * takes them explicitly and is checked that way (scripts/stats-vectors.py).
 *
 * Where scipy returns NaN, this module stays defined: a degenerate jackknife
 * (all leave-one-out statistics equal) gives a = 0, and when theta lies
 * outside the bootstrap distribution (z0 infinite) BCa falls back to the
 * percentile interval and says so in `method`.
 *
 * {@link bootstrapCi} draws its own resamples from {@link xoshiro128}, a
 * xoshiro128** generator (Blackman & Vigna 2018) whose state is filled from
 * the seed by a Weyl sequence (increment 0x9e3779b9) through MurmurHash3's
 * fmix32, so a seed gives the same interval on every platform. Checked
 * against a Python implementation in scripts/stats-vectors.py.
 */

import { normalCdf, normalQuantile } from './normal.ts';
import { medianSorted, quantileSorted } from './order-statistics.ts';

/** Statistic maps a sample to one number; it may reorder its argument. */
export type Statistic = (sample: Float64Array) => number;

/** medianStatistic is the default bootstrap statistic. */
export const medianStatistic: Statistic = (sample) => medianSorted(sample.sort());

/** BootstrapMethod: `bca` (default) or `percentile`. */
export type BootstrapMethod = 'bca' | 'percentile';

/** BootstrapOptions: `alpha` gives a 1 - alpha CI (default 0.05); `statistic` defaults to the median. */
export interface BootstrapOptions {
  alpha?: number;
  method?: BootstrapMethod;
  statistic?: Statistic;
}

/** SeededBootstrapOptions adds the number of resamples (default 2000) and the seed (default 1). */
export interface SeededBootstrapOptions extends BootstrapOptions {
  resamples?: number;
  seed?: number;
}

/**
 * BootstrapCi: `estimate` is the statistic on the sample; `method` says
 * which interval was computed (`percentile` also when BCa had to fall back).
 */
export interface BootstrapCi {
  estimate: number;
  lower: number;
  upper: number;
  method: BootstrapMethod;
}

/** bootstrapCi draws `resamples` seeded resamples of `values` and returns the CI. Null for no values. */
export function bootstrapCi(values: readonly number[], options: SeededBootstrapOptions = {}): BootstrapCi | null {
  const n = values.length;
  if (n === 0) return null;
  const resamples = options.resamples ?? 2000;
  const next = xoshiro128(options.seed ?? 1);
  const indices: Uint32Array[] = [];
  for (let b = 0; b < resamples; b++) {
    const row = new Uint32Array(n);
    for (let i = 0; i < n; i++) row[i] = uniformInt(next, n);
    indices.push(row);
  }
  return bootstrapCiFromResamples(values, indices, options);
}

/**
 * bootstrapCiFromResamples computes the CI from explicit resamples: each row
 * of `indices` lists n indices into `values`. Null for no values or rows.
 */
export function bootstrapCiFromResamples(values: readonly number[], indices: readonly ArrayLike<number>[], options: BootstrapOptions = {}): BootstrapCi | null {
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`bootstrapCi: alpha must be in (0, 1), got ${alpha}`);
  const statistic = options.statistic ?? medianStatistic;
  const n = values.length;
  const resamples = indices.length;
  if (n === 0 || resamples === 0) return null;
  const estimate = statistic(Float64Array.from(values));
  const dist = new Float64Array(resamples);
  const buffer = new Float64Array(n);
  for (let b = 0; b < resamples; b++) {
    const row = indices[b];
    for (let i = 0; i < n; i++) buffer[i] = values[row[i]];
    dist[b] = statistic(buffer);
  }
  let levels: [number, number] = [alpha / 2, 1 - alpha / 2];
  let method: BootstrapMethod = 'percentile';
  if ((options.method ?? 'bca') === 'bca') {
    const bca = bcaLevels(values, statistic, estimate, dist, alpha / 2);
    if (bca) {
      levels = bca;
      method = 'bca';
    }
  }
  dist.sort();
  return { estimate, lower: quantileSorted(dist, levels[0]), upper: quantileSorted(dist, levels[1]), method };
}

function bcaLevels(values: readonly number[], statistic: Statistic, estimate: number, dist: Float64Array, tail: number): [number, number] | null {
  const resamples = dist.length;
  let below = 0;
  let atOrBelow = 0;
  for (const v of dist) {
    if (v < estimate) below++;
    if (v <= estimate) atOrBelow++;
  }
  const z0 = normalQuantile((below + atOrBelow) / (2 * resamples));
  if (!Number.isFinite(z0)) return null;

  const n = values.length;
  const jack = new Float64Array(n);
  const leaveOneOut = new Float64Array(n - 1);
  for (let i = 0; i < n; i++) {
    let k = 0;
    for (let j = 0; j < n; j++) if (j !== i) leaveOneOut[k++] = values[j];
    jack[i] = statistic(leaveOneOut);
  }
  let mean = 0;
  for (const v of jack) mean += v;
  mean /= n;
  let num = 0;
  let den = 0;
  for (const v of jack) {
    const u = (n - 1) * (mean - v);
    num += u * u * u;
    den += u * u;
  }
  num /= n ** 3;
  den /= n ** 2;
  const a = den > 0 ? ((1 / 6) * num) / den ** 1.5 : 0;

  const zAlpha = normalQuantile(tail);
  const num1 = z0 + zAlpha;
  const num2 = z0 - zAlpha;
  const level1 = normalCdf(z0 + num1 / (1 - a * num1));
  const level2 = normalCdf(z0 + num2 / (1 - a * num2));
  if (!Number.isFinite(level1) || !Number.isFinite(level2)) return null;
  return [level1, level2];
}

/**
 * xoshiro128 returns a xoshiro128** generator of uniform doubles in [0, 1)
 * (32 random bits each), its 128-bit state filled from `seed` (any number;
 * its low 32 bits are used).
 */
export function xoshiro128(seed: number): () => number {
  const next = xoshiro128Uint32(seed);
  return () => next() / 4294967296;
}

/** xoshiro128Uint32 is {@link xoshiro128} returning the raw uint32 outputs. */
export function xoshiro128Uint32(seed: number): () => number {
  let s = seed >>> 0;
  const fill = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return xoshiro128FromState(fill(), fill(), fill(), fill());
}

/** xoshiro128FromState is the raw xoshiro128** uint32 generator from a given 128-bit state (not all zero). */
export function xoshiro128FromState(s0: number, s1: number, s2: number, s3: number): () => number {
  let a = s0 >>> 0;
  let b = s1 >>> 0;
  let c = s2 >>> 0;
  let d = s3 >>> 0;
  return () => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d >>> 0, 11);
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    return result;
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

// Rejection sampling keeps every index exactly equally likely.
function uniformInt(next: () => number, n: number): number {
  const limit = 4294967296 - (4294967296 % n);
  for (;;) {
    const r = next() * 4294967296;
    if (r < limit) return r % n;
  }
}
