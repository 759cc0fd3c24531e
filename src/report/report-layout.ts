import type { Comparison, Verdict } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { WARNING_KINDS, warningKind } from '../compare/hygiene.ts';
import { normalizeTimeUnit } from '../model/units.ts';
import { formatChange, formatQuantity, MAX_SHOWN_FACTOR } from './format-numbers.ts';
import { byImportance } from './report-order.ts';

/**
 * report-layout: what a person reads in ten seconds, decided once for the
 * markdown and the text report. One row per benchmark: a second metric
 * that is the same measurement (`cpu_time` beside `real_time`, a
 * throughput derived from the time, as criterion's `throughput` and Go's
 * `MB/s` are) is folded into its time's row unless its verdict differs;
 * metrics constant on both sides (`0 B/op -> 0 B/op`) become one line;
 * per-comparison warnings are grouped by kind.
 */

/** ReportRow is one shown comparison; `folded` are the same measurement's other metrics that agree with it. */
export interface ReportRow {
  comparison: Comparison;
  folded: Comparison[];
}

/** ConstantGroup is one metric that was constant on both sides: each value shown (`0`, `616 B/op`) with the benchmarks that had it. */
export interface ConstantGroup {
  metric: string;
  values: { value: string; benchmarks: string[] }[];
}

/** WarningGroup is one kind of per-comparison warning: its summary and each affected benchmark with the sides. */
export interface WarningGroup {
  kind: string;
  summary: string;
  items: { benchmark: string; sides: string }[];
}

/** OtherWarning is a per-comparison warning of no known kind, said once per benchmark. */
export interface OtherWarning {
  benchmark: string;
  metrics: string[];
  message: string;
}

/** ReportLayout is everything the renderers show, in order. */
export interface ReportLayout {
  rows: ReportRow[];
  constants: ConstantGroup[];
  /** foldedMetrics counts the folded metrics by name (`cpu_time: 12`). */
  foldedMetrics: Map<string, number>;
  warningGroups: WarningGroup[];
  otherWarnings: OtherWarning[];
}

const PRIMARY_METRICS = ['real_time', 'time', 'throughput'];

const isTime = (unit: string) => normalizeTimeUnit(unit.split('/')[0]) !== undefined;
const isRate = (unit: string) => /\/s$/.test(unit);

/**
 * isConstant says a comparison's values were one and the same number on
 * both sides: a degenerate median CI equal on both sides (what
 * compareRuns reports for them, and all a JSON report still tells).
 */
export function isConstant(c: Comparison): boolean {
  const { base, head } = c;
  if (base === null || head === null || c.verdict !== 'unchanged') return false;
  const v = base.median;
  return base.ci[0] === v && base.ci[1] === v && head.median === v && head.ci[0] === v && head.ci[1] === v;
}

/** layoutReport folds, groups and orders a report's comparisons for reading. */
export function layoutReport(report: ComparisonReport): ReportLayout {
  const byBenchmark = new Map<string, Comparison[]>();
  for (const c of report.comparisons) {
    const list = byBenchmark.get(c.benchmark) ?? [];
    if (list.length === 0) byBenchmark.set(c.benchmark, list);
    list.push(c);
  }
  const rows: ReportRow[] = [];
  const constants = new Map<string, ConstantGroup>();
  const foldedMetrics = new Map<string, number>();
  for (const list of byBenchmark.values()) {
    const primary = primaryOf(list);
    const primaryRow: ReportRow = { comparison: primary, folded: [] };
    rows.push(primaryRow);
    for (const c of list) {
      if (c === primary) continue;
      if (isConstant(c) && c.base) {
        // Go names the metric after its unit (B/op): `B/op = 0`, not `B/op = 0 B/op`.
        const shown = formatQuantity(c.base.median, c.unit);
        const value = shown.endsWith(` ${c.metric}`) ? shown.slice(0, -c.metric.length - 1) : shown;
        const group = constants.get(c.metric) ?? { metric: c.metric, values: [] };
        constants.set(c.metric, group);
        const same = group.values.find((v) => v.value === value);
        if (same) same.benchmarks.push(c.benchmark);
        else group.values.push({ value, benchmarks: [c.benchmark] });
      } else if (sameMeasurement(primary, c) && c.verdict === primary.verdict) {
        primaryRow.folded.push(c);
        foldedMetrics.set(c.metric, (foldedMetrics.get(c.metric) ?? 0) + 1);
      } else {
        rows.push({ comparison: c, folded: [] });
      }
    }
  }
  rows.sort((a, b) => byImportance(a.comparison, b.comparison));
  const { groups, others } = groupWarnings([...report.comparisons].sort(byImportance));
  return { rows, constants: [...constants.values()], foldedMetrics, warningGroups: groups, otherWarnings: others };
}

// The comparison's own family when the decision rule set it, else the same
// preference the FDR families use: real_time, time, throughput, a time unit.
function primaryOf(list: readonly Comparison[]): Comparison {
  return list.find((c) => c.family === 'primary')
    ?? PRIMARY_METRICS.map((name) => list.find((c) => c.metric === name)).find((c) => c !== undefined)
    ?? list.find((c) => isTime(c.unit))
    ?? list[0];
}

// A second time of the same run (cpu_time beside real_time) or a rate the
// harness derived from the time (bytes or elements per second).
function sameMeasurement(primary: Comparison, c: Comparison): boolean {
  if (!isTime(primary.unit)) return false;
  return isTime(c.unit) || (isRate(c.unit) && c.better === 'higher');
}

function groupWarnings(comparisons: readonly Comparison[]): { groups: WarningGroup[]; others: OtherWarning[] } {
  const byKind = new Map<string, Map<string, Set<string>>>();
  const others = new Map<string, OtherWarning>();
  for (const c of comparisons) {
    for (const w of c.warnings) {
      const kind = warningKind(w);
      if (kind === undefined) {
        const key = `${c.benchmark}\u0000${w}`;
        const other = others.get(key) ?? { benchmark: c.benchmark, metrics: [], message: w };
        if (!other.metrics.includes(c.metric)) other.metrics.push(c.metric);
        others.set(key, other);
        continue;
      }
      const benchmarks = byKind.get(kind.kind) ?? new Map<string, Set<string>>();
      byKind.set(kind.kind, benchmarks);
      const sides = benchmarks.get(c.benchmark) ?? new Set<string>();
      benchmarks.set(c.benchmark, sides);
      for (const side of ['base', 'head']) if (new RegExp(`\\b${side}\\b`).test(w)) sides.add(side);
    }
  }
  const groups = WARNING_KINDS.filter((k) => byKind.has(k.kind)).map((k) => ({
    kind: k.prefix,
    summary: k.summary,
    items: [...(byKind.get(k.kind) as Map<string, Set<string>>)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([benchmark, sides]) => ({ benchmark, sides: ['base', 'head'].filter((s) => sides.has(s)).join(' and ') })),
  }));
  return { groups, others: [...others.values()] };
}

/**
 * Bound is what an undecided comparison still ruled out: no change beyond
 * `value` (a fraction) in the direction `sign` says: `+` slower, `-`
 * faster, `±` either way.
 */
export interface Bound {
  value: number;
  sign: '+' | '-' | '±';
}

/** RowCounts counts rows by verdict, and the widest bound among the undecided rows. */
export interface RowCounts {
  counts: Record<Verdict, number>;
  undecidedBound: Bound | null;
}

/**
 * boundOf is what an undecided comparison ruled out, read from the
 * interval its verdict was judged on (the equivalence CI, else the ratio's
 * CI) in cost terms: the farther end gives the value, signed when the
 * other end is inside the threshold (`no change beyond +3.1%`: nothing
 * faster than the threshold either), `±` when both ends are beyond it.
 * The decision rule's own `bound` is used as is when there is no interval.
 */
export function boundOf(c: Comparison): Bound | null {
  const ci = c.equivalenceCi ?? c.ratioCi;
  if (ci === null || !(ci[0] > 0)) return c.bound !== undefined ? { value: c.bound, sign: '±' } : null;
  const [lo, hi] = c.better === 'lower' ? ci : [1 / ci[1], 1 / ci[0]];
  const threshold = c.threshold ?? 0;
  const slower = hi - 1;
  const faster = 1 - lo;
  if (Math.log(hi) >= -Math.log(lo)) return { value: slower, sign: faster <= threshold ? '+' : '±' };
  return { value: faster, sign: slower <= threshold ? '-' : '±' };
}

/** countRows counts the shown rows by verdict (what the headline says). */
export function countRows(rows: readonly ReportRow[]): RowCounts {
  const counts: Record<Verdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0, new: 0, removed: 0, error: 0 };
  let undecidedBound: Bound | null = null;
  for (const { comparison: c } of rows) {
    counts[c.verdict] += 1;
    if (c.verdict !== 'inconclusive') continue;
    const bound = boundOf(c);
    if (bound !== null && (undecidedBound === null || bound.value > undecidedBound.value)) undecidedBound = bound;
  }
  return { counts, undecidedBound };
}

/** formatBound prints a bound: `+3.1%`, `-4.0%`, `±2.5%`; beyond MAX_SHOWN_FACTOR (an infinite interval) `more than 1000x`. */
export function formatBound(bound: Bound): string {
  if (!(bound.value + 1 <= MAX_SHOWN_FACTOR)) return `more than ${MAX_SHOWN_FACTOR}x`;
  return `${bound.sign}${(bound.value * 100).toFixed(1)}%`;
}

const TEST_NAMES: Record<string, string> = {
  yuen: "Yuen's 20%-trimmed t on log values",
  'mann-whitney': 'Mann-Whitney U with Hodges-Lehmann intervals',
};

const percent = (fraction: number) => `${Number((fraction * 100).toPrecision(3))}%`;

/** geomeanChange prints the geomean ratio as a signed percent (3 significant digits), `more than 1000x` past MAX_SHOWN_FACTOR. */
const geomeanChange = (ratio: number) => (ratio > MAX_SHOWN_FACTOR || !Number.isFinite(ratio) ? formatChange(ratio) : percent(ratio - 1).replace(/^(?!-)/, '+'));

/**
 * methodNote says in words how the verdicts were reached: the threshold,
 * the confidence the user asked for and, in an adaptive run, why this
 * look's alpha is smaller ("CI level 99%, false discovery rate 0.0086"
 * after `--alpha 0.05` told nobody that), the FDR families, the test and
 * the suite geomean. Numbers only: nothing untrusted.
 */
export function methodNote(report: ComparisonReport): string {
  const overall = report.overallAlpha ?? report.alpha;
  const look = report.alpha;
  const parts = [`Threshold ${percent(report.threshold)}.`];
  if (Math.abs(overall - look) > 1e-12) {
    parts.push(`Verdicts at the ${percent(1 - overall)} confidence asked for (alpha ${Number(overall.toPrecision(2))}): sampling looked at the data several times, so this look was tested at alpha ${Number(look.toPrecision(2))} (${percent(1 - look)} intervals), which keeps the error of all looks together at ${percent(overall)}.`);
  } else {
    parts.push(`Verdicts at ${percent(1 - overall)} confidence (alpha ${Number(overall.toPrecision(2))}, ${percent(1 - look)} intervals).`);
  }
  const families = report.families;
  const tested = families ? families.primary : report.comparisons.filter((c) => c.q !== null).length;
  const secondary = families && families.secondary > 0 ? `, and separately among ${families.secondary} other metrics` : '';
  parts.push(`False discovery rate at most ${percent(overall)} among ${tested} tested ${families ? 'benchmarks' : 'comparisons'}${secondary}.`);
  const test = TEST_NAMES[report.test ?? 'mann-whitney'] ?? 'The configured two-sample test';
  parts.push(`${test}; unchanged when the ${percent(1 - 2 * look)} interval lies inside ±${percent(report.threshold)} (two one-sided tests).`);
  if (report.summary.geomeanRatio !== null) parts.push(`Geomean of the time changes ${geomeanChange(report.summary.geomeanRatio)}.`);
  return parts.join(' ');
}
