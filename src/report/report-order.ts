import type { Comparison, Verdict } from '../model/comparison.ts';

/** SIGNIFICANT lists the verdicts shown in a report's main table. */
export const SIGNIFICANT: readonly Verdict[] = ['regressed', 'improved', 'error'];

/** costRatio reads a comparison's ratio so that above 1 is always worse. */
export function costRatio(c: Comparison): number | null {
  if (c.ratio === null || c.ratio <= 0) return null;
  return c.better === 'lower' ? c.ratio : 1 / c.ratio;
}

const VERDICT_ORDER: Record<Verdict, number> = { error: 0, regressed: 1, improved: 2, inconclusive: 3, new: 4, removed: 5, unchanged: 6 };

/**
 * byImportance sorts comparisons the way a reviewer reads them: errors and
 * regressions first, then improvements, each by the size of the change.
 */
export function byImportance(a: Comparison, b: Comparison): number {
  const order = VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict];
  if (order !== 0) return order;
  const size = (c: Comparison) => Math.abs(Math.log(costRatio(c) ?? 1));
  return size(b) - size(a) || a.benchmark.localeCompare(b.benchmark) || a.metric.localeCompare(b.metric);
}

/** headline summarizes a report in one line: `2 regressions, 1 improvement, 41 unchanged, geomean -0.4%`. */
export function headline(summary: { regressed: number; improved: number; unchanged: number; inconclusive: number; new: number; removed: number; error: number; geomeanRatio: number | null }): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts = [
    plural(summary.regressed, 'regression', 'regressions'),
    plural(summary.improved, 'improvement', 'improvements'),
    `${summary.unchanged} unchanged`,
  ];
  if (summary.inconclusive > 0) parts.push(`${summary.inconclusive} inconclusive`);
  if (summary.error > 0) parts.push(plural(summary.error, 'error', 'errors'));
  if (summary.new > 0) parts.push(`${summary.new} new`);
  if (summary.removed > 0) parts.push(`${summary.removed} removed`);
  if (summary.geomeanRatio !== null) {
    const percent = (summary.geomeanRatio - 1) * 100;
    parts.push(`geomean ${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`);
  }
  return parts.join(', ');
}
