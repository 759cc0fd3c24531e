import type { Comparison, Verdict } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { changeWords, formatP, formatQuantity, formatRatio } from './format-numbers.ts';
import { SIGNIFICANT, headline } from './report-order.ts';
import { actionHeadline, countRows, decidedByTime, disagreementNote, layoutReport, methodNote, otherMetrics, repeatsNote, verdictDetail, type ReportLayout, type ReportRow } from './report-layout.ts';
import { inertCode, inertText } from './inert-markdown.ts';
import { dashboardRoot, dashboardSeriesId, dashboardSeriesUrl } from '../model/series-id.ts';

/** GITHUB_COMMENT_LIMIT is the most characters GitHub accepts in a comment body. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** REPORT_MARKER is the hidden line that lets benchbot find and update its own comment. */
export const REPORT_MARKER = '<!-- benchbot:report -->';

/**
 * MarkdownOptions: `title` heads the comment, `environment` is the one-line
 * machine description (both shown as text), `marker` the hidden sticky
 * marker (one per report kind or shard), `limit` the size budget (GitHub's
 * comment limit by default). `footer` is markdown written by benchbot (a
 * link to the run): a caller that puts untrusted text in it passes that
 * text through inertText first.
 */
export interface MarkdownOptions {
  title?: string;
  environment?: string;
  marker?: string;
  limit?: number;
  footer?: string;
  /**
   * statistics is markdown written by benchbot shown with the method note
   * behind the footer's `<details>` (how the rounds went, what the
   * machine's noise allows): like `footer`, untrusted text in it is passed
   * through inertText first.
   */
  statistics?: string;
  /** merged says the head is already on its branch (a nightly): the headline then asks to look at a regression, not to hold a merge. */
  merged?: boolean;
  /**
   * dashboard, when a dashboard is published (`url`, see
   * model/series-id.ts), links each significant row's nightly series:
   * the scan's series on `branch` (the default branch) of `repo` on
   * `machine` (the runner's host key, model/fingerprint.ts hostKey).
   */
  dashboard?: { url: string; repo?: string; branch: string; machine: string };
  /** where is markdown written by benchbot (the regressions' differential profiles, folded), shown after the tables; untrusted text in it is inert already. */
  where?: string;
}

/** MAX_DASHBOARD_LINKS caps the series a comment links to the dashboard. */
const MAX_DASHBOARD_LINKS = 10;

const VERDICT_LABEL: Record<string, string> = {
  regressed: '🔴 regressed',
  improved: '🟢 improved',
  unchanged: 'unchanged',
  inconclusive: '⚪ undecided',
  new: 'new',
  removed: 'removed',
  error: '❌ error',
};

const HEADER = '| Benchmark | Metric | Base | Head | Change (CI) | q | Verdict |\n| --- | --- | --- | --- | --- | --- | --- |';
const HEADER_WITH_OTHERS = '| Benchmark | Metric | Base | Head | Change (CI) | q | Verdict | Other metrics |\n| --- | --- | --- | --- | --- | --- | --- | --- |';

/** MAX_NAMES_PER_LINE caps the benchmarks a grouped warning or constant line names before "and N more". */
const MAX_NAMES_PER_LINE = 12;

/**
 * renderMarkdown renders a comparison for a PR comment, to be read in ten
 * seconds: a headline that says what to do (report-layout.ts
 * actionHeadline) and the counts under it, the significant rows sorted by
 * size, everything else collapsed, one row per benchmark with its other
 * metrics beside it (see report-layout.ts), warnings grouped by kind, and
 * a footer of at most two lines: how the verdicts were reached behind a
 * `<details>`, then the environment and the caller's footer. The hidden
 * sticky marker comes first. It stays under the size limit by dropping
 * rows from the end (least important first) and says how many it dropped.
 */
export function renderMarkdown(report: ComparisonReport, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? GITHUB_COMMENT_LIMIT;
  const layout = layoutReport(report);
  const { counts, undecidedBound } = countRows(layout.rows);
  const significant = layout.rows.filter((r) => SIGNIFICANT.includes(r.verdict));
  const rest = layout.rows.filter((r) => !SIGNIFICANT.includes(r.verdict));
  const benchmarks = `${layout.rows.length} benchmark${layout.rows.length === 1 ? '' : 's'}`;
  const head = [
    options.marker ?? REPORT_MARKER,
    `### ${inertText(options.title ?? 'benchbot')}: ${actionHeadline(layout.rows, report, inertCode, !options.merged)}`,
    '',
    `${benchmarks}: ${headline(counts, undecidedBound)}.`,
    '',
  ].join('\n');
  const environment = [options.environment ? `Environment: ${inertText(options.environment)}.` : '', options.footer ?? ''].filter((x) => x !== '').join(' ');
  const tail = [
    ...(options.where ? [options.where, ''] : []),
    ...dashboardLines(significant, options.dashboard),
    ...warningLines(report.warnings, layout, 50),
    '',
    `<details><summary>How these verdicts were reached</summary>`,
    '',
    methodNote(report),
    ...(options.statistics ? ['', options.statistics] : []),
    ...constantLines(layout),
    '',
    '</details>',
    // A blank line first: right after `</details>` the line would join its HTML block, where markdown is not read.
    ...(environment === '' ? [] : ['', `<sub>${environment}</sub>`]),
  ].join('\n');

  // Reserve room for the notice that rows were dropped, then fill the budget.
  const budget = limit - head.length - tail.length - 400;
  const significantBlock = tableWithin(significant, budget);
  const restBudget = budget - significantBlock.text.length;
  const restBlock = tableWithin(rest, restBudget - 200);
  const parts = [head];
  if (significant.length > 0) parts.push(significantBlock.text, '');
  if (rest.length > 0) {
    const summary = `${significant.length > 0 ? `${rest.length} other` : rest.length} benchmark${rest.length === 1 ? '' : 's'} (${countsOf(rest)})`;
    parts.push(`<details><summary>${summary}</summary>`, '', restBlock.text, '', '</details>', '');
  }
  const dropped = significantBlock.dropped + restBlock.dropped;
  if (dropped > 0) {
    parts.push(`_${dropped} row${dropped === 1 ? '' : 's'} left out to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en-US')}-character comment limit; the JSON report has every row._`, '');
  }
  parts.push(tail);
  return parts.join('\n');
}

/**
 * withFooter adds benchbot-written markdown (a link to the run) to a
 * rendered report's last footer line, so the footer stays at most two
 * lines; a caller with untrusted text passes it through inertText first.
 */
export function withFooter(markdown: string, text: string): string {
  return markdown.endsWith('</sub>') ? `${markdown.slice(0, -'</sub>'.length)} ${text}</sub>` : `${markdown}\n\n<sub>${text}</sub>`;
}

/** dashboardLines links the significant rows' nightly series on the dashboard (names through inertText; the URL is built, not taken from the report). */
function dashboardLines(rows: readonly ReportRow[], dashboard: MarkdownOptions['dashboard']): string[] {
  if (!dashboard || rows.length === 0 || dashboardRoot(dashboard.url) === undefined) return [];
  const links: string[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    // The metric that put the row here: a regressed B/op links B/op's series, not the unchanged time's.
    const c = r.lead;
    const id = dashboardSeriesId(dashboard.repo, `${dashboard.branch}:${c.benchmark}:${c.metric}:${dashboard.machine}`);
    const url = dashboardSeriesUrl(dashboard.url, id);
    if (url === undefined || seen.has(id)) continue;
    seen.add(id);
    links.push(`[${inertText(`${c.benchmark} (${c.metric})`)}](<${url}>)`);
    if (links.length === MAX_DASHBOARD_LINKS) break;
  }
  const more = rows.length > links.length ? ` and [the rest](<${dashboardRoot(dashboard.url)}>)` : '';
  return links.length === 0 ? [] : ['', `Nightly history on the dashboard: ${links.join(', ')}${more}.`];
}

function tableWithin(rows: readonly ReportRow[], budget: number): { text: string; dropped: number } {
  const withOthers = rows.some((r) => r.others.length > 0);
  const header = withOthers ? HEADER_WITH_OTHERS : HEADER;
  const lines = [header];
  let size = header.length;
  let shown = 0;
  for (const r of rows) {
    const line = row(r, withOthers);
    if (size + line.length + 1 > budget) break;
    lines.push(line);
    size += line.length + 1;
    shown += 1;
  }
  return { text: shown === 0 && rows.length > 0 ? '' : lines.join('\n'), dropped: rows.length - shown };
}

function row(r: ReportRow, withOthers: boolean): string {
  const { comparison: c, others } = r;
  const decided = c.verdict === 'regressed' || c.verdict === 'improved';
  const change = c.ratio === null ? '–' : formatRatio(c.ratio, c.ratioCi, changeWords(c.unit, c.better), (text) => bold(text, decided));
  const metric = `${inertCode(c.metric)}${c.better === 'higher' ? ' ↑' : ''}`;
  // A reason is benchbot's own words around the counts; inertText all the same, as every cell.
  const byTime = decidedByTime(r) ? `${VERDICT_LABEL[r.verdict]} by ${inertCode(r.lead.metric)}; ${inertCode(c.metric)} ` : '';
  const verdict = `${byTime}${VERDICT_LABEL[c.verdict]}${inertText(verdictDetail(c))}${c.warnings.length > 0 ? ' ⚠️' : ''}`;
  const cells = [inertCode(c.benchmark), metric, side(c, 'base'), side(c, 'head'), change, formatP(c.q), verdict];
  const note = disagreementNote(r, inertCode);
  if (withOthers) cells.push(`${others.length === 0 ? '–' : otherMetrics(others, inertCode, otherLabel)}${note === undefined ? '' : `. **${note}**`}`);
  return `| ${cells.join(' | ')} |`;
}

// A verdict beside another metric: the table's label, which marks what a reader scans for.
function otherLabel(verdict: Verdict): string {
  return VERDICT_LABEL[verdict];
}

function side(c: Comparison, which: 'base' | 'head'): string {
  const s = c[which];
  if (s === null) return '–';
  return `${inertText(formatQuantity(s.median, c.unit))} (${repeatsNote(c, which)})`;
}

function bold(text: string, on: boolean): string {
  return on ? `**${text}**` : text;
}

function countsOf(rows: readonly ReportRow[]): string {
  const counts = new Map<string, number>();
  for (const { verdict } of rows) {
    const label = verdict === 'inconclusive' ? 'undecided' : verdict;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(', ');
}

/**
 * allWarnings lists suite warnings first, then the per-comparison ones as a
 * text report shows them: one line per kind naming the benchmarks, then
 * each one-off note once per benchmark. Untrusted: escape where shown.
 */
export function allWarnings(report: ComparisonReport): string[] {
  const layout = layoutReport(report);
  return [
    ...report.warnings,
    ...layout.warningGroups.map((g) => `${g.kind}: ${names(g.items.map((i) => `${i.benchmark}${i.sides ? ` (${i.sides})` : ''}`), (x) => x)}. ${g.summary}`),
    ...layout.otherWarnings.map((o) => `${o.benchmark} (${o.metrics.join(', ')}): ${o.message}`),
  ];
}

function names(items: readonly string[], show: (name: string) => string): string {
  const shown = items.slice(0, MAX_NAMES_PER_LINE).map(show).join(', ');
  return items.length > MAX_NAMES_PER_LINE ? `${shown} and ${items.length - MAX_NAMES_PER_LINE} more` : shown;
}

// What the table left out on purpose: metrics constant on both sides.
function constantLines(layout: ReportLayout): string[] {
  if (layout.constants.length === 0) return [];
  const groups = layout.constants.map((g) => `${inertCode(g.metric)} = ${g.values.map((v) => `${inertText(v.value)} in ${v.benchmarks.length === 1 ? inertCode(v.benchmarks[0]) : `${v.benchmarks.length} benchmarks`}`).join(', ')}`);
  return ['', `Constant on both sides, unchanged, left out of the table: ${groups.join('; ')}.`];
}

function warningLines(suite: readonly string[], layout: ReportLayout, max: number): string[] {
  const lines = [
    ...suite.map((w) => `- ${inertText(w)}`),
    ...layout.warningGroups.map((g) => `- **${g.kind}**: ${names(g.items.map((i) => `${inertCode(i.benchmark)}${i.sides ? ` (${i.sides})` : ''}`), (x) => x)}. ${g.summary}`),
    ...layout.otherWarnings.map((o) => `- ${inertCode(o.benchmark)} (${o.metrics.map((m) => inertText(m)).join(', ')}): ${inertText(o.message)}`),
  ];
  if (lines.length === 0) return [];
  const shown = lines.slice(0, max);
  if (lines.length > max) shown.push(`- … and ${lines.length - max} more (see the JSON report)`);
  return ['', '**Warnings**', '', ...shown];
}

