import type { Comparison, FdrFamily, SideSummary, Verdict } from '../model/comparison.ts';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { conversionFactor, normalizeTimeUnit } from '../model/units.ts';
import { thresholdFor, type ThresholdRule } from './thresholds.ts';
import { addSuiteHygieneWarnings, hygieneWarnings, isConstantPair, suiteWarnings, type HygieneSubject } from './hygiene.ts';
import { DEFAULT_TEST, estimateChange, type ChangeTest } from './estimate-change.ts';
import { familyOf, primaryMetrics } from './metric-family.ts';
import { boundOf, noiseSigma } from './power.ts';
import { benjaminiHochberg } from '../stats/fdr.ts';
import { geometricMean } from '../stats/geometric-mean.ts';
import { medianCi } from '../stats/quantile-ci.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { judgeWork, repeatRange } from './work-verdict.ts';

/**
 * CompareSide is everything read for one side (base or head) of a
 * comparison. `harness` is what produced the measurements (a reader's
 * format such as `pytest-benchmark`, or `command`) when it is known: the
 * threshold of counted work follows it unless one is given
 * ({@link defaultWorkThreshold}).
 */
export interface CompareSide {
  measurements: Measurement[];
  warnings: ReadWarning[];
  hints: FingerprintHints;
  fingerprint?: Fingerprint;
  harness?: string;
}

/**
 * CompareOptions: `threshold` is theta as a fraction (default 0.02 = 2%),
 * `rules` override it per benchmark glob, `alpha` is the error rate of both
 * decisions (default 0.05): the false discovery rate within each metric
 * family and 1 - the CI level of `ratioCi` for `regressed`/`improved`, and
 * the level of the two one-sided tests (a 1 - 2 alpha CI) for `unchanged`.
 * An adaptive run passes the alpha of the current look. `test` picks the
 * two-sample test (default {@link DEFAULT_TEST}). `workThreshold` is theta
 * for counted work (default: {@link defaultWorkThreshold} of the sides'
 * harness); `rules` do not
 * apply to it, since they widen the threshold where a benchmark's time is
 * noisy and a count is not.
 */
export interface CompareOptions {
  threshold: number;
  workThreshold?: number;
  alpha: number;
  rules: ThresholdRule[];
  test?: ChangeTest;
  /**
   * equivalenceAlpha is the level of each one-sided test of the
   * equivalence decision (default `alpha`); an adaptive run passes its
   * look's one-sided group-sequential level (stats/sequential-alpha.ts).
   */
  equivalenceAlpha?: number;
  /**
   * primary pins benchmarks' primary metrics (benchmark -> metric), e.g. to
   * what an adaptive run chose at its first look, so that a benchmark never
   * has two primary rows across looks; others are chosen from the data.
   */
  primary?: ReadonlyMap<string, string>;
}

/**
 * DEFAULT_WORK_THRESHOLD is theta for counted work (instructions,
 * estimated_cycles; compare/work-verdict.ts): 0.5%, a quarter of the time
 * threshold. Time needs 2% because its rounds vary by percents; a count
 * under valgrind with a fixed schedule repeats to the last digit (every
 * repeat equal in fixtures/capture/work-metrics.sh and in run
 * --instructions on Google Benchmark; issue 23's Go count three times
 * equal), so the threshold is set by what matters, not
 * by noise: half of the +1% of work a change must be found at (issue 23),
 * so that +1% in a function that does most of a benchmark's work still
 * clears it, while a one-instruction change in a loop of a few hundred
 * does not fail a PR. iai-callgrind and CodSpeed default to 10%. It is the
 * default of every harness but those in {@link HARNESS_WORK_THRESHOLDS}.
 */
export const DEFAULT_WORK_THRESHOLD = 0.005;

/**
 * HARNESS_WORK_THRESHOLDS are the harnesses whose counted work is not
 * exact enough for DEFAULT_WORK_THRESHOLD, with their own default.
 * pytest-benchmark, 1%: CPython's count moves with the process's memory
 * layout (allocation addresses, hash order), so benchbot counts it in 5
 * processes per side, each in another layout, and sets aside each side's
 * farthest repeat; in a simulation of that on the pint library's counts,
 * 0.5% still called changes in A/A comparisons, while 1% called none and
 * left at least 94% of benchmarks unchanged (the rest undecided). The
 * compiled harnesses (Google Benchmark, Go, criterion, `command`) repeat
 * their counts exactly or within about 0.15% (Go) and keep 0.5%.
 */
export const HARNESS_WORK_THRESHOLDS: Readonly<Record<string, number>> = { 'pytest-benchmark': 0.01 };

/**
 * defaultWorkThreshold is the threshold of counted work when none is
 * given, for results of harness `format` (a reader's format, or
 * `command`): its entry in HARNESS_WORK_THRESHOLDS, else
 * DEFAULT_WORK_THRESHOLD (also when the harness is not known).
 */
export function defaultWorkThreshold(format: string | undefined): number {
  // hasOwn: a harness name comes from the results, and `constructor` is no harness.
  return format !== undefined && Object.hasOwn(HARNESS_WORK_THRESHOLDS, format) ? HARNESS_WORK_THRESHOLDS[format] : DEFAULT_WORK_THRESHOLD;
}

/** sidesHarness is the harness of a comparison's results: head's when known, else base's. */
export function sidesHarness(base: Pick<CompareSide, 'harness'>, head: Pick<CompareSide, 'harness'>): string | undefined {
  return head.harness ?? base.harness;
}

/** DEFAULT_COMPARE_OPTIONS: a 2% threshold at alpha 0.05 by the default test; counted work at its harness's default (defaultWorkThreshold). */
export const DEFAULT_COMPARE_OPTIONS: CompareOptions = { threshold: 0.02, alpha: 0.05, rules: [], test: DEFAULT_TEST };

/** ComparisonSummary counts verdicts; geomeanRatio is over time metrics only (see compareRuns). */
export interface ComparisonSummary {
  regressed: number;
  improved: number;
  unchanged: number;
  inconclusive: number;
  new: number;
  removed: number;
  error: number;
  geomeanRatio: number | null;
}

/**
 * ComparisonReport is the result of comparing two sides: what every report
 * renders. `alpha` is the level the comparisons were tested at (in an
 * adaptive run, the alpha of the look that produced the report);
 * `overallAlpha` the error rate the user asked for, which an adaptive run
 * splits across its looks (absent: the same as `alpha`); `test` the
 * two-sample test; `families` how many tested comparisons each FDR family
 * held; `workThreshold` the threshold of counted work, present when the
 * report has work metrics.
 */
export interface ComparisonReport {
  comparisons: Comparison[];
  summary: ComparisonSummary;
  warnings: string[];
  threshold: number;
  workThreshold?: number;
  alpha: number;
  overallAlpha?: number;
  test?: ChangeTest;
  families?: Record<FdrFamily, number>;
}

const key = (m: { benchmark: string; metric: string }) => `${m.benchmark}\u0000${m.metric}`;

/**
 * poolMeasurements merges measurements of the same benchmark and metric (from
 * several input files) into one, converting units to the first one seen.
 * Values in a unit that does not convert are kept apart under their own unit.
 */
export function poolMeasurements(measurements: readonly Measurement[]): Measurement[] {
  const pooled = new Map<string, Measurement>();
  for (const m of measurements) {
    const existing = pooled.get(key(m));
    const factor = existing ? conversionFactor(m.unit, existing.unit) : undefined;
    if (existing && factor !== undefined) {
      // A loop, not push(...values): spreading 120 k+ arguments overflows the stack.
      for (const v of m.values) existing.values.push(v * factor);
    } else if (existing) {
      pooled.set(`${key(m)}\u0000${m.unit}`, { ...m, values: [...m.values] });
    } else {
      pooled.set(key(m), { ...m, values: [...m.values] });
    }
  }
  return [...pooled.values()];
}

/**
 * compareRuns pairs base and head by (benchmark, metric) and decides a verdict
 * for each pair:
 *
 * - the change is estimated on log values by the chosen test (default the
 *   Hodges-Lehmann shift with its Mann-Whitney CI; `yuen`: the difference
 *   of 20%-trimmed means), with its two-sided CI at 1 - alpha and the
 *   1 - 2 alpha CI of the two one-sided tests;
 * - p is the test's two-sided p-value, q its Benjamini-Hochberg adjustment
 *   within the comparison's family: each benchmark's primary metric
 *   (metric-family.ts) forms one family, every other metric (the duplicate
 *   of real_time / cpu_time, counters, derived rates) a second, so
 *   duplicates do not dilute the first;
 * - the 1 - 2 alpha CI inside (-theta, +theta): `unchanged` (equivalence by
 *   TOST at alpha); q < alpha and the estimate beyond +theta in the bad
 *   direction: `regressed`, in the good direction: `improved`; anything
 *   else: `inconclusive`, with `bound`, the band its CI still rules out;
 * - counted work (`instructions`, `estimated_cycles`) is not tested: a few
 *   repeats per side decide it by compare/work-verdict.ts at
 *   `workThreshold` (default: defaultWorkThreshold of the sides' harness), in a family of its own (`work`) that no FDR control
 *   runs over, and without the hygiene checks made for timed rounds;
 *
 * The suite geomean is taken over time metrics only: counters such as
 * allocation counts can move by orders of magnitude and would drown it.
 */
export function compareRuns(base: CompareSide, head: CompareSide, options: CompareOptions = DEFAULT_COMPARE_OPTIONS): ComparisonReport {
  const baseByKey = new Map(poolMeasurements(base.measurements).map((m) => [key(m), m]));
  const headByKey = new Map(poolMeasurements(head.measurements).map((m) => [key(m), m]));
  const baseErrors = erroredBenchmarks(base.warnings);
  const headErrors = erroredBenchmarks(head.warnings);

  const noise = (m: Measurement): number | undefined => {
    const b = baseByKey.get(key(m));
    const h = headByKey.get(key(m));
    const sb = b && noiseSigma(b.values);
    const sh = h && noiseSigma(h.values);
    return typeof sb === 'number' && typeof sh === 'number' ? (sb + sh) / 2 : undefined;
  };
  // Counted work is never a benchmark's primary time: the time beside it keeps its family and its FDR control.
  const timed = [...baseByKey.values(), ...headByKey.values()].filter((m) => !isWorkMetric(m.metric));
  const primary = primaryMetrics(timed, noise);
  for (const [benchmark, metric] of options.primary ?? []) if (primary.has(benchmark)) primary.set(benchmark, metric);
  const test = options.test ?? DEFAULT_TEST;

  const drafts: Draft[] = [];
  const workThreshold = options.workThreshold ?? defaultWorkThreshold(sidesHarness(base, head));
  for (const [k, b] of baseByKey) drafts.push(isWorkMetric(b.metric) ? workDraft(b, headByKey.get(k), headErrors, workThreshold) : draft(b, headByKey.get(k), headErrors, options, test));
  for (const [k, h] of headByKey) if (!baseByKey.has(k)) drafts.push(headOnly(h, baseErrors));
  for (const d of drafts) d.comparison.family = familyOf(primary, d.comparison.benchmark, d.comparison.metric);

  // A metric constant on both sides (0 B/op -> 0 B/op) is decided by its values and stays out of the FDR family.
  // One FDR family per metric family: a duplicate cpu_time must not dilute the primary metrics.
  const families: Record<FdrFamily, number> = { primary: 0, secondary: 0 };
  for (const family of ['primary', 'secondary'] as const) {
    const tested = drafts.filter((d) => d.comparison.p !== null && d.decided === undefined && d.comparison.family === family);
    const qs = benjaminiHochberg(tested.map((d) => d.comparison.p as number));
    tested.forEach((d, i) => (d.comparison.q = qs[i]));
    families[family] = tested.length;
  }

  addSuiteHygieneWarnings(drafts.flatMap((d) => (d.hygiene ? [d.hygiene] : [])));
  const comparisons = drafts.map((d) => {
    if (d.decided === undefined) d.comparison.verdict = decideVerdict(d.comparison, d.threshold, options.alpha);
    return d.comparison.family === 'work' ? d.comparison : annotateDecision(d.comparison);
  });
  return {
    comparisons,
    summary: summarize(comparisons),
    warnings: suiteWarnings(base, head),
    threshold: options.threshold,
    ...(comparisons.some((c) => c.family === 'work') ? { workThreshold } : {}),
    alpha: options.alpha,
    test,
    families,
  };
}

interface Draft {
  comparison: Comparison;
  threshold: number;
  /** hygiene is what the suite-wide trend and bimodality checks need of a tested comparison. */
  hygiene?: HygieneSubject;
  /** Set when the verdict follows from the inputs alone (new, removed, error, not comparable, constant). */
  decided?: Verdict;
}

function erroredBenchmarks(warnings: readonly ReadWarning[]): Map<string, string> {
  const errors = new Map<string, string>();
  for (const w of warnings) if (w.kind === 'error' && w.benchmark !== undefined) errors.set(w.benchmark, w.message);
  return errors;
}

function emptyComparison(m: Measurement): Comparison {
  return {
    benchmark: m.benchmark, metric: m.metric, unit: m.unit, better: m.better,
    base: null, head: null, ratio: null, ratioCi: null, p: null, q: null, verdict: 'inconclusive', warnings: [],
  };
}

function headOnly(h: Measurement, baseErrors: Map<string, string>): Draft {
  const comparison = emptyComparison(h);
  comparison.head = isWorkMetric(h.metric) ? rangeSummary(h.values) : sideSummary(h.values, 0.05);
  const error = baseErrors.get(h.benchmark);
  comparison.verdict = error === undefined ? 'new' : 'error';
  if (error !== undefined) comparison.warnings.push(`base failed: ${error}`);
  return { comparison, threshold: 0, decided: comparison.verdict };
}

// Measured on base only: removed, or an error when the head's run failed.
function withoutHead(comparison: Comparison, headErrors: Map<string, string>, threshold: number): Draft {
  const error = headErrors.get(comparison.benchmark);
  comparison.verdict = error === undefined ? 'removed' : 'error';
  if (error !== undefined) comparison.warnings.push(`head failed: ${error}`);
  return { comparison, threshold, decided: comparison.verdict };
}

function draft(b: Measurement, h: Measurement | undefined, headErrors: Map<string, string>, options: CompareOptions, test: ChangeTest): Draft {
  const comparison = emptyComparison(b);
  const threshold = thresholdFor(b.benchmark, options.threshold, options.rules);
  comparison.threshold = threshold;
  comparison.base = sideSummary(b.values, options.alpha);
  if (h === undefined) return withoutHead(comparison, headErrors, threshold);
  const factor = conversionFactor(h.unit, b.unit);
  if (factor === undefined) {
    comparison.head = sideSummary(h.values, options.alpha);
    comparison.warnings.push(`units differ and do not convert: base in ${b.unit}, head in ${h.unit}`);
    return { comparison, threshold, decided: 'inconclusive' };
  }
  const headValues = factor === 1 ? h.values : h.values.map((v) => v * factor);
  comparison.head = sideSummary(headValues, options.alpha);
  const change = estimateChange(b.values, headValues, options.alpha, test, options.equivalenceAlpha ?? options.alpha);
  comparison.ratio = change.ratio;
  comparison.ratioCi = change.ratioCi;
  if (change.equivalenceCi !== null) comparison.equivalenceCi = change.equivalenceCi;
  if (change.ratioCi !== null) comparison.ciLevel = 1 - options.alpha;
  comparison.p = change.p;
  comparison.warnings.push(...change.notes, ...hygieneWarnings(b, b.values, headValues));
  if (isConstantPair(b.values, headValues)) {
    comparison.verdict = 'unchanged';
    return { comparison, threshold, decided: 'unchanged' };
  }
  return { comparison, threshold, hygiene: { base: b.values, head: headValues, warnings: comparison.warnings } };
}

/**
 * workDraft decides one work metric by its repeats (compare/work-verdict.ts):
 * each side's summary is its median and the range of its repeats, `ratioCi`
 * the range of head/base over every pair, `bound` what that range rules out.
 */
function workDraft(b: Measurement, h: Measurement | undefined, headErrors: Map<string, string>, threshold: number): Draft {
  const comparison = emptyComparison(b);
  comparison.threshold = threshold;
  comparison.base = rangeSummary(b.values);
  if (h === undefined) return withoutHead(comparison, headErrors, threshold);
  comparison.head = rangeSummary(h.values);
  if (h.unit !== b.unit) {
    comparison.warnings.push(`units differ: base in ${b.unit}, head in ${h.unit}`);
    comparison.decision = 'undecided';
    comparison.reason = `units differ: base in ${b.unit}, head in ${h.unit}`;
    return { comparison, threshold, decided: 'inconclusive' };
  }
  const judged = judgeWork(b.values, h.values, threshold);
  comparison.verdict = judged.verdict;
  comparison.ratio = judged.ratio;
  comparison.ratioCi = judged.range;
  comparison.spread = judged.spread;
  if (judged.setAside !== undefined) {
    comparison.setAside = judged.setAside;
    // A side's median and range are those of the repeats judged, so they agree with the ratio and its range; n stays every repeat.
    comparison.base = rangeSummary(b.values, judged.setAside.base);
    comparison.head = rangeSummary(h.values, judged.setAside.head);
  }
  comparison.decision = judged.verdict === 'inconclusive' ? 'undecided' : 'counted';
  if (judged.reason !== undefined) comparison.reason = judged.reason;
  if (judged.range !== null) {
    const { bound, side } = boundOf(judged.range, comparison.better);
    comparison.bound = bound;
    comparison.boundSide = side;
  }
  return { comparison, threshold, decided: judged.verdict };
}

// A work metric's side: its median and the range of its repeats, which is what a few exact counts can show;
// with a repeat set aside (work-verdict.ts SET_ASIDE_FROM), those of the others, n counting every repeat.
function rangeSummary(values: readonly number[], setAside?: number): SideSummary {
  if (values.length === 0) throw new RangeError('rangeSummary: no values');
  const at = setAside === undefined ? -1 : values.indexOf(setAside);
  const { min, max, median } = repeatRange(at < 0 ? values : values.filter((_, i) => i !== at));
  return { n: values.length, median, ci: [min, max] };
}

function sideSummary(values: readonly number[], alpha: number): SideSummary {
  const ci = medianCi(values, alpha);
  if (ci === null) throw new RangeError('sideSummary: no values');
  return { n: values.length, median: ci.estimate, ci: [ci.lower, ci.upper] };
}

/**
 * decideVerdict applies the threshold rule to a tested comparison. A ratio is
 * read as a cost ratio (above 1 is worse) after flipping higher-is-better
 * metrics, so one rule serves both directions. `unchanged` is judged on the
 * equivalence CI (1 - 2 alpha) when the comparison has one, else on
 * `ratioCi` (callers that build comparisons themselves).
 */
export function decideVerdict(c: Comparison, threshold: number, alpha: number): Verdict {
  if (c.ratio === null || c.ratioCi === null) return 'inconclusive';
  const ci = c.equivalenceCi ?? c.ratioCi;
  const [lo, hi] = c.better === 'lower' ? ci : [1 / ci[1], 1 / ci[0]];
  if (lo > 1 - threshold && hi < 1 + threshold) return 'unchanged';
  if (c.q === null || c.q >= alpha) return 'inconclusive';
  return beyond(c, threshold);
}

/**
 * annotateDecision records how a verdict was reached and, for a tested
 * comparison, the band its equivalence CI rules out ("no change beyond
 * +-bound"). An adaptive run later refines `undecided` into `futility` or
 * `budget`.
 */
export function annotateDecision(c: Comparison): Comparison {
  if (c.verdict === 'regressed' || c.verdict === 'improved') c.decision = 'difference';
  else if (c.verdict === 'unchanged') c.decision = 'equivalence';
  else if (c.verdict === 'inconclusive') c.decision = 'undecided';
  if (c.equivalenceCi) {
    const { bound, side } = boundOf(c.equivalenceCi, c.better);
    c.bound = bound;
    c.boundSide = side;
  }
  return c;
}

function beyond(c: Comparison, threshold: number): Verdict {
  const cost = c.better === 'lower' ? (c.ratio as number) : 1 / (c.ratio as number);
  if (cost > 1 + threshold) return 'regressed';
  if (cost < 1 - threshold) return 'improved';
  return 'inconclusive';
}

/** summarize counts verdicts and takes the geomean ratio over time metrics (the report's `summary`). */
export function summarize(comparisons: readonly Comparison[]): ComparisonSummary {
  const summary: ComparisonSummary = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0, new: 0, removed: 0, error: 0, geomeanRatio: null };
  for (const c of comparisons) summary[c.verdict] += 1;
  const timeRatios = comparisons
    .filter((c) => c.ratio !== null && c.ratio > 0 && Number.isFinite(c.ratio) && normalizeTimeUnit(c.unit.split('/')[0]) !== undefined)
    .map((c) => c.ratio as number);
  summary.geomeanRatio = geometricMean(timeRatios);
  return summary;
}
