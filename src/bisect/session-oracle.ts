/**
 * session-oracle: the bisect oracle on sessions. A session measures the
 * probed commit interleaved with the good and the bad reference (blocks of
 * the three in a seeded order, as `benchbot run` interleaves base and
 * head), so whatever shifted the whole session (machine state, thermal
 * state, what ran before, the cluster a bimodal benchmark landed in) shifts
 * all three arms alike and cancels in the contrasts taken inside it:
 *
 *   probe - good, bad - probe, bad - good   (Hodges-Lehmann on log values,
 *                                            variance from the Mann-Whitney CI)
 *
 * Sessions of one commit are combined by random effects (DerSimonian-Laird;
 * src/stats/sessions.ts): the between-session variance of the contrasts is
 * estimated from the sessions themselves, so a commit whose sessions
 * disagree stays undecided instead of being decided by its largest session.
 *
 * The verdict: a Wald SPRT between "probe = good" and "probe = bad" on the
 * combined contrast (normal, its standard error from the sessions),
 * guarded by the contrasts' CIs (bad needs the probe significantly worse
 * than good, good needs it significantly better than bad); a probe
 * significantly away from both by a quarter of the shift is a partial
 * shift (bad, partial); one significantly beyond a reference by more than
 * max(threshold, a quarter of the shift) is beyond-bad or beyond-good.
 */

import { hodgesLehmann } from '../stats/hodges-lehmann.ts';
import { normalQuantile } from '../stats/normal.ts';
import { median } from '../stats/order-statistics.ts';
import { randomEffects } from '../stats/sessions.ts';
import type { ProbeSession } from './create-bisect.ts';

/** OracleVerdict is the oracle's answer for one probe. */
export type OracleVerdict = 'good' | 'bad' | 'unknown' | 'beyond-good' | 'beyond-bad';

/**
 * OracleOptions: `alpha` and `beta` are the SPRT's error rates (default
 * 0.01 each: the chance of calling a good commit bad and a bad one good);
 * `ciAlpha` (0.05) the level of the contrasts' guards (a partial shift and a
 * confirmation need ciAlpha / 5); `threshold` (0.02) the smallest shift, as
 * a fraction, that counts as a partial shift, beyond a reference or a
 * confirmed culprit.
 */
export interface OracleOptions {
  alpha?: number;
  beta?: number;
  ciAlpha?: number;
  threshold?: number;
}

/** Contrast is one within-session estimate of a log shift (later arm minus earlier) with its variance. */
export interface Contrast {
  estimate: number;
  variance: number;
}

/** Estimate is a combined log shift over sessions: `mean`, `se`, the between-session `tau2` and `k` sessions. */
export interface Estimate {
  mean: number;
  se: number;
  tau2: number;
  k: number;
}

/**
 * contrast is the Hodges-Lehmann shift log(b) - log(a) within one session
 * with the variance read off its 95% Mann-Whitney CI ((upper - lower) /
 * 2 z)^2. Null when a value cannot be logged or a side is too small for a
 * finite CI (fewer than 4 samples a side at 95%).
 */
export function contrast(a: readonly number[], b: readonly number[]): Contrast | null {
  const la = logs(a);
  const lb = logs(b);
  if (la === null || lb === null || la.length < 2 || lb.length < 2) return null;
  const hl = hodgesLehmann(la, lb, { alpha: 0.05 });
  if (!Number.isFinite(hl.lower) || !Number.isFinite(hl.upper)) return null;
  const half = (hl.upper - hl.lower) / (2 * normalQuantile(0.975));
  // Two samples all equal give a zero-width CI; a floor keeps the weights finite.
  return { estimate: hl.estimate, variance: Math.max(half * half, 1e-10) };
}

/**
 * WORK_NOISE_FLOOR is the smallest standard error (log scale, 0.1%) a
 * contrast of counted work is given. Instruction counts under valgrind with
 * a fixed iteration schedule reproduce exactly on the harnesses measured
 * (issue 23: Go 3 of 3, Google Benchmark 2 of 2), so one value per commit
 * is evidence; the floor keeps a shift of a few percent a sure decision
 * (dozens of standard errors) without pretending to infinite precision, and
 * repeats that vary more widen it (workContrast).
 */
export const WORK_NOISE_FLOOR = 0.001;

/**
 * workSpread is how much repeats of counted work disagree: the largest
 * range of log values within either side (0 with one value a side, or
 * repeats that agree exactly). Null when a value cannot be logged.
 */
function workSpread(a: readonly number[], b: readonly number[]): number | null {
  const la = logs(a);
  const lb = logs(b);
  if (la === null || lb === null) return null;
  const range = (x: readonly number[]) => (x.length < 2 ? 0 : Math.max(...x) - Math.min(...x));
  return Math.max(range(la), range(lb));
}

/**
 * workContrast is the contrast of counted work (instructions, estimated
 * cycles): log(median b) - log(median a), one value a side being enough,
 * its standard error the repeats' spread (workSpread, a range: more than
 * their standard deviation, on purpose) floored at WORK_NOISE_FLOOR. There
 * is no session offset to cancel: counts do not see the machine, so a
 * probe's count is compared with the references' counts measured once.
 * Null when a side is empty or a value cannot be logged.
 */
export function workContrast(a: readonly number[], b: readonly number[]): Contrast | null {
  if (a.length === 0 || b.length === 0) return null;
  const spread = workSpread(a, b);
  if (spread === null) return null;
  const se = Math.max(spread, WORK_NOISE_FLOOR);
  return { estimate: Math.log(median(b)) - Math.log(median(a)), variance: se * se };
}

/** contrastFor is the contrast a bisection uses: workContrast when it follows counted work, else the within-session contrast. */
export function contrastFor(work: boolean): (a: readonly number[], b: readonly number[]) => Contrast | null {
  return work ? workContrast : contrast;
}

/** combine is the random-effects estimate of several sessions' contrasts (null without any). */
export function combine(contrasts: readonly Contrast[]): Estimate | null {
  const r = randomEffects(contrasts.map((c) => c.estimate), contrasts.map((c) => c.variance));
  return r === null ? null : { mean: r.mean, se: r.se, tau2: r.tau2, k: r.k };
}

/** difference is a - b of two independent estimates. */
export function difference(a: Estimate, b: Estimate): Estimate {
  return { mean: a.mean - b.mean, se: Math.hypot(a.se, b.se), tau2: Math.max(a.tau2, b.tau2), k: Math.min(a.k, b.k) };
}

/** SessionClassification: the verdict, the SPRT log likelihood ratio (positive toward bad) and whether the probe sits between the references. */
export interface SessionClassification {
  verdict: OracleVerdict;
  llr: number;
  partial: boolean;
}

/**
 * classifySessions classifies a probe from `fromGood` (probe minus the
 * search's good reference) and `toBad` (bad minus probe), given `shift`,
 * the search's bad minus good (all log, combined over sessions).
 */
export function classifySessions(fromGood: Estimate, toBad: Estimate, shift: number, options: OracleOptions = {}): SessionClassification {
  const alpha = options.alpha ?? 0.01;
  const beta = options.beta ?? 0.01;
  const ciAlpha = options.ciAlpha ?? 0.05;
  const threshold = options.threshold ?? 0.02;
  const d = Math.sign(shift) || 1;
  const size = Math.abs(shift);
  const z = normalQuantile(1 - ciAlpha / 2);
  const strict = normalQuantile(1 - ciAlpha / 10);
  const a = d * fromGood.mean; // > 0: toward bad
  const b = d * toBad.mean; // > 0: the probe is below bad
  const margin = Math.max(Math.log1p(threshold), size / 4);
  const se = Math.max(fromGood.se, size * 1e-3, 1e-9);
  const llr = (size / (se * se)) * (a - size / 2);
  const out = { llr, partial: false };
  if (b < -margin && -b / toBad.se >= z) return { ...out, verdict: 'beyond-bad' };
  if (a < -margin && -a / fromGood.se >= z) return { ...out, verdict: 'beyond-good' };
  if (a > margin && a / fromGood.se >= strict && b > margin && b / toBad.se >= strict) return { ...out, verdict: 'bad', partial: true };
  if (llr >= Math.log((1 - beta) / alpha) && a / fromGood.se >= z) return { ...out, verdict: 'bad' };
  if (llr <= Math.log(beta / (1 - alpha)) && b / toBad.se >= z) return { ...out, verdict: 'good' };
  return { ...out, verdict: 'unknown' };
}

/**
 * classifyOracleSessions classifies a probe from its interleaved sessions:
 * probe vs good and bad vs probe combined by random effects, against the
 * good-to-bad shift measured in the same sessions; `ratio` is probe/good
 * with its 95% CI, `shift` bad/good (null until a session has both).
 * `work`: the series is counted work, compared by workContrast.
 */
export function classifyOracleSessions(sessions: readonly ProbeSession[], threshold: number, work = false): { verdict: OracleVerdict; partial: boolean; llr: number; ratio: number | null; ratioCi: [number, number] | null; shift: number | null } {
  const contrast = contrastFor(work);
  const all = (f: (x: ProbeSession) => Contrast | null) => sessions.map(f).filter((c): c is Contrast => c !== null);
  const fromGood = combine(all((x) => contrast(x.good, x.probe)));
  const toBad = combine(all((x) => contrast(x.probe, x.bad)));
  const shift = combine(all((x) => contrast(x.good, x.bad)));
  if (fromGood === null || toBad === null || shift === null) return { verdict: 'unknown', partial: false, llr: 0, ratio: null, ratioCi: null, shift: null };
  const c = classifySessions(fromGood, toBad, shift.mean, { threshold });
  return { ...c, ratio: Math.exp(fromGood.mean), ratioCi: [Math.exp(fromGood.mean - 1.96 * fromGood.se), Math.exp(fromGood.mean + 1.96 * fromGood.se)], shift: Math.exp(shift.mean) };
}

/** ConfirmVerdict: the merge carries part of the shift (`confirmed`), does not (`refuted`), or more sessions are needed. */
export type ConfirmVerdict = 'confirmed' | 'refuted' | 'unknown';

/**
 * confirmAgainstParent judges a culprit by its contrast with its own first
 * parent (combined over interleaved sessions): confirmed when it is
 * significantly worse in the direction of the shift (at level ciAlpha / 5)
 * by at least the threshold; refuted when the CI rules out a quarter of the shift (or the
 * threshold, whichever is larger) in that direction.
 */
export function confirmAgainstParent(vsParent: Estimate, shift: number, options: OracleOptions = {}): ConfirmVerdict {
  const ciAlpha = options.ciAlpha ?? 0.05;
  const threshold = options.threshold ?? 0.02;
  const d = Math.sign(shift) || 1;
  const z = normalQuantile(1 - ciAlpha / 2);
  // Naming a merge is the one claim a maintainer acts on: confirmed at the oracle's strict level (ciAlpha / 5).
  const strict = normalQuantile(1 - ciAlpha / 10);
  const m = d * vsParent.mean;
  if (m >= Math.log1p(threshold) && m / vsParent.se >= strict) return 'confirmed';
  if (m + z * vsParent.se < Math.max(Math.log1p(threshold), Math.abs(shift) / 4)) return 'refuted';
  return 'unknown';
}

function logs(values: readonly number[]): number[] | null {
  const out: number[] = [];
  for (const v of values) {
    if (!(v > 0 && v < Infinity)) return null;
    out.push(Math.log(v));
  }
  return out;
}
