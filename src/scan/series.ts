/**
 * series: what the nightly scan reads. A Series is one benchmark x metric x
 * machine x branch history of Nights (each with its interleaved A/B when the
 * nightly job ran one); an Ack marks an expected change of one series.
 */

import type { Direction } from '../model/measurement.ts';

/**
 * NightAb is the interleaved A/B the nightly job ran that night: `base`,
 * the samples of `baseSha` (the previous nightly's commit, or the last good
 * one when the A/B was run to confirm a finding) measured in the same
 * session, ABBA, as the night's own `values`.
 */
export interface NightAb {
  baseSha: string;
  base: readonly number[];
  /** head samples when they are not the night's `values` (a confirmation run after the night). */
  head?: readonly number[];
  /** more interleaved sessions of the same pair (baseSha vs this night's SHA), run to settle an inconclusive A/B. */
  extra?: ReadonlyArray<{ base: readonly number[]; head: readonly number[] }>;
}

/**
 * Night is one nightly run's samples of one series: `values` in the
 * series' unit, `median` precomputed (else computed), `ab` the night's
 * interleaved A/B, `machine` the facts that start a new segment when they
 * change (e.g. {kernel, microcode, governor, toolchain}).
 */
export interface Night {
  sha: string;
  time: string;
  values: readonly number[];
  median?: number;
  ab?: NightAb;
  machine?: Readonly<Record<string, string>>;
}

/**
 * Series is one benchmark x metric x machine x branch history, nights oldest
 * first. `key` defaults to {@link seriesKey}; `machineKey` names the machine
 * (model/fingerprint.ts: hostKey for nightly series, else a machine key).
 */
export interface Series {
  key?: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  machineKey: string;
  branch: string;
  nights: readonly Night[];
  /** harness measured the newest night (Run.harness), when known: counted work's default threshold follows it (compare-runs.ts defaultWorkThreshold). */
  harness?: string;
}

/**
 * Ack marks an expected change of one series at a commit: no alert at or
 * before it, and a new baseline starts there. `time` places it when `sha`
 * is not one of the nightly SHAs (e.g. the culprit merge between two nightlies):
 * the baseline then starts at the first night at or after that time.
 */
export interface Ack {
  series: string;
  sha: string;
  time?: string;
  reason?: string;
}

/** seriesFields are what a finding of `series` (named `key`) says of it: every field but its nights. */
export function seriesFields(series: Series, key: string): Omit<Series, 'key' | 'nights'> & { series: string } {
  return {
    series: key, benchmark: series.benchmark, metric: series.metric, unit: series.unit, better: series.better,
    machineKey: series.machineKey, branch: series.branch, ...(series.harness !== undefined ? { harness: series.harness } : {}),
  };
}

/** seriesKey is the default id of a series, as acks name it: `branch:benchmark:metric:machineKey`. */
export function seriesKey(s: Pick<Series, 'branch' | 'benchmark' | 'metric' | 'machineKey'>): string {
  return `${s.branch}:${s.benchmark}:${s.metric}:${s.machineKey}`;
}
