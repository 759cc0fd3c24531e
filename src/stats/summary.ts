/**
 * summary: one import for the per-sample and per-suite summaries the compare
 * and hygiene code need. Each lives in its own file, named after it, with
 * its method and reference documented there.
 */

export { geometricMean } from './geometric-mean.ts';
export { robustCv, MAD_TO_SIGMA } from './robust-cv.ts';
export { bimodality, BIMODALITY_THRESHOLD, BIMODALITY_MIN_N } from './bimodality.ts';
export type { Bimodality } from './bimodality.ts';
export { mannKendall } from './mann-kendall.ts';
export type { MannKendallOptions, MannKendallResult } from './mann-kendall.ts';
