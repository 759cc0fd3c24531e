import type { Comparison } from '../model/comparison.ts';
import type { ReadOutcome } from '../formats/detect.ts';
import { lookSchedule } from './round-schedule.ts';
import { DEFAULT_LOOKS, lookLevels } from '../stats/sequential-alpha.ts';
import { applyLook } from './adaptive-stop.ts';
import { compareRuns, poolMeasurements, type CompareSide, type ComparisonReport } from './compare-runs.ts';
import type { NameFilter } from './name-filter.ts';
import type { ThresholdRule } from './thresholds.ts';
import type { ChangeTest } from './estimate-change.ts';

/**
 * ReplaySettings are the settings a measurement ran with, as the publishing
 * side knows them from its own configuration (never from the results
 * artifact): threshold, overall alpha, per-benchmark rules and the round
 * budget (minRuns..maxRuns rounds per side), from which the look schedule
 * and each look's alpha follow deterministically.
 */
export interface ReplaySettings {
  threshold: number;
  /** workThreshold: the threshold of counted work (default: compare-runs.ts defaultWorkThreshold of the sides' harness). */
  workThreshold?: number;
  alpha: number;
  rules: readonly ThresholdRule[];
  minRuns: number;
  maxRuns: number;
  /** futility: false when the run did not stop for futility (a nightly; RunAbSettings.futility). */
  futility?: boolean;
  /** test: the two-sample test the run used (default DEFAULT_TEST). */
  test?: ChangeTest;
}

/**
 * collectSide pools the readers' outcomes of one side into a CompareSide,
 * keeping only benchmarks the filter matches (warnings without a benchmark
 * always). Its harness is the one every outcome names (the harness a
 * benchbot JSON file says produced it, else the format it was read in);
 * none when they differ. Loops, not push(...list): an input may hold a
 * million series.
 */
export function collectSide(outcomes: Iterable<ReadOutcome>, filter: NameFilter | undefined): CompareSide {
  const side: CompareSide = { measurements: [], warnings: [], hints: {} };
  const keep = (m: { benchmark?: string }) => filter === undefined || m.benchmark === undefined || filter.test(m.benchmark);
  const harnesses = new Set<string>();
  for (const outcome of outcomes) {
    for (const m of outcome.measurements) if (keep(m)) side.measurements.push(m);
    for (const w of outcome.warnings) if (keep(w)) side.warnings.push(w);
    Object.assign(side.hints, outcome.hints);
    harnesses.add(outcome.harness ?? outcome.format);
  }
  if (harnesses.size === 1) side.harness = [...harnesses][0];
  return side;
}

/**
 * replayLooks recomputes an adaptive run's report from its raw rounds (each
 * measurement's values in round order, one per round) the way the measuring
 * run decided it: the looks of lookSchedule(minRuns, maxRuns), each on the
 * first min(look, rounds present) rounds at that look's group-sequential
 * alpha, decisions kept from the look that made them (applyLook), until
 * every benchmark is settled or the last look. The rounds present are the
 * fewer of the two sides' (runAb looks at the rounds both sides have), and
 * no look goes past maxRuns, so extra rows in an artifact change nothing.
 * The report carries overallAlpha, so the footer explains the per-look
 * alpha. Pure; stored base rounds a run pooled in are not in the raw
 * samples, so a pooled comparison is recomputed without them.
 */
export function replayLooks(base: CompareSide, head: CompareSide, settings: ReplaySettings): ComparisonReport {
  const looks = lookSchedule(settings.minRuns, settings.maxRuns, DEFAULT_LOOKS);
  const { difference: alphas, equivalence: eqAlphas } = lookLevels(settings.alpha, looks);
  const pooled = { base: poolMeasurements(base.measurements), head: poolMeasurements(head.measurements) };
  // A side without any values (every benchmark new, removed or failed) does not limit the other.
  const counts = [mostValues(pooled.base), mostValues(pooled.head)].filter((c) => c > 0);
  const rounds = counts.length > 0 ? Math.min(...counts) : 0;
  let settled = new Map<string, Comparison>();
  const primary = new Map<string, string>();
  let report: ComparisonReport | undefined;
  for (let k = 0; k < looks.length; k++) {
    const n = rounds > 0 ? Math.min(looks[k], rounds) : looks[k];
    const cut = (side: CompareSide, ms: typeof pooled.base): CompareSide => ({ ...side, measurements: ms.map((m) => (m.values.length > n ? { ...m, values: m.values.slice(0, n) } : m)) });
    const fresh = compareRuns(cut(base, pooled.base), cut(head, pooled.head), { threshold: settings.threshold, alpha: alphas[k], equivalenceAlpha: eqAlphas[k], rules: [...settings.rules], primary, ...(settings.test !== undefined ? { test: settings.test } : {}), ...(settings.workThreshold !== undefined ? { workThreshold: settings.workThreshold } : {}) });
    for (const c of fresh.comparisons) if (c.family === 'primary' && !primary.has(c.benchmark)) primary.set(c.benchmark, c.metric);
    const look = applyLook(fresh, settled, {
      roundsPerSide: n, maxRoundsPerSide: looks[looks.length - 1], alpha: alphas[k], lastAlpha: alphas[alphas.length - 1],
      equivalenceAlpha: eqAlphas[k], lastEquivalenceAlpha: eqAlphas[eqAlphas.length - 1], last: k === looks.length - 1,
      ...(settings.futility === false ? { futilityPower: 0 } : {}),
    });
    settled = look.settled;
    report = { ...look.report, overallAlpha: settings.alpha };
    if (look.stop) break;
  }
  return report as ComparisonReport;
}

function mostValues(measurements: readonly { values: readonly number[] }[]): number {
  let most = 0;
  for (const m of measurements) if (m.values.length > most) most = m.values.length;
  return most;
}
