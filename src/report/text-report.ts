import type { Comparison } from '../model/comparison.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { formatChange, formatP, formatQuantity } from './format-numbers.ts';
import { byImportance, headline } from './report-order.ts';
import { allWarnings } from './markdown-report.ts';

/** renderText renders a comparison as an aligned table for terminals and CI logs. */
export function renderText(report: ComparisonReport): string {
  const rows = [...report.comparisons].sort(byImportance).map(cells);
  const header = ['benchmark', 'metric', 'base', 'head', 'change', 'CI', 'q', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols: string[]) => cols.map((c, i) => (i >= 2 && i <= 6 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd();
  const out = [headline(report.summary), '', line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
  const warnings = allWarnings(report);
  if (warnings.length > 0) out.push('', 'warnings:', ...warnings.map((w) => `  - ${w}`));
  out.push('', `threshold ${(report.threshold * 100).toFixed(1)}%, alpha ${Number(report.alpha.toPrecision(2))} (FDR across ${report.comparisons.length} comparisons)`);
  return out.join('\n');
}

function cells(c: Comparison): string[] {
  return [
    c.benchmark,
    c.metric + (c.better === 'higher' ? ' (higher is better)' : ''),
    c.base ? `${formatQuantity(c.base.median, c.unit)} n=${c.base.n}` : '–',
    c.head ? `${formatQuantity(c.head.median, c.unit)} n=${c.head.n}` : '–',
    c.ratio === null ? '–' : formatChange(c.ratio),
    c.ratioCi ? `[${formatChange(c.ratioCi[0])}, ${formatChange(c.ratioCi[1])}]` : '',
    formatP(c.q),
    c.verdict,
  ];
}
