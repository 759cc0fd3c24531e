import type { Comparison, SideSummary } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { formatChange, formatP, formatQuantity } from './format-numbers.ts';
import { SIGNIFICANT, byImportance, headline } from './report-order.ts';

/** GITHUB_COMMENT_LIMIT is the most characters GitHub accepts in a comment body. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** REPORT_MARKER is the hidden line that lets benchbot find and update its own comment. */
export const REPORT_MARKER = '<!-- benchbot:report -->';

/**
 * MarkdownOptions: `title` heads the comment, `environment` is the one-line
 * machine description, `marker` the hidden sticky marker (one per report kind
 * or shard), `limit` the size budget (GitHub's comment limit by default).
 */
export interface MarkdownOptions {
  title?: string;
  environment?: string;
  marker?: string;
  limit?: number;
  footer?: string;
}

const VERDICT_LABEL: Record<string, string> = {
  regressed: '🔴 regressed',
  improved: '🟢 improved',
  unchanged: 'unchanged',
  inconclusive: '⚪ inconclusive',
  new: 'new',
  removed: 'removed',
  error: '❌ error',
};

const HEADER = '| Benchmark | Metric | Base (median, CI) | Head (median, CI) | Change (CI) | q | Verdict |\n| --- | --- | --- | --- | --- | --- | --- |';

/**
 * renderMarkdown renders a comparison for a PR comment: headline, the
 * significant changes sorted by size, everything else collapsed, warnings,
 * environment and the hidden sticky marker. It stays under the size limit by
 * dropping rows from the end (least important first) and says how many it dropped.
 */
export function renderMarkdown(report: ComparisonReport, options: MarkdownOptions = {}): string {
  const limit = options.limit ?? GITHUB_COMMENT_LIMIT;
  const sorted = [...report.comparisons].sort(byImportance);
  const significant = sorted.filter((c) => SIGNIFICANT.includes(c.verdict));
  const rest = sorted.filter((c) => !SIGNIFICANT.includes(c.verdict));
  const head = [
    options.marker ?? REPORT_MARKER,
    `### ${options.title ?? 'benchbot'}: ${headline(report.summary)}`,
    '',
  ].join('\n');
  const tail = [
    ...warningLines(allWarnings(report), 50),
    '',
    `<sub>Threshold ${(report.threshold * 100).toFixed(1).replace(/\.0$/, '')}%, CI level ${((1 - report.alpha) * 100).toFixed(0)}%, false discovery rate ${Number(report.alpha.toPrecision(2))} across ${report.comparisons.length} comparisons (Mann-Whitney U, Hodges-Lehmann, Benjamini-Hochberg).${options.environment ? ` Environment: ${escapeCell(options.environment)}.` : ''}${options.footer ? ` ${options.footer}` : ''}</sub>`,
  ].join('\n');

  // Reserve room for the notice that rows were dropped, then fill the budget.
  const budget = limit - head.length - tail.length - 400;
  const significantBlock = tableWithin(significant, budget);
  const restBudget = budget - significantBlock.text.length;
  const restBlock = tableWithin(rest, restBudget - 200);
  const parts = [head];
  if (significant.length > 0) parts.push(significantBlock.text, '');
  else parts.push('No significant changes.', '');
  if (rest.length > 0) {
    parts.push(`<details><summary>${rest.length} other comparison${rest.length === 1 ? '' : 's'} (${countsOf(rest)})</summary>`, '', restBlock.text, '', '</details>', '');
  }
  const dropped = significantBlock.dropped + restBlock.dropped;
  if (dropped > 0) {
    parts.push(`_${dropped} row${dropped === 1 ? '' : 's'} left out to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en-US')}-character comment limit; the JSON report has every row._`, '');
  }
  parts.push(tail);
  return parts.join('\n');
}

function tableWithin(rows: readonly Comparison[], budget: number): { text: string; dropped: number } {
  const lines = [HEADER];
  let size = HEADER.length;
  let shown = 0;
  for (const c of rows) {
    const line = row(c);
    if (size + line.length + 1 > budget) break;
    lines.push(line);
    size += line.length + 1;
    shown += 1;
  }
  return { text: shown === 0 && rows.length > 0 ? '' : lines.join('\n'), dropped: rows.length - shown };
}

function row(c: Comparison): string {
  const change = c.ratio === null ? '–' : `${bold(formatChange(c.ratio), c.verdict === 'regressed' || c.verdict === 'improved')}${c.ratioCi ? ` [${formatChange(c.ratioCi[0])}, ${formatChange(c.ratioCi[1])}]` : ''}`;
  const verdict = VERDICT_LABEL[c.verdict] + (c.warnings.length > 0 ? ` ⚠️` : '');
  return `| ${code(c.benchmark)} | ${code(c.metric)}${c.better === 'higher' ? ' ↑' : ''} | ${side(c.base, c.unit)} | ${side(c.head, c.unit)} | ${change} | ${formatP(c.q)} | ${verdict} |`;
}

function side(s: SideSummary | null, unit: string): string {
  if (s === null) return '–';
  const ci = s.n >= 2 ? ` [${formatQuantity(s.ci[0], unit)}, ${formatQuantity(s.ci[1], unit)}]` : '';
  return `${formatQuantity(s.median, unit)}${ci} (n=${s.n})`;
}

function bold(text: string, on: boolean): string {
  return on ? `**${text}**` : text;
}

function countsOf(rows: readonly Comparison[]): string {
  const counts = new Map<string, number>();
  for (const c of rows) counts.set(c.verdict, (counts.get(c.verdict) ?? 0) + 1);
  return [...counts].map(([verdict, n]) => `${n} ${verdict}`).join(', ');
}

/** allWarnings lists suite warnings first, then each comparison's, prefixed with what they concern. */
export function allWarnings(report: ComparisonReport): string[] {
  const perComparison = [...report.comparisons].sort(byImportance).flatMap((c) => c.warnings.map((w) => `${c.benchmark} (${c.metric}): ${w}`));
  return [...report.warnings, ...perComparison];
}

function warningLines(warnings: readonly string[], max: number): string[] {
  if (warnings.length === 0) return [];
  const shown = warnings.slice(0, max).map((w) => `- ${escapeInline(w)}`);
  if (warnings.length > max) shown.push(`- … and ${warnings.length - max} more (see the JSON report)`);
  return ['', '**Warnings**', '', ...shown];
}

/** escapeCell keeps free text from breaking the table or injecting markup. */
export function escapeCell(text: string): string {
  return escapeInline(text).replace(/\|/g, '\\|');
}

/**
 * code shows a name as a code span, where markdown and HTML are inert; only
 * backticks (which would end the span), pipes (which would end the cell) and
 * line breaks need care.
 */
export function code(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|')}\``;
}

function escapeInline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[<>&]/g, (ch) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;' })[ch] as string).replace(/([`*_[\]])/g, '\\$1');
}
