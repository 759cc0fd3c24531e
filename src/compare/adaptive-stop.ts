import type { Comparison } from '../model/comparison.ts';
import { summarize, type ComparisonReport } from './compare-runs.ts';
import { isFutile } from './power.ts';

/**
 * LookContext is where adaptive sampling stands at one look: rounds per
 * side now and at the budget, this look's alpha and the last look's, and
 * whether this is the last look.
 */
export interface LookContext {
  roundsPerSide: number;
  maxRoundsPerSide: number;
  alpha: number;
  lastAlpha: number;
  /** equivalenceAlpha, lastEquivalenceAlpha: the one-sided levels of the equivalence tests (default alpha, lastAlpha). */
  equivalenceAlpha?: number;
  lastEquivalenceAlpha?: number;
  last: boolean;
  /** futilityPower overrides power.ts FUTILITY_POWER (for measuring other choices). */
  futilityPower?: number;
}

/**
 * LookOutcome: `report` merges the decisions kept from earlier looks with
 * this look's comparisons; `settled` holds every comparison that needs no
 * more rounds (decided, stopped for futility, or untestable), keyed by
 * benchmark and metric, for the next look; `undecided` the primary ones
 * that still need rounds; `stop` is true when none does or the budget is
 * spent.
 */
export interface LookOutcome {
  report: ComparisonReport;
  settled: Map<string, Comparison>;
  undecided: Comparison[];
  stop: boolean;
}

/** decidedForOthers: a verdict decided after the comparison's own futility stop, on rounds the run measured for other benchmarks. */
export const decidedForOthers = (c: Comparison): boolean => c.futileAt !== undefined && c.decision !== 'futility' && c.verdict !== 'inconclusive';

const keyOf = (c: Comparison) => `${c.benchmark}\u0000${c.metric}`;

/**
 * applyLook is one look of a group-sequential run:
 *
 * - a comparison decided at an earlier look keeps that decision and its
 *   numbers (a group-sequential test stops at the first boundary it
 *   crosses; later rounds, taken for other benchmarks, do not reopen it);
 * - a comparison decided now (regressed, improved or unchanged, each at this
 *   look's alpha) is settled, with `decidedAt` the rounds per side;
 * - an undecided one whose chance of being decided by the budget is below
 *   FUTILITY_POWER (power.ts) is settled as `futility` (`futileAt` the
 *   rounds per side), keeping its bound;
 * - one stopped for futility at an earlier look never keeps the rounds
 *   going, but while others do, its rounds exist (every round runs the whole
 *   command) and futility is non-binding: it is judged again at every later
 *   look at that look's level, the levels the design spends whether or not
 *   a benchmark stopped. Decided there, it takes that verdict, `decidedAt`
 *   the look and `futileAt` still set (a verdict from rounds measured for
 *   others); still open, it stays `futility` with this look's numbers and
 *   bound, even at the last look;
 * - at the last look the rest are `budget`;
 * - untestable ones (fewer than 2 values, units that do not convert) and
 *   new, removed or errored benchmarks need no rounds either.
 *
 * Sampling stops when every benchmark is settled: its primary metric. A
 * secondary metric (the duplicate time, a counter) is decided when its data
 * allow and never keeps the rounds going; one still open when sampling
 * stops keeps this look's numbers and its bound, as `undecided`.
 */
export function applyLook(current: ComparisonReport, previous: ReadonlyMap<string, Comparison>, ctx: LookContext): LookOutcome {
  const settled = new Map(previous);
  const undecided: Comparison[] = [];
  const comparisons = current.comparisons.map((fresh) => {
    const key = keyOf(fresh);
    const kept = previous.get(key);
    if (kept && kept.decision !== 'futility') return kept;
    const c: Comparison = { ...fresh, warnings: [...fresh.warnings] };
    if (kept) return rejudge(c, kept, ctx.roundsPerSide, key, settled);
    if (c.verdict !== 'inconclusive' || c.p === null) {
      if (c.verdict === 'regressed' || c.verdict === 'improved' || c.verdict === 'unchanged') c.decidedAt = ctx.roundsPerSide;
      settled.set(key, c);
      return c;
    }
    if (ctx.last) {
      c.decision = 'budget';
      settled.set(key, c);
      return c;
    }
    const threshold = c.threshold ?? current.threshold;
    if (isFutile(c, { ...ctx, threshold })) {
      c.decision = 'futility';
      c.decidedAt = ctx.roundsPerSide;
      c.futileAt = ctx.roundsPerSide;
      settled.set(key, c);
      return c;
    }
    if (c.family !== 'secondary') undecided.push(c);
    return c;
  });
  const report: ComparisonReport = { ...current, comparisons, summary: summarize(comparisons) };
  return { report, settled, undecided, stop: undecided.length === 0 };
}

/**
 * rejudge settles a comparison stopped for futility at an earlier look
 * (`kept`) on this look's data (`c`) when it has rounds `kept` did not:
 * decided now, it is that verdict, decided at this look on rounds measured
 * for others; otherwise it stays `futility` from its own stop, with this
 * look's numbers and bound. Either way it needs no rounds of its own.
 */
function rejudge(c: Comparison, kept: Comparison, roundsPerSide: number, key: string, settled: Map<string, Comparison>): Comparison {
  // No new rounds (a shard that stopped while the merged report's other shards went on): the same data, judged already.
  if ((c.base?.n ?? 0) <= (kept.base?.n ?? 0) && (c.head?.n ?? 0) <= (kept.head?.n ?? 0)) return kept;
  c.futileAt = kept.futileAt ?? kept.decidedAt;
  if (c.verdict === 'regressed' || c.verdict === 'improved' || c.verdict === 'unchanged') c.decidedAt = roundsPerSide;
  else if (c.verdict === 'inconclusive') {
    c.decision = 'futility';
    c.decidedAt = kept.decidedAt;
  } else return kept;
  settled.set(key, c);
  return c;
}
