import type { ComparisonReport } from '../compare/compare-runs.ts';
import { changeWords, formatP, formatQuantity, ratioParts } from './format-numbers.ts';
import { headline } from './report-order.ts';
import { boundOf, countRows, formatBound, layoutReport, methodNote, type ConstantGroup, type ReportRow } from './report-layout.ts';
import { allWarnings } from './markdown-report.ts';
import { inertPlain } from './inert-markdown.ts';

/**
 * renderText renders a comparison as an aligned table for terminals and CI
 * logs, laid out like the markdown report (one row per benchmark, warnings
 * by kind, report-layout.ts). Names, units and warnings go through
 * inertPlain: a name must not break a row, move the cursor or start a
 * workflow command.
 */
export function renderText(report: ComparisonReport): string {
  const layout = layoutReport(report);
  const { counts, undecidedBound } = countRows(layout.rows);
  const rows = layout.rows.map(cells);
  const header = ['benchmark', 'metric', 'base', 'head', 'change', 'CI', 'q', 'verdict'];
  // A reduce, not Math.max(...): a suite of 120 k+ rows overflows the stack.
  const widths = header.map((h, i) => rows.reduce((w, r) => Math.max(w, r[i].length), h.length));
  const line = (cols: string[]) => cols.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [headline(counts, undecidedBound), '', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  if (layout.foldedMetrics.size > 0) out.push('', `folded into the time's row (same measurement, same verdict): ${[...layout.foldedMetrics].map(([m, n]) => `${inertPlain(m)} (${n})`).join(', ')}`);
  if (layout.constants.length > 0) {
    const values = (g: ConstantGroup) => g.values.map((v) => `${inertPlain(v.value)} in ${v.benchmarks.length === 1 ? inertPlain(v.benchmarks[0]) : `${v.benchmarks.length} benchmarks`}`).join(', ');
    out.push(`constant on both sides, unchanged: ${layout.constants.map((g) => `${inertPlain(g.metric)} = ${values(g)}`).join('; ')}`);
  }
  const warnings = allWarnings(report);
  if (warnings.length > 0) {
    out.push('', 'warnings:');
    for (const w of warnings) out.push(`  - ${inertPlain(w)}`);
  }
  out.push('', methodNote(report));
  return out.join('\n');
}

function cells({ comparison: c, folded }: ReportRow): string[] {
  const change = c.ratio === null ? { estimate: '–', ci: '' } : ratioParts(c.ratio, c.ratioCi, changeWords(c.unit, c.better));
  const bound = c.verdict === 'inconclusive' ? boundOf(c) : null;
  return [
    inertPlain(c.benchmark),
    inertPlain(c.metric) + (c.better === 'higher' ? ' (higher is better)' : '') + (folded.length > 0 ? ` (+ ${folded.map((f) => inertPlain(f.metric)).join(', ')})` : ''),
    c.base ? `${inertPlain(formatQuantity(c.base.median, c.unit))} n=${c.base.n}` : '–',
    c.head ? `${inertPlain(formatQuantity(c.head.median, c.unit))} n=${c.head.n}` : '–',
    change.estimate,
    change.ci,
    formatP(c.q),
    c.verdict === 'inconclusive' ? `undecided${bound === null ? '' : `: no change beyond ${formatBound(bound)}`}` : c.verdict,
  ];
}
