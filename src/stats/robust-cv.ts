/**
 * robust-cv: the noise level of one benchmark's samples as a robust
 * coefficient of variation, 1.4826 MAD / |median|, where MAD is the median
 * absolute deviation from the median. The constant is 1 / Phi^-1(3/4) =
 * 1.482602218505602 exactly (scipy's `median_abs_deviation(scale="normal")`),
 * which makes it the standard deviation over the mean for normal data while
 * one wild outlier barely moves it. Checked against scipy to 1e-9.
 */

import { median } from './order-statistics.ts';

/** MAD_TO_SIGMA converts a MAD into a normal standard deviation: 1 / Phi^-1(0.75). */
export const MAD_TO_SIGMA = 1.482602218505602;

/**
 * robustCv is 1.4826 MAD / |median| (unitless; 0.05 means 5 % noise). Null
 * for no values or a zero median, where a relative spread means nothing;
 * 0 for a single value or identical values.
 */
export function robustCv(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const center = median(values);
  if (center === 0 || Number.isNaN(center)) return null;
  const mad = median(values.map((v) => Math.abs(v - center)));
  return (MAD_TO_SIGMA * mad) / Math.abs(center);
}
