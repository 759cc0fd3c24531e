/**
 * scan-finding: what the nightly scan reports for one series: a finding
 * with the nights' evidence (HistoryEvidence), its interleaved A/B
 * confirmation (AbConfirmation), its trend, and the machine changes near it.
 */

import type { Series } from './series.ts';

/** NightRef names one nightly run. */
export interface NightRef {
  sha: string;
  time: string;
}

/** TrendPoint is one night of a finding's trend: the median in the series' unit. */
export interface TrendPoint extends NightRef {
  median: number;
}

/** AbConfirmation is the interleaved A/B that confirmed (or not yet) a finding: last good vs first bad in one session. */
export interface AbConfirmation {
  baseSha: string;
  headSha: string;
  time: string;
  ratio: number;
  ratioCi: [number, number] | null;
  p: number;
  nBase: number;
  nHead: number;
  sessions: number;
}

/** HistoryEvidence is the nights' side: the shift of log medians after vs before, its CI and t test p, and the night-to-night SD (log). */
export interface HistoryEvidence {
  ratio: number;
  ratioCi: [number, number];
  p: number;
  nightSd: number;
}

/** MachineChange is a night whose machine facts differ from the night before: a new segment starts there. */
export interface MachineChange {
  series: string;
  benchmark: string;
  metric: string;
  night: NightRef;
  previous: NightRef;
  changes: { field: string; before: string | null; after: string | null }[];
}

/**
 * ScanFinding is one suspected change of one series (named by `series`,
 * with the series' benchmark, metric, unit, better, machineKey and branch).
 * - `kind`: `change-point` (E-divisive), `alert` (the newest two or three
 *   nights) or `watch` (one night beyond the robust z; `q` null, nothing to
 *   file).
 * - `ratio` after/before in the metric's unit: the interleaved A/B's when
 *   confirmed (`confirmation`), else the history's; `history` the nights'
 *   evidence; `p`/`q` the confirmation's; `direction` follows `better`.
 * - `lastGood`..`firstBad` is the commit range to bisect; `nightsSince`
 *   counts the nights from the first bad one to the newest, both included.
 * - `before`/`after`: the nights the history test compared (median of
 *   their medians, samples in them).
 * - `machineChanges`: machine changes within the trend.
 */
export interface ScanFinding extends Omit<Series, 'key' | 'nights'> {
  series: string;
  kind: 'change-point' | 'alert' | 'ab-alert' | 'watch';
  direction: 'regression' | 'improvement';
  ratio: number;
  ratioCi: [number, number] | null;
  p: number;
  q: number | null;
  lastGood: NightRef;
  firstBad: NightRef;
  nightsSince: number;
  before: { nights: number; n: number; median: number };
  after: { nights: number; n: number; median: number };
  zScore?: number;
  trend: TrendPoint[];
  /**
   * waitingFor says, for a finding awaiting its interleaved A/B, what it
   * waits for: where it can be measured, or why it cannot be (its commits
   * are not in the repository). Set by the job that knows the checkout.
   */
  waitingFor?: string;
  history?: HistoryEvidence;
  confirmation?: AbConfirmation | null;
  machineChanges?: MachineChange[];
}
