import type { Comparison } from '../model/comparison.ts';

/** DECISIVE verdicts end sampling for a comparison; `inconclusive` asks for more rounds. */
const DECISIVE = new Set(['regressed', 'improved', 'unchanged', 'new', 'removed', 'error']);

/** StopDecision says whether adaptive sampling may stop and which comparisons still need rounds. */
export interface StopDecision {
  stop: boolean;
  undecided: Comparison[];
}

/**
 * decideStop stops when every comparison at this look is decisive, or when
 * the round budget is spent (then the undecided ones are reported as such).
 */
export function decideStop(comparisons: readonly Comparison[], atLastLook: boolean): StopDecision {
  const undecided = comparisons.filter((c) => !DECISIVE.has(c.verdict));
  return { stop: undecided.length === 0 || atLastLook, undecided };
}
