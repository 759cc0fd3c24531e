/**
 * classify: the bisect oracle. Given the samples of one probed commit and
 * the samples of the good and bad reference commits, it says whether the
 * probe looks like good, like bad, is beyond either, or that it cannot tell
 * yet ("unknown": measure more).
 *
 * Two pieces of evidence must agree:
 *
 * - A Wald sequential probability ratio test between the two references,
 *   on log values, normal approximation: H0 mean = median(log good), H1 mean
 *   = median(log bad), sigma the pooled robust (MAD) standard deviation of
 *   the two references. The log-likelihood ratio sum (delta / sigma^2)(x -
 *   midpoint) crosses log((1 - beta) / alpha) for bad or log(beta / (1 -
 *   alpha)) for good. Each sample's standardized distance from the midpoint
 *   is clipped to |delta| / 2 sigma + 2, so one outlier (a page fault, a
 *   context switch) cannot decide a probe on its own. SPRT is valid under
 *   repeated looks, which is what lets "unknown" simply buy more samples.
 * - Hodges-Lehmann CIs (Mann-Whitney, level 1 - ciAlpha) of the probe
 *   against each reference: "bad" needs the probe significantly away from
 *   good toward bad, "good" significantly away from bad toward good.
 *
 * A probe away from both references toward each other by at least a
 * quarter of their distance (and the threshold), each at level ciAlpha / 5,
 * is a partial shift (the regression is spread over several merges): "bad"
 * with `partial` set, since it already contains some of the shift. A probe
 * significantly beyond a reference, by more than max(threshold, a quarter of
 * the reference shift), is `beyond-bad` or `beyond-good`.
 */

import { ratioWithCi } from '../stats/hodges-lehmann.ts';
import { median } from '../stats/order-statistics.ts';
import { MAD_TO_SIGMA } from '../stats/robust-cv.ts';

/** OracleVerdict is the oracle's answer for one probe. */
export type OracleVerdict = 'good' | 'bad' | 'unknown' | 'beyond-good' | 'beyond-bad';

/**
 * OracleOptions: `alpha` and `beta` are the SPRT's error rates (default
 * 0.01 each: the chance of calling a good commit bad and a bad one good);
 * `ciAlpha` (0.05) the level of the Hodges-Lehmann guards; `threshold`
 * (0.02) the smallest shift, as a fraction, that counts as a partial shift
 * or as beyond a reference.
 */
export interface OracleOptions {
  alpha?: number;
  beta?: number;
  ciAlpha?: number;
  threshold?: number;
}

/**
 * Classification: the verdict with its evidence. `llr` is the SPRT log
 * likelihood ratio (positive toward bad); `ratio`/`ratioCi` the probe over
 * the good reference (null when values cannot be logged); `partial` marks a
 * probe between the references.
 */
export interface Classification {
  verdict: OracleVerdict;
  n: number;
  llr: number;
  ratio: number | null;
  ratioCi: [number, number] | null;
  partial: boolean;
}

/** classify is {@link classifyDetailed}'s verdict alone. */
export function classify(samples: readonly number[], good: readonly number[], bad: readonly number[], options: OracleOptions = {}): OracleVerdict {
  return classifyDetailed(samples, good, bad, options).verdict;
}

/**
 * classifyDetailed classifies a probe. Values must be positive (times,
 * rates): anything else gives `unknown` with null ratio. Fewer than 2
 * samples on any side give `unknown`.
 */
export function classifyDetailed(samples: readonly number[], good: readonly number[], bad: readonly number[], options: OracleOptions = {}): Classification {
  const alpha = options.alpha ?? 0.01;
  const beta = options.beta ?? 0.01;
  const ciAlpha = options.ciAlpha ?? 0.05;
  const threshold = options.threshold ?? 0.02;
  const unknown: Classification = { verdict: 'unknown', n: samples.length, llr: 0, ratio: null, ratioCi: null, partial: false };
  if (samples.length < 2 || good.length < 2 || bad.length < 2) return unknown;
  const x = logs(samples);
  const g = logs(good);
  const b = logs(bad);
  if (x === null || g === null || b === null) return unknown;

  const muG = median(g);
  const muB = median(b);
  const delta = muB - muG;
  const d = Math.sign(delta) || 1;
  const sigma = Math.max(pooledSigma(g, b), Math.abs(delta) * 1e-3, 1e-12);
  const mid = (muG + muB) / 2;
  const clip = Math.abs(delta) / (2 * sigma) + 2;
  let llr = 0;
  for (const v of x) {
    const z = (d * (v - mid)) / sigma;
    llr += (Math.abs(delta) / sigma) * Math.max(-clip, Math.min(clip, z));
  }

  const vsGood = ratioWithCi(good, samples, ciAlpha);
  const vsBad = ratioWithCi(bad, samples, ciAlpha);
  if (vsGood === null || vsBad === null) return unknown;
  const fromGood = d * Math.log(vsGood.ratio); // > 0: toward bad
  const fromBad = d * Math.log(vsBad.ratio); // > 0: beyond bad
  const margin = Math.max(Math.log1p(threshold), Math.abs(delta) / 4);
  const awayFromGood = vsGood.excludesOne && fromGood > 0;
  const awayFromBad = vsBad.excludesOne && fromBad < 0;
  const out = { n: samples.length, llr, ratio: vsGood.ratio, ratioCi: [vsGood.lower, vsGood.upper] as [number, number], partial: false };

  if (vsBad.excludesOne && fromBad > margin) return { ...out, verdict: 'beyond-bad' };
  if (vsGood.excludesOne && fromGood < -margin) return { ...out, verdict: 'beyond-good' };
  // Between the references: a quarter of the shift or more away from each,
  // at a stricter level than the guards, since nothing else backs it.
  const strict = ciAlpha / 5;
  const quarter = Math.max(Math.log1p(threshold), Math.abs(delta) / 4);
  if (vsGood.p <= strict && vsBad.p <= strict && fromGood > quarter && fromBad < -quarter) return { ...out, verdict: 'bad', partial: true };
  const upper = Math.log((1 - beta) / alpha);
  const lower = Math.log(beta / (1 - alpha));
  if (llr >= upper && awayFromGood) return { ...out, verdict: 'bad' };
  if (llr <= lower && awayFromBad) return { ...out, verdict: 'good' };
  return { ...out, verdict: 'unknown' };
}

function logs(values: readonly number[]): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!(v > 0 && v < Infinity)) return null;
    out.push(Math.log(v));
  }
  return out;
}

function robustSigma(values: readonly number[]): number {
  const center = median(values);
  return MAD_TO_SIGMA * median(values.map((v) => Math.abs(v - center)));
}

/** pooledSigma is the pooled robust standard deviation of two samples, weighted by degrees of freedom. */
function pooledSigma(a: readonly number[], b: readonly number[]): number {
  const sa = robustSigma(a);
  const sb = robustSigma(b);
  return Math.sqrt(((a.length - 1) * sa * sa + (b.length - 1) * sb * sb) / (a.length + b.length - 2));
}
