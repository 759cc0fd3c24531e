import type { Comparison } from '../model/comparison.ts';
import type { Direction } from '../model/measurement.ts';
import { lookSchedule } from './round-schedule.ts';
import { DEFAULT_LOOKS, lookLevels, type LookLevels } from '../stats/sequential-alpha.ts';
import { applyLook } from './adaptive-stop.ts';
import { compareRuns, type CompareSide } from './compare-runs.ts';

/**
 * SequentialAbOptions: the PR check's settings for one interleaved A/B
 * session of one benchmark: threshold, overall alpha and the round budget
 * (`minRuns`..`maxRuns` rounds per side, default 10..40, as `run` and the
 * action's `min-runs`/`max-runs`).
 */
export interface SequentialAbOptions {
  threshold: number;
  alpha: number;
  minRuns?: number;
  maxRuns?: number;
  better?: Direction;
  unit?: string;
  /**
   * futility (default true): stop a look's undecided comparison for
   * futility, as `run` does when the benchmark is alone. False judges every
   * round the session has: futility is non-binding, so ignoring it keeps
   * the error rates, and a suite's session runs on while any of its
   * benchmarks is undecided.
   */
  futility?: boolean;
}

/**
 * SequentialAb is one session decided the way `run` decides it: `rounds`
 * per side at the look that settled it (the rounds a run stops at when this
 * benchmark is alone), the comparison at that look (ratio, CIs, p), the
 * look's nominal `level`, and `pAdjusted` = min(1, p x alpha / level): it is
 * below alpha exactly when the look rejected, so it can enter a
 * Benjamini-Hochberg step with other p-values at level alpha.
 */
export interface SequentialAb {
  rounds: number;
  comparison: Comparison;
  level: number;
  pAdjusted: number | null;
}

const levelsCache = new Map<string, { looks: number[]; levels: LookLevels }>();

/** looksOf: the look schedule and its group-sequential levels, computed once per (alpha, budget). */
export function looksOf(alpha: number, minRuns: number, maxRuns: number): { looks: number[]; levels: LookLevels } {
  const key = `${alpha}:${minRuns}:${maxRuns}`;
  let found = levelsCache.get(key);
  if (found === undefined) {
    const looks = lookSchedule(minRuns, maxRuns, DEFAULT_LOOKS);
    found = { looks, levels: lookLevels(alpha, looks) };
    levelsCache.set(key, found);
  }
  return found;
}

/**
 * sequentialAb replays `run`'s looks (compare/replay-looks.ts: the same
 * schedule, group-sequential levels, keep-the-first-decision and futility
 * rules as the PR check and its report job) on one benchmark's rounds of
 * one interleaved session, `base` and `head` in round order. Rounds past
 * `maxRuns` are ignored; a session shorter than the budget is judged at
 * the looks it reached (its last one as the budget's). Null when a side has
 * fewer than 2 values.
 */
export function sequentialAb(base: readonly number[], head: readonly number[], options: SequentialAbOptions): SequentialAb | null {
  if (base.length < 2 || head.length < 2) return null;
  const minRuns = Math.min(options.minRuns ?? 10, base.length, head.length);
  const maxRuns = Math.max(minRuns, Math.min(options.maxRuns ?? 40, base.length, head.length));
  const side = (values: readonly number[]): CompareSide => ({ measurements: [{ benchmark: 'b', metric: 'm', unit: options.unit ?? 'ns', better: options.better ?? 'lower', values: [...values] }], warnings: [], hints: {} });
  const { looks, levels } = looksOf(options.alpha, minRuns, maxRuns);
  // replayLooks' loop (the report job's replay of a run), with the levels computed once per budget.
  let settled = new Map<string, Comparison>();
  let comparison: Comparison | undefined;
  for (let k = 0; k < looks.length; k++) {
    const n = looks[k];
    const fresh = compareRuns(side(base.slice(0, n)), side(head.slice(0, n)), { threshold: options.threshold, alpha: levels.difference[k], equivalenceAlpha: levels.equivalence[k], rules: [] });
    const look = applyLook(fresh, settled, {
      roundsPerSide: n, maxRoundsPerSide: looks[looks.length - 1], alpha: levels.difference[k], lastAlpha: levels.difference[looks.length - 1],
      equivalenceAlpha: levels.equivalence[k], lastEquivalenceAlpha: levels.equivalence[looks.length - 1], last: k === looks.length - 1,
      ...(options.futility === false ? { futilityPower: 0 } : {}),
    });
    settled = look.settled;
    comparison = look.report.comparisons[0];
    if (look.stop) break;
  }
  if (comparison === undefined) return null;
  const rounds = comparison.decidedAt ?? looks[looks.length - 1];
  const k = Math.max(0, looks.findIndex((l) => l >= rounds));
  const level = levels.difference[k];
  const pAdjusted = comparison.p === null ? null : Math.min(1, (comparison.p * options.alpha) / level);
  return { rounds, comparison, level, pAdjusted };
}
