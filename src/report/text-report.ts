import type { ComparisonReport } from '../compare/compare-runs.ts';
import { changeWords, formatP, formatQuantity, ratioParts } from './format-numbers.ts';
import { headline } from './report-order.ts';
import { actionHeadline, countRows, decidedByTime, disagreementNote, layoutReport, methodNote, otherMetrics, repeatsNote, verdictDetail, type ConstantGroup, type ReportRow } from './report-layout.ts';
import { allWarnings } from './markdown-report.ts';
import { inertPlain } from './inert-markdown.ts';

/**
 * renderText renders a comparison as an aligned table for terminals and CI
 * logs, laid out like the markdown report (the headline that says what to
 * do, the counts, one row per benchmark with its other metrics beside it,
 * warnings by kind, report-layout.ts). Names, units and warnings go
 * through inertPlain: a name must not break a row, move the cursor or
 * start a workflow command.
 */
export function renderText(report: ComparisonReport): string {
  const layout = layoutReport(report);
  const { counts, undecidedBound } = countRows(layout.rows);
  const withOthers = layout.rows.some((r) => r.others.length > 0);
  const rows = layout.rows.map((r) => cells(r, withOthers));
  const header = ['benchmark', 'metric', 'base', 'head', 'change', 'CI', 'q', 'verdict', ...(withOthers ? ['other metrics'] : [])];
  // A reduce, not Math.max(...): a suite of 120 k+ rows overflows the stack.
  const widths = header.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i].length), h.length));
  const line = (cols: string[]) => cols.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const benchmarks = `${layout.rows.length} benchmark${layout.rows.length === 1 ? '' : 's'}`;
  const out = [actionHeadline(layout.rows, report, inertPlain), `${benchmarks}: ${headline(counts, undecidedBound)}`, '', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  if (layout.constants.length > 0) {
    const values = (g: ConstantGroup) => g.values.map((v) => `${inertPlain(v.value)} in ${v.benchmarks.length === 1 ? inertPlain(v.benchmarks[0]) : `${v.benchmarks.length} benchmarks`}`).join(', ');
    out.push('', `constant on both sides, unchanged: ${layout.constants.map((g) => `${inertPlain(g.metric)} = ${values(g)}`).join('; ')}`);
  }
  const warnings = allWarnings(report);
  if (warnings.length > 0) {
    out.push('', 'warnings:');
    for (const w of warnings) out.push(`  - ${inertPlain(w)}`);
  }
  out.push('', methodNote(report));
  return out.join('\n');
}

function cells(r: ReportRow, withOthers: boolean): string[] {
  const { comparison: c, others } = r;
  const change = c.ratio === null ? { estimate: '–', ci: '' } : ratioParts(c.ratio, c.ratioCi, changeWords(c.unit, c.better));
  const note = disagreementNote(r, inertPlain);
  const othersText = others.length === 0 ? '–' : otherMetrics(others, inertPlain, (v) => (v === 'inconclusive' ? 'undecided' : v));
  return [
    inertPlain(c.benchmark),
    inertPlain(c.metric) + (c.better === 'higher' ? ' (higher is better)' : ''),
    c.base ? `${inertPlain(formatQuantity(c.base.median, c.unit))} ${repeatsNote(c, 'base')}` : '–',
    c.head ? `${inertPlain(formatQuantity(c.head.median, c.unit))} ${repeatsNote(c, 'head')}` : '–',
    change.estimate,
    change.ci,
    formatP(c.q),
    `${decidedByTime(r) ? `${r.verdict} by ${inertPlain(r.lead.metric)}; ${inertPlain(c.metric)} ` : ''}${c.verdict === 'inconclusive' ? 'undecided' : c.verdict}${inertPlain(verdictDetail(c))}`,
    ...(withOthers ? [`${othersText}${note === undefined ? '' : `. ${note}`}`] : []),
  ];
}
