import type { Verdict } from '../model/comparison.ts';
import { medianSorted, sortedCopy } from '../stats/order-statistics.ts';

/**
 * work-verdict: the decision rule for counted work (model/work-metrics.ts:
 * `instructions`, `estimated_cycles`), taken for what it is. A count under
 * valgrind with a fixed iteration schedule repeats exactly, or nearly, so a
 * few repeats per side (3 by default) show it; rank tests and their FDR
 * family would need ten rounds per side to say what three equal counts
 * already say, and would hide the one thing that matters: whether the
 * repeats agree.
 *
 * - the change is the ratio of the medians, head / base;
 * - each side's spread is how far its repeats lie apart, ln(max / min);
 * - `unchanged`: every head repeat is within the threshold of every base
 *   repeat (the range of head/base over all pairs lies inside
 *   (1 - theta, 1 + theta));
 * - `regressed` / `improved`: the change is beyond the threshold and the
 *   repeats agree: each side has at least {@link MIN_AGREEING_REPEATS}
 *   repeats and a spread at most {@link WORK_AGREEMENT} of the change (on
 *   log values), or exactly 2 equal repeats;
 * - anything else is `inconclusive`, with a one-line `reason`: the repeats
 *   disagree (or there are too few to tell).
 *
 * A side with at least {@link SET_ASIDE_FROM} repeats first sets aside the
 * one farthest from its median (`setAside`); all of the above is then
 * computed on the repeats kept.
 */

/**
 * WORK_AGREEMENT: the repeats of a side agree when their spread is at most
 * a quarter of the change. Under noise of any size, 3 repeats per side of
 * an A/A comparison then call a change beyond the threshold in at most
 * 4 in 10,000 benchmarks (simulated, 10^6 Gaussian draws per noise level
 * from 0.1% to 2%); a half allowed 58 in 10,000. Counts that repeat exactly
 * have no spread and are decided at any change beyond the threshold.
 */
export const WORK_AGREEMENT = 0.25;

/**
 * MIN_AGREEING_REPEATS: with fewer repeats (2) on a side, the spread says
 * little about the next repeat (2 per side under Gaussian noise called 1.9%
 * of A/A changes at a quarter), so 2 repeats agree only when they are
 * equal; 1 repeat shows nothing either way and decides nothing.
 */
export const MIN_AGREEING_REPEATS = 3;

/**
 * SET_ASIDE_FROM: a side with this many repeats or more sets aside the one
 * farthest from its median (|ln(value / median)|, the higher on a tie)
 * before it is judged. A count under valgrind is exact within one memory
 * layout, but CPython's work moves with the layout of the process
 * (directory names, environment size): across 7 layouts, 13 of 50 pint
 * benchmarks under pytest-benchmark spanned more than 1% and a few jumped
 * 7-9% in one layout. Repeats counted in different layouts then disagree
 * because of one layout, not the code. With 5 repeats per side, one in
 * each of 5 layouts, setting the farthest aside left 47-50 of those 50
 * unchanged at 1% and called no change (a simulation of random layout
 * draws). Fewer repeats are judged whole: the rule was chosen for 5, one
 * per layout, and setting one of 3 aside would leave 2, which must then be
 * equal.
 */
export const SET_ASIDE_FROM = 5;

/**
 * WorkJudgement is the rule's outcome for one benchmark x work metric:
 * `ratio` head/base of the medians, `range` the lowest and highest
 * head/base over every pair of repeats, `spread` each side's max/min - 1,
 * all of the repeats kept; `setAside` the repeat each side set aside
 * (present only when one was, {@link SET_ASIDE_FROM}); and for
 * `inconclusive` the one-line `reason`.
 */
export interface WorkJudgement {
  verdict: Verdict;
  ratio: number | null;
  range: [number, number] | null;
  spread: { base: number; head: number };
  setAside?: { base?: number; head?: number };
  reason?: string;
}

/** KeptRepeats is one side's repeats after {@link setAsideFarthest}: the repeats `kept` and the one `setAside`, if any. */
export interface KeptRepeats {
  kept: number[];
  setAside?: number;
}

/**
 * setAsideFarthest sets aside, from a side of at least `from` repeats
 * ({@link SET_ASIDE_FROM}), the one farthest from the side's median in
 * ratio terms (|ln(value / median)|; on a tie the higher value, so the
 * choice does not depend on the order of the repeats). A side with a count
 * that is not positive and finite keeps every repeat: that is a broken
 * count, not a layout, and judgeWork says so.
 */
export function setAsideFarthest(values: readonly number[], from: number = SET_ASIDE_FROM): KeptRepeats {
  if (values.length < from || !values.every((v) => v > 0 && Number.isFinite(v))) return { kept: [...values] };
  const median = medianSorted(sortedCopy(values));
  // max(v/m, m/v) orders as |ln(v/m)| and keeps exact ties exact (50 and 200 around 100 are both 2).
  const distance = (v: number) => (v >= median ? v / median : median / v);
  let far = 0;
  for (let i = 1; i < values.length; i++) {
    const d = distance(values[i]);
    const best = distance(values[far]);
    if (d > best || (d === best && values[i] > values[far])) far = i;
  }
  return { kept: values.filter((_, i) => i !== far), setAside: values[far] };
}

/**
 * judgeWork applies the rule above to a lower-is-better count: `allBase`
 * and `allHead` are the repeats of each side (one value per repeat, before
 * any is set aside), `threshold` theta as a fraction (compare-runs.ts
 * DEFAULT_WORK_THRESHOLD), `setAsideFrom` the repeats a side needs before
 * one is set aside ({@link SET_ASIDE_FROM}; Infinity judges every repeat,
 * as the tests do to show what setting aside is worth).
 */
export function judgeWork(allBase: readonly number[], allHead: readonly number[], threshold: number, setAsideFrom: number = SET_ASIDE_FROM): WorkJudgement {
  const keptBase = setAsideFarthest(allBase, setAsideFrom);
  const keptHead = setAsideFarthest(allHead, setAsideFrom);
  const base = keptBase.kept;
  const head = keptHead.kept;
  const b = repeatRange(base);
  const h = repeatRange(head);
  const spread = { base: b.max / b.min - 1, head: h.max / h.min - 1 };
  if (!(b.min > 0 && h.min > 0 && Number.isFinite(b.max) && Number.isFinite(h.max))) {
    return { verdict: 'inconclusive', ratio: null, range: null, spread, reason: 'a count is zero, negative or not finite: no ratio to judge' };
  }
  const ratio = h.median / b.median;
  const range: [number, number] = [h.min / b.max, h.max / b.min];
  const setAside = setAsideOf(keptBase, keptHead);
  const judged = { ratio, range, spread, ...(setAside === undefined ? {} : { setAside }) };
  if (base.length < 2 || head.length < 2) {
    const side = base.length < 2 ? 'base' : 'head';
    return { ...judged, verdict: 'inconclusive', reason: `one repeat on ${side}: 2 or more per side show whether the count repeats` };
  }
  if (range[0] > 1 - threshold && range[1] < 1 + threshold) return { ...judged, verdict: 'unchanged' };
  const change = Math.abs(Math.log(ratio));
  if (change > 0 && (ratio > 1 + threshold || ratio < 1 - threshold)) {
    const disagreeing = ([['base', b], ['head', h]] as const).filter(([, s]) => !agrees(s, change));
    if (disagreeing.length === 0) return { ...judged, verdict: ratio > 1 ? 'regressed' : 'improved' };
    return { ...judged, verdict: 'inconclusive', reason: `repeats disagree: ${disagreeing.map(([name, s]) => spreadWords(name, s)).join(', ')} against a change of ${signed(ratio - 1)}` };
  }
  const wide = ([['base', b], ['head', h]] as const).filter(([, s]) => s.max > s.min);
  if (wide.length === 0) return { ...judged, verdict: 'inconclusive', reason: `a change of ${signed(ratio - 1)} is right at the ±${percent(threshold)} threshold` };
  return { ...judged, verdict: 'inconclusive', reason: `repeats disagree: ${wide.map(([name, s]) => spreadWords(name, s)).join(', ')}: too far apart to call ${signed(ratio - 1)} unchanged at ±${percent(threshold)}` };
}

/**
 * CountedChange is judgeWork's outcome where it found a ratio: `ratio`
 * head/base of the medians, `range` head/base over every pair of repeats,
 * `moved` when the rule called it regressed or improved.
 */
export interface CountedChange {
  ratio: number;
  range: [number, number];
  moved: boolean;
}

/**
 * countedChange is judgeWork for the callers that ask only whether counted
 * work moved (the scan's A/B, the bisection's ends): null without a ratio
 * (a side with no repeat, a count not positive or not finite).
 */
export function countedChange(base: readonly number[], head: readonly number[], threshold: number): CountedChange | null {
  if (base.length === 0 || head.length === 0) return null;
  const j = judgeWork(base, head, threshold);
  if (j.ratio === null || j.range === null) return null;
  return { ratio: j.ratio, range: j.range, moved: j.verdict === 'regressed' || j.verdict === 'improved' };
}

/** RepeatRange is one side's repeats: how many, the lowest, the highest and the median. */
export interface RepeatRange {
  n: number;
  min: number;
  max: number;
  median: number;
}

/** repeatRange summarizes one side's repeats (at least one value). */
export function repeatRange(values: readonly number[]): RepeatRange {
  const sorted = sortedCopy(values);
  return { n: sorted.length, min: sorted[0], max: sorted[sorted.length - 1], median: medianSorted(sorted) };
}

function setAsideOf(base: KeptRepeats, head: KeptRepeats): WorkJudgement['setAside'] {
  if (base.setAside === undefined && head.setAside === undefined) return undefined;
  return { ...(base.setAside === undefined ? {} : { base: base.setAside }), ...(head.setAside === undefined ? {} : { head: head.setAside }) };
}

function agrees(s: RepeatRange, change: number): boolean {
  const spread = Math.log(s.max / s.min);
  if (s.n < MIN_AGREEING_REPEATS) return spread === 0;
  return spread <= WORK_AGREEMENT * change;
}

function spreadWords(name: string, s: RepeatRange): string {
  if (s.n < MIN_AGREEING_REPEATS && s.max > s.min) return `${s.n} repeats on ${name} differ by ${spreadPercent(s.max / s.min - 1)} (${MIN_AGREEING_REPEATS} needed when they differ)`;
  return `${name} ${s.max > s.min ? `spread ${spreadPercent(s.max / s.min - 1)}` : 'equal'}`;
}

/** spreadPercent prints a spread of repeats with two significant digits (`0.0041%`, `1.1%`), as the reports show it. */
export function spreadPercent(fraction: number): string {
  return `${Number((fraction * 100).toPrecision(2))}%`;
}

// Small spreads matter here (0.004%), so more digits than a time change.
function percent(fraction: number): string {
  const p = fraction * 100;
  return `${p === 0 ? '0' : Math.abs(p) >= 1 ? p.toFixed(2) : Number(p.toPrecision(2)).toString()}%`;
}

function signed(fraction: number): string {
  return `${fraction >= 0 ? '+' : '-'}${percent(Math.abs(fraction))}`;
}
