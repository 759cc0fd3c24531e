import type { Comparison, Verdict } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { WARNING_KINDS, warningKind } from '../compare/hygiene.ts';
import { PRIMARY_METRICS } from '../compare/metric-family.ts';
import { normalizeTimeUnit } from '../model/units.ts';
import { ESTIMATED_CYCLES_METRIC, isWorkMetric, WORK_METRICS } from '../model/work-metrics.ts';
import { SET_ASIDE_FROM, spreadPercent, WORK_AGREEMENT } from '../compare/work-verdict.ts';
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
 *
 * Counted work and time (issue 23): when a benchmark has a work metric
 * (instructions under valgrind), the counted work is the row's primary
 * measurement and its time is said beside it. The row's verdict is, in
 * order: an error or a regression of any metric (a slower time fails the
 * check even when the work did not grow: the binary is slower); else the
 * counted work's verdict when its repeats decided it; else the time's
 * verdict when the time was decided; else undecided. Where the two tell
 * different stories the row says so ({@link Disagreement}).
 */

/**
 * Disagreement is how a benchmark's time and counted work disagree:
 * - `time-without-work`: the time moved beyond its CI (regressed or
 *   improved) while the counted work was unchanged: a layout, memory or
 *   frequency effect, not the code doing more or less work;
 * - `work-without-time`: the counted work moved and the time did not show
 *   it (unchanged within its threshold, or undecided);
 * - `opposite`: both moved, in opposite directions.
 */
export type Disagreement = 'time-without-work' | 'work-without-time' | 'opposite';

/**
 * ReportRow is one benchmark: `comparison` its primary metric, `others`
 * the benchmark's other metrics (constants left out), `verdict` what the
 * row counts as (the primary's verdict, unless another metric regressed
 * or failed) and `lead` the comparison that verdict comes from. When the
 * primary is counted work, `time` is the benchmark's time beside it (also
 * in `others`) and `disagreement` how the two disagree, if they do.
 */
export interface ReportRow {
  comparison: Comparison;
  others: Comparison[];
  verdict: Verdict;
  lead: Comparison;
  time?: Comparison;
  disagreement?: Disagreement;
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
    const time = isWork(primary) ? timeOf(list) : undefined;
    // Counted work undecided (its repeats disagree): a decided time decides the row.
    const fallback = time !== undefined && !isDecided(primary) && isDecided(time) ? time : primary;
    const lead = all.find((c) => c.verdict === 'error') ?? all.find((c) => c.verdict === 'regressed') ?? fallback;
    const row: ReportRow = { comparison: primary, others, verdict: lead.verdict, lead };
    if (time !== undefined) {
      row.time = time;
      const disagreement = disagreementOf(primary, time);
      if (disagreement !== undefined) row.disagreement = disagreement;
    }
    rows.push(row);
  }
  rows.sort((a, b) => byImportance(a.lead, b.lead));
  const { groups, others } = groupWarnings([...report.comparisons].sort(byImportance));
  return { rows, constants: [...constants.values()], warningGroups: groups, otherWarnings: others };
}

// Counted work measured on both sides first (instructions before
// estimated_cycles); else the comparison's own family when the decision
// rule set it, else the same preference the FDR families use: real_time,
// time, throughput, a time unit.
function primaryOf(list: readonly Comparison[]): Comparison {
  const work = WORK_METRICS.map((name) => list.find((c) => c.metric === name)).filter((c) => c !== undefined);
  return work.find((c) => c.base !== null && c.head !== null)
    ?? timeOf(list)
    ?? work[0]
    ?? list[0];
}

// A benchmark's time: its primary-family comparison, else the preferred time metric.
function timeOf(list: readonly Comparison[]): Comparison | undefined {
  const timed = list.filter((c) => !isWork(c));
  return timed.find((c) => c.family === 'primary')
    ?? PRIMARY_METRICS.map((name) => timed.find((c) => c.metric === name)).find((c) => c !== undefined)
    ?? timed.find((c) => isTime(c.unit))
    ?? timed[0];
}

/** isWork says whether a comparison is of counted work (compare/work-verdict.ts decides it). */
function isWork(c: Comparison): boolean {
  return c.family === 'work' || (c.family === undefined && isWorkMetric(c.metric));
}

const isDecided = (c: Comparison) => c.verdict === 'regressed' || c.verdict === 'improved' || c.verdict === 'unchanged';
const moved = (c: Comparison) => c.verdict === 'regressed' || c.verdict === 'improved';

/** disagreementOf compares a benchmark's counted work with its time (see {@link Disagreement}); undefined when they agree or cannot tell. */
function disagreementOf(work: Comparison, time: Comparison): Disagreement | undefined {
  if (moved(time) && work.verdict === 'unchanged') return 'time-without-work';
  if (moved(work) && (time.verdict === 'unchanged' || time.verdict === 'inconclusive')) return 'work-without-time';
  if (moved(work) && moved(time) && work.verdict !== time.verdict) return 'opposite';
  return undefined;
}

/**
 * disagreementNote says a row's disagreement in words, with the numbers
 * (`name` shows a metric name, escaped for the renderer):
 * `changed without its code doing more work: layout, memory or frequency
 * effect (real_time +12.0%; instructions unchanged)`.
 */
export function disagreementNote(row: ReportRow, name: (text: string) => string): string | undefined {
  const { comparison: work, time, disagreement } = row;
  if (time === undefined || disagreement === undefined) return undefined;
  const said = (c: Comparison) => {
    if (moved(c) && c.ratio !== null) return `${name(c.metric)} ${ratioParts(c.ratio, null, changeWords(c.unit, c.better)).estimate}`;
    const bound = c.verdict === 'inconclusive' ? boundOf(c) : null;
    return `${name(c.metric)} ${c.verdict === 'inconclusive' ? 'undecided' : c.verdict}${bound === null ? '' : `, no change beyond ${formatBound(bound)}`}`;
  };
  const numbers = `(${said(time)}; ${said(work)})`;
  if (disagreement === 'time-without-work') {
    const more = time.verdict === 'regressed' ? 'more' : 'less';
    // Estimated cycles charge for simulated cache misses: moved with the time, they name the memory effect.
    const cycles = row.others.find((c) => c.metric === ESTIMATED_CYCLES_METRIC && c.verdict === time.verdict);
    if (cycles !== undefined) return `changed without its code doing ${more} work: a memory effect, ${said(cycles)} from cache misses (${said(time)}; ${said(work)})`;
    return `changed without its code doing ${more} work: layout, memory or frequency effect ${numbers}`;
  }
  if (disagreement === 'work-without-time') return `the work ${work.verdict === 'regressed' ? 'grew' : 'shrank'} and the time did not show it ${numbers}`;
  return `the time and the work moved in opposite directions ${numbers}`;
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
 * `thresholds` is the report (its time `threshold` and, with counted
 * work, its `workThreshold`) or the time threshold alone. A row whose
 * lead is counted work names the metric (`instructions +1.00%`), and a
 * time that moved without the work is said to be one
 * (`without more work`). The counts of every verdict are
 * {@link headline}'s line, shown below it.
 */
export function actionHeadline(rows: readonly ReportRow[], thresholds: number | { threshold: number; workThreshold?: number; comparisons: readonly Comparison[] }, name: (text: string) => string, beforeMerging = true): string {
  const { threshold, workThreshold } = typeof thresholds === 'number' ? { threshold: thresholds, workThreshold: undefined } : { threshold: thresholds.threshold, workThreshold: workThresholdOf(thresholds) };
  const { counts } = countRows(rows);
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const listed = (verdict: Verdict, withChange: boolean) => {
    const found = rows.filter((r) => r.verdict === verdict);
    const shown = found.slice(0, MAX_HEADLINE_NAMES).map(({ comparison, lead, disagreement }) => {
      const metric = lead === comparison && !isWork(lead) ? '' : ` ${name(lead.metric)}`;
      const change = withChange && lead.ratio !== null ? ` ${ratioParts(lead.ratio, null, changeWords(lead.unit, lead.better)).estimate}` : '';
      const kind = disagreement === 'time-without-work' && lead !== comparison && !isWork(lead) ? ` without ${lead.verdict === 'regressed' ? 'more' : 'less'} work` : '';
      return `${name(lead.benchmark)}${metric}${change}${kind}`;
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
  if (counts.inconclusive > 0) {
    // A row undecided on counted work whose repeats disagree: more rounds of a noisy machine are not what it needs.
    const disagreeing = rows.filter((r) => r.verdict === 'inconclusive' && isWork(r.lead)).length;
    if (disagreeing === 0) return `${counts.inconclusive} undecided, no regression found: this machine is too noisy to tell ${limit}. Rerun with more rounds or raise the threshold.`;
    const noisy = counts.inconclusive - disagreeing;
    const why = [`${disagreeing} with counted work whose repeats disagree (the table says how)`, ...(noisy > 0 ? [`${noisy} too noisy to tell ${limit}`] : [])];
    return `${counts.inconclusive} undecided, no regression found: ${why.join(', ')}. Make the work's iteration schedule fixed${noisy > 0 ? ', rerun with more rounds' : ''} or raise the threshold.`;
  }
  if (rows.length === 0) return 'No comparisons.';
  if (counts.improved > 0) return `${plural(counts.improved, 'improvement', 'improvements')} (${listed('improved', true)}), no regression: nothing to do.`;
  // Rows decided by their time while their counted work is undecided: the work's threshold was not shown, and the line says so.
  const workUndecided = rows.filter((r) => isWork(r.comparison) && r.comparison.verdict === 'inconclusive').length;
  const workLimit = workThreshold !== undefined && workUndecided === 0 && rows.some((r) => isWork(r.comparison)) ? ` (counted work ±${percent(workThreshold)})` : '';
  const caveat = workUndecided > 0 ? ` (counted work undecided in ${plural(workUndecided, 'benchmark', 'benchmarks')}: ${workUndecided === 1 ? 'its' : 'their'} repeats disagree)` : '';
  return `No change beyond ${limit}${workLimit}: nothing to do${caveat}.`;
}

/**
 * repeatsNote says how a side of counted work repeated, for the Base and
 * Head cells: `n=3, equal` or `n=3, spread 0.12%`, with a repeat set aside
 * `n=5, 1 set aside, spread 0.3%` (the spread of the others); for any
 * other metric just `n=12`.
 */
export function repeatsNote(c: Comparison, side: 'base' | 'head'): string {
  const s = c[side];
  if (s === null) return '';
  const spread = c.spread?.[side];
  if (!isWork(c) || spread === undefined) return `n=${s.n}`;
  const setAside = c.setAside?.[side] === undefined ? '' : ', 1 set aside';
  return `n=${s.n}${setAside}, ${spread === 0 ? 'equal' : `spread ${spreadPercent(spread)}`}`;
}

/**
 * decidedByTime says a row's verdict came from its time because its
 * counted work is undecided (not from a regression elsewhere): the row
 * then shows that verdict first, then the work's.
 */
export function decidedByTime(row: ReportRow): boolean {
  return row.time !== undefined && row.lead === row.time && row.lead !== row.comparison && row.verdict !== 'regressed' && row.verdict !== 'error';
}

/** verdictDetail is what follows a verdict in a row: why counted work is undecided (its `reason`), else the bound an undecided comparison ruled out. */
export function verdictDetail(c: Comparison): string {
  if (c.verdict !== 'inconclusive') return '';
  if (c.reason !== undefined) return `: ${c.reason}`;
  const bound = boundOf(c);
  return bound === null ? '' : `: no change beyond ${formatBound(bound)}`;
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
 * workThresholdOf is the threshold a report's counted work was judged at:
 * the report's own, else the one its work comparisons carry (a report
 * assembled from several comparisons), undefined without counted work.
 */
export function workThresholdOf(report: { workThreshold?: number; comparisons: readonly Comparison[] }): number | undefined {
  return report.workThreshold ?? report.comparisons.find((c) => isWork(c) && c.threshold !== undefined)?.threshold;
}

/**
 * workNote says how counted work was decided (compare/work-verdict.ts),
 * for the method note of a report that has work metrics.
 */
function workNote(workThreshold: number, setAside: boolean): string {
  // Said only when a repeat was set aside, so a reader of an `n=5, 1 set aside` cell finds why.
  const aside = setAside ? ` A side of ${SET_ASIDE_FROM} repeats or more first sets aside the one farthest from its median (one memory layout can move the count).` : '';
  return `Counted work (instructions, estimated cycles under valgrind) is not tested: it is regressed or improved when the median of its repeats moved beyond ±${percent(workThreshold)} and each side's repeats spread at most ${WORK_AGREEMENT * 100}% of that change, unchanged when every pair of repeats is within ±${percent(workThreshold)}, undecided when the repeats disagree; a benchmark with counted work takes its verdict from it, its time beside it, a regressed time still failing the check.${aside}`;
}

/**
 * methodNote says in words how the verdicts were reached: the threshold,
 * the confidence the user asked for and, in an adaptive run, why this
 * look's alpha is smaller ("CI level 99%, false discovery rate 0.0086"
 * after `--alpha 0.05` told nobody that), the FDR families, the test and
 * the suite geomean. Numbers only: nothing untrusted.
 */
export function methodNote(report: ComparisonReport): string {
  const workThreshold = workThresholdOf(report);
  const setAside = report.comparisons.some((c) => c.setAside !== undefined);
  // Counted work alone: no test ran, so nothing about alpha or FDR applies.
  if (workThreshold !== undefined && report.comparisons.every((c) => isWork(c))) return workNote(workThreshold, setAside);
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
  if (workThreshold !== undefined) parts.push(workNote(workThreshold, setAside));
  return parts.join(' ');
}
