import type { Direction } from './measurement.ts';

/**
 * Verdict for one measurement. `regressed` and `improved` need a significant
 * change beyond the threshold; `unchanged` needs the ratio's CI inside the
 * threshold band; anything else is `inconclusive`. `new` and `removed` mark a
 * benchmark present on one side only, `error` one that failed on a side.
 */
export type Verdict = 'regressed' | 'improved' | 'unchanged' | 'inconclusive' | 'new' | 'removed' | 'error';

/**
 * MetricFamily says which false-discovery family a comparison is tested in.
 * `primary` is each benchmark's main metric (`real_time`, `time`, a JMH
 * score): one per benchmark, and the suite-wide FDR control runs over these.
 * `secondary` metrics (a duplicate `cpu_time`, user counters, a throughput
 * derived from the time, B/op) form a family of their own: they are tested
 * and reported, but never make the primary family larger. `work` metrics
 * (counted under valgrind, model/work-metrics.ts) are not tested at all:
 * they are decided by whether their repeats agree (compare/work-verdict.ts),
 * so they have no p-value and join no FDR family.
 */
export type MetricFamily = 'primary' | 'secondary' | 'work';

/** FdrFamily is a family that FDR control runs over: every MetricFamily but `work`. */
export type FdrFamily = Exclude<MetricFamily, 'work'>;

/**
 * Decision says how a comparison's verdict was reached:
 * - `difference`: significant after FDR control and beyond the threshold
 *   (`regressed` / `improved`);
 * - `equivalence`: two one-sided tests, the (1 - 2 alpha) CI inside
 *   +-threshold (`unchanged`);
 * - `futility`: `inconclusive`, sampling stopped early because the data
 *   said the round budget could not decide it (and the rounds measured for
 *   other benchmarks after that did not decide it either);
 * - `budget`: `inconclusive` with the round budget spent;
 * - `undecided`: `inconclusive` on fixed samples (compare), or not testable;
 *   for a work metric: its repeats disagree (`reason` says how);
 * - `counted`: a work metric decided by its repeats (compare/work-verdict.ts):
 *   beyond the threshold with repeats that agree (`regressed`/`improved`),
 *   or every pair of repeats within it (`unchanged`).
 */
export type Decision = 'difference' | 'equivalence' | 'futility' | 'budget' | 'undecided' | 'counted';

/** SideSummary is one side of a comparison: sample size, median and its CI. */
export interface SideSummary {
  n: number;
  median: number;
  ci: [number, number];
}

/**
 * Comparison pairs base and head for one benchmark x metric. `ratio` is
 * head/base in the metric's own unit (so for a `higher` metric a ratio above 1
 * is good), with its two-sided CI at level `ciLevel`; `p` is the two-sided
 * p-value of the test that ran (Yuen's trimmed t on log values by default)
 * and `q` the Benjamini-Hochberg q-value within the comparison's `family`.
 * The optional fields were added by the decision rule of issue 11; readers
 * of older JSON simply do not have them.
 */
export interface Comparison {
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  base: SideSummary | null;
  head: SideSummary | null;
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  q: number | null;
  verdict: Verdict;
  warnings: string[];
  /** family is the FDR family (absent: primary, as before families existed). */
  family?: MetricFamily;
  /** decision says how the verdict was reached (absent for new, removed, error). */
  decision?: Decision;
  /** ciLevel is the confidence level of `ratioCi` (e.g. 0.99 at a look tested at alpha 0.01). */
  ciLevel?: number;
  /** threshold is the theta that applied to this comparison, as a fraction (0.02 = 2%). */
  threshold?: number;
  /**
   * equivalenceCi is the (1 - 2 alpha) CI of the ratio head/base, the
   * interval the two one-sided tests use: `unchanged` when it lies inside
   * (1 - threshold, 1 + threshold).
   */
  equivalenceCi?: [number, number];
  /**
   * bound is what a comparison that is not decided still ruled out: no
   * change beyond +-bound (a fraction; 0.031 reads "no change beyond
   * +-3.1%"): the smallest threshold at which the equivalence test would
   * have said `unchanged`. Set for every tested comparison.
   */
  bound?: number;
  /** boundSide says which end of the equivalence CI sets `bound`: `slower` or `faster` (in cost terms). */
  boundSide?: 'slower' | 'faster';
  /** decidedAt is the rounds per side at the look that decided the verdict (adaptive runs). */
  decidedAt?: number;
  /**
   * futileAt is the rounds per side at which an adaptive run stopped this
   * comparison for futility. The run went on for other benchmarks and judged
   * it again at every later look, so a decided verdict with `futileAt` came
   * from rounds measured for others (at `decidedAt`).
   */
  futileAt?: number;
  /**
   * detectable is the smallest slowdown this machine can detect for this
   * benchmark within the round budget (found as `regressed` 80% of the
   * time), from the machine's noise memory; a fraction.
   */
  detectable?: number;
  /**
   * suggestedThreshold is the smallest threshold at which this benchmark,
   * unchanged, would be decided `unchanged` within the round budget 80% of
   * the time on this machine (from the noise memory), rounded up to 0.5%.
   */
  suggestedThreshold?: number;
  /** pooledBase is how many stored base rounds of the same SHA and machine were pooled into the base side. */
  pooledBase?: number;
  /**
   * spread is, for a work metric, how far each side's repeats lie apart:
   * max / min - 1 (0 when they are equal). Its `base.ci` and `head.ci` are
   * then the range of the repeats and `ratioCi` the range of head/base over
   * every pair of repeats, not confidence intervals.
   */
  spread?: { base: number; head: number };
  /**
   * setAside is, for a work metric, the repeat each side set aside before
   * it was judged: the one farthest from its side's median, on a side of 5
   * repeats or more (compare/work-verdict.ts SET_ASIDE_FROM). Present only
   * when one was; `spread`, `ratio`, `ratioCi` and each side's median and
   * range are then those of the repeats kept, and `n` still counts every
   * repeat.
   */
  setAside?: { base?: number; head?: number };
  /** reason says in one line why a comparison is `inconclusive` when it is not for want of rounds: a work metric's repeats that disagree. */
  reason?: string;
}
