import { hodgesLehmannLevels, ratioWithCis } from '../stats/hodges-lehmann.ts';
import { median } from '../stats/order-statistics.ts';
import { yuenInterval, yuenWelch } from '../stats/yuen.ts';

/**
 * ChangeTest names the two-sample test behind a comparison:
 * - `mann-whitney` (the default): the two-sided Mann-Whitney U test with
 *   the Hodges-Lehmann estimate of the shift of log values and its
 *   distribution-free CI; what compare.py and benchstat test with.
 * - `yuen`: Yuen's 20%-trimmed Welch t on log values, the ratio exp(difference
 *   of trimmed means) with its t interval. Measured on this project's noise
 *   (bench/quality.ts, bench/round-design.ts; numbers in docs/statistics.md)
 *   it did not beat the rank test: on the captured corpus it found fewer 5%
 *   shifts and decided fewer A/A comparisons unchanged, and on the demo
 *   suite's rounds the two were level. So the rank test stays the default
 *   and Yuen's test is there for noise where it does win (a tight bulk with
 *   rare outliers), `--test yuen`.
 */
export type ChangeTest = 'yuen' | 'mann-whitney';

/** DEFAULT_TEST is the test of PR comparisons (compare, run). */
export const DEFAULT_TEST: ChangeTest = 'mann-whitney';

/**
 * ChangeEstimate is head vs base for one measurement: ratio head/base with
 * its two-sided 1 - alpha CI (`ratioCi`), the 1 - 2 alpha CI that the
 * equivalence test uses (`equivalenceCi`), and the test's two-sided p.
 */
export interface ChangeEstimate {
  ratio: number | null;
  ratioCi: [number, number] | null;
  equivalenceCi: [number, number] | null;
  p: number | null;
  notes: string[];
}

/**
 * estimateChange estimates head/base; `equivalenceCi` is at 1 - 2
 * `equivalenceAlpha` (default alpha: one look). With positive values on both sides
 * (times, rates) the chosen test runs on log values, so the ratio and its
 * CIs are exp of a shift: Yuen's trimmed-mean difference, or the
 * Hodges-Lehmann shift with the CI from the Mann-Whitney distribution (then
 * the CI excludes 1 exactly when the U test rejects at alpha). Counters can
 * be 0: then the rank method runs on the raw values whatever `test` says
 * (a trimmed mean of mostly zeros says little), and the change is expressed
 * relative to the base median; with a zero base median there is no ratio,
 * only the test. `test` defaults to `mann-whitney`, which the nightly scan
 * and the regression issue's recovery check rely on; PR comparisons pass
 * {@link DEFAULT_TEST}.
 */
export function estimateChange(base: readonly number[], head: readonly number[], alpha: number, test: ChangeTest = 'mann-whitney', equivalenceAlpha = alpha): ChangeEstimate {
  if (base.length < 2 || head.length < 2) {
    const mb = median(base);
    return {
      ratio: mb > 0 ? median(head) / mb : null,
      ratioCi: null,
      equivalenceCi: null,
      p: null,
      notes: [`cannot test with ${base.length} base and ${head.length} head sample(s): at least 2 per side needed`],
    };
  }
  const logBase = logAll(base);
  const logHead = logAll(head);
  if (logBase !== null && logHead !== null) {
    if (test === 'yuen') {
      const r = yuenWelch(logBase, logHead);
      const exp = ([lo, hi]: [number, number]): [number, number] => [Math.exp(lo), Math.exp(hi)];
      return { ratio: Math.exp(r.estimate), ratioCi: exp(yuenInterval(r, alpha)), equivalenceCi: exp(yuenInterval(r, 2 * equivalenceAlpha)), p: r.p, notes: [] };
    }
    const [two, one] = ratioWithCis(base, head, [alpha, 2 * equivalenceAlpha]) ?? [];
    if (two !== undefined && one !== undefined) {
      // With very few samples the rank interval at this level does not exist (its ends are 0 and infinity): no interval, and why.
      const ci = finitePair([two.lower, two.upper]);
      return { ratio: two.ratio, ratioCi: ci, equivalenceCi: finitePair([one.lower, one.upper]), p: two.p, notes: ci === null ? [tooFewForInterval(base.length, head.length, alpha)] : [] };
    }
  }

  const mb = median(base);
  const [hl, hl2] = hodgesLehmannLevels(base, head, [alpha, 2 * equivalenceAlpha]);
  if (mb > 0) {
    const rel = (d: number) => (mb + d) / mb;
    const ci = finitePair([rel(hl.lower), rel(hl.upper)]);
    return { ratio: rel(hl.estimate), ratioCi: ci, equivalenceCi: finitePair([rel(hl2.lower), rel(hl2.upper)]), p: hl.p, notes: ci === null ? [tooFewForInterval(base.length, head.length, alpha)] : [] };
  }
  if (base.every((v) => v === 0) && head.every((v) => v === 0)) return { ratio: 1, ratioCi: [1, 1], equivalenceCi: [1, 1], p: hl.p, notes: [] };
  return {
    ratio: null,
    ratioCi: null,
    equivalenceCi: null,
    p: hl.p,
    notes: [`base median is ${mb}: the change is a difference of ${hl.estimate} (CI ${hl.lower} to ${hl.upper}), not a ratio`],
  };
}

/**
 * finitePair keeps an interval only when both ends are finite ratios: the
 * rank interval of n = 3 per side at 95% runs from 0 to infinity, which
 * JSON cannot carry (Infinity becomes null) and no reader accepts.
 */
function finitePair([lo, hi]: [number, number]): [number, number] | null {
  return lo > 0 && Number.isFinite(lo) && Number.isFinite(hi) ? [lo, hi] : null;
}

/** tooFewForInterval says why a comparison has no interval, and how many samples would give one. */
function tooFewForInterval(nBase: number, nHead: number, alpha: number): string {
  return `no ${Number(((1 - alpha) * 100).toFixed(2))}% interval with ${nBase} base and ${nHead} head sample(s): the rank test cannot reach p < ${Number(alpha.toPrecision(3))} with so few (4 or more per side give one at 95%)`;
}

function logAll(values: readonly number[]): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!(v > 0 && v < Infinity)) return null;
    out.push(Math.log(v));
  }
  return out;
}
