import type { Comparison, Verdict } from '../model/comparison.ts';
import { MAX_SHOWN_FACTOR } from './format-numbers.ts';

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

/**
 * headline summarizes a report in one line, zero counts left out:
 * `1 regression, 10 unchanged, 1 undecided (no change beyond +3.1%)`.
 * `undecided` comparisons are the `inconclusive` verdicts; `bound` is what
 * they still ruled out (report-layout's Bound: for several, the widest,
 * said as ± since the others may lie on either side).
 */
export function headline(summary: { regressed: number; improved: number; unchanged: number; inconclusive: number; new: number; removed: number; error: number }, bound: { value: number; sign: string } | null = null): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const parts: string[] = [];
  if (summary.error > 0) parts.push(plural(summary.error, 'error', 'errors'));
  if (summary.regressed > 0) parts.push(plural(summary.regressed, 'regression', 'regressions'));
  if (summary.improved > 0) parts.push(plural(summary.improved, 'improvement', 'improvements'));
  if (summary.unchanged > 0) parts.push(`${summary.unchanged} unchanged`);
  if (summary.inconclusive > 0) {
    // An interval reaching past MAX_SHOWN_FACTOR (an infinite one, from extreme samples) rules out nothing worth a number.
    const huge = bound !== null && !(bound.value + 1 <= MAX_SHOWN_FACTOR);
    const percent = bound === null ? '' : huge ? `more than ${MAX_SHOWN_FACTOR}x` : `${(bound.value * 100).toFixed(1)}%`;
    const sign = (s: string) => (huge ? '' : s);
    const ruledOut = bound === null ? '' : summary.inconclusive === 1 ? ` (no change beyond ${sign(bound.sign)}${percent})` : ` (none changed beyond ${sign('±')}${percent})`;
    parts.push(`${summary.inconclusive} undecided${ruledOut}`);
  }
  if (summary.new > 0) parts.push(`${summary.new} new`);
  if (summary.removed > 0) parts.push(`${summary.removed} removed`);
  return parts.length > 0 ? parts.join(', ') : 'no comparisons';
}
