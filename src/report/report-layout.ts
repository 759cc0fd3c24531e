import type { Comparison, Verdict } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { WARNING_KINDS, warningKind } from '../compare/hygiene.ts';
import { PRIMARY_METRICS } from '../compare/metric-family.ts';
import { normalizeTimeUnit } from '../model/units.ts';
import { changeWords, formatChange, formatQuantity, MAX_SHOWN_FACTOR, ratioParts } from './format-numbers.ts';
import { byImportance, headline } from './report-order.ts';

/**
 * report-layout: what a person reads in ten seconds, decided once for the
 * markdown and the text report. One row per benchmark: its primary
 * metric (the comparison's `family`, chosen before any verdict by
 * compare/metric-family.ts: `cpu_time` where it is far quieter than
 * `real_time`, else `real_time`, `time`, a throughput score) gives the
 * row its numbers and its verdict, and every other metric of the
 * benchmark is said beside it in a few words (`real_time undecided
 * ±36.6%`). A regression or an error in another metric fails the check as
 * one in the primary does, so it also ranks the row and counts in the
 * headline. Metrics constant on both sides (`0 B/op -> 0 B/op`) become one
 * line; per-comparison warnings are grouped by kind.
 */

/**
 * ReportRow is one benchmark: `comparison` its primary metric, `others`
 * the benchmark's other metrics (constants left out), `verdict` what the
 * row counts as (the primary's verdict, unless another metric regressed
 * or failed) and `lead` the comparison that verdict comes from.
 */
export interface ReportRow {
  comparison: Comparison;
  others: Comparison[];
  verdict: Verdict;
  lead: Comparison;
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
  warningGroups: WarningGroup[];
  otherWarnings: OtherWarning[];
}

const isTime = (unit: string) => normalizeTimeUnit(unit.split('/')[0]) !== undefined;

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

/** layoutReport groups a report's comparisons into one row per benchmark and orders them for reading. */
export function layoutReport(report: ComparisonReport): ReportLayout {
  const byBenchmark = new Map<string, Comparison[]>();
  for (const c of report.comparisons) {
    const list = byBenchmark.get(c.benchmark) ?? [];
    if (list.length === 0) byBenchmark.set(c.benchmark, list);
    list.push(c);
  }
  const rows: ReportRow[] = [];
  const constants = new Map<string, ConstantGroup>();
  for (const list of byBenchmark.values()) {
    const primary = primaryOf(list);
    const others: Comparison[] = [];
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
      } else {
        others.push(c);
      }
    }
    others.sort(byImportance);
    // What fails the check (an error, a regression) ranks the row and counts in the headline whichever metric it came from; the primary first.
    const all = [primary, ...others];
    const lead = all.find((c) => c.verdict === 'error') ?? all.find((c) => c.verdict === 'regressed') ?? primary;
    rows.push({ comparison: primary, others, verdict: lead.verdict, lead });
  }
  rows.sort((a, b) => byImportance(a.lead, b.lead));
  const { groups, others } = groupWarnings([...report.comparisons].sort(byImportance));
  return { rows, constants: [...constants.values()], warningGroups: groups, otherWarnings: others };
}

// The comparison's own family when the decision rule set it, else the same
// preference the FDR families use: real_time, time, throughput, a time unit.
function primaryOf(list: readonly Comparison[]): Comparison {
  return list.find((c) => c.family === 'primary')
    ?? PRIMARY_METRICS.map((name) => list.find((c) => c.metric === name)).find((c) => c !== undefined)
    ?? list.find((c) => isTime(c.unit))
    ?? list[0];
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

/** countRows counts the rows by their verdict (what the headline says), and the widest bound among the undecided rows. */
export function countRows(rows: readonly ReportRow[]): RowCounts {
  const counts: Record<Verdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0, new: 0, removed: 0, error: 0 };
  let undecidedBound: Bound | null = null;
  for (const { verdict, lead } of rows) {
    counts[verdict] += 1;
    if (verdict !== 'inconclusive') continue;
    const bound = boundOf(lead);
    if (bound !== null && (undecidedBound === null || bound.value > undecidedBound.value)) undecidedBound = bound;
  }
  return { counts, undecidedBound };
}

/**
 * otherMetrics says a row's other metrics in a few words, grouped by
 * verdict, most important first: `regressed: B/op +12.0%; undecided:
 * real_time ±36.6%; unchanged: cpu_time, MB/s`. `name` shows a metric name
 * (escaped for the renderer), `label` a verdict.
 */
export function otherMetrics(others: readonly Comparison[], name: (text: string) => string, label: (verdict: Verdict) => string): string {
  const groups: { verdict: Verdict; items: string[] }[] = [];
  for (const c of [...others].sort(byImportance)) {
    const decided = c.verdict === 'regressed' || c.verdict === 'improved';
    const bound = c.verdict === 'inconclusive' ? boundOf(c) : null;
    const detail = decided && c.ratio !== null ? ` ${ratioParts(c.ratio, null, changeWords(c.unit, c.better)).estimate}` : bound !== null ? ` ${formatBound(bound)}` : '';
    const last = groups.at(-1);
    if (last?.verdict === c.verdict) last.items.push(`${name(c.metric)}${detail}`);
    else groups.push({ verdict: c.verdict, items: [`${name(c.metric)}${detail}`] });
  }
  return groups.map((g) => `${label(g.verdict)}: ${g.items.join(', ')}`).join('; ');
}

/**
 * countsLine is the report's counts by benchmark, as the comment says them
 * under its headline (`1 regression, 3 unchanged`): for a check run's
 * title, where the comparisons' own counts would disagree with the rows
 * (a cpu_time beside its real_time is one benchmark, not two).
 */
export function countsLine(report: ComparisonReport): string {
  const { counts, undecidedBound } = countRows(layoutReport(report).rows);
  return headline(counts, undecidedBound);
}

/** MAX_HEADLINE_NAMES caps the benchmarks the headline names before "and N more". */
const MAX_HEADLINE_NAMES = 3;

/**
 * actionHeadline says in one line what the reader should do, from the
 * rows: errors and regressions by name with their change (the metric
 * named when it is not the row's primary), else the undecided ones with
 * what would decide them, else that there is nothing to do. `name` shows
 * a benchmark or metric name (escaped for the renderer: it is untrusted);
 * `beforeMerging` false drops "before merging" where nothing awaits a
 * merge (a nightly's summary of a commit already on its branch).
 * The counts of every verdict are {@link headline}'s line, shown below it.
 */
export function actionHeadline(rows: readonly ReportRow[], threshold: number, name: (text: string) => string, beforeMerging = true): string {
  const { counts } = countRows(rows);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const listed = (verdict: Verdict, withChange: boolean) => {
    const found = rows.filter((r) => r.verdict === verdict);
    const shown = found.slice(0, MAX_HEADLINE_NAMES).map(({ comparison, lead }) => {
      const metric = lead === comparison ? '' : ` ${name(lead.metric)}`;
      const change = withChange && lead.ratio !== null ? ` ${ratioParts(lead.ratio, null, changeWords(lead.unit, lead.better)).estimate}` : '';
      return `${name(lead.benchmark)}${metric}${change}`;
    });
    const more = found.length - shown.length;
    return `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  };
  const parts: string[] = [];
  if (counts.error > 0) parts.push(`${plural(counts.error, 'error', 'errors')}: ${listed('error', false)}. Fix ${counts.error === 1 ? 'it' : 'them'} and rerun`);
  if (counts.regressed > 0) parts.push(`${plural(counts.regressed, 'regression', 'regressions')}: ${listed('regressed', true)}. Look at ${counts.regressed === 1 ? 'it' : 'them'}${beforeMerging ? ' before merging' : ''}`);
  if (parts.length > 0) return `${parts.join('; ')}.`;
  const limit = `±${percent(threshold)}`;
  // What the undecided still ruled out is on the counts line; here, what would decide them.
  if (counts.inconclusive > 0) return `${counts.inconclusive} undecided, no regression found: this machine is too noisy to tell ${limit}. Rerun with more rounds or raise the threshold.`;
  if (rows.length === 0) return 'No comparisons.';
  if (counts.improved > 0) return `${plural(counts.improved, 'improvement', 'improvements')} (${listed('improved', true)}), no regression: nothing to do.`;
  return `No change beyond ${limit}: nothing to do.`;
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
