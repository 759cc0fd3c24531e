/**
 * scan-options: the nightly scan's settings and their defaults, in one place
 * (scan-history.ts says what each one does in the algorithm).
 */

import type { Ack } from './series.ts';
import { defaultWorkThreshold } from '../compare/compare-runs.ts';

/**
 * ScanOptions (all optional):
 * - `threshold` theta, fraction (0.02): the PR rule's threshold and the default `minMagnitude`;
 * - `workThreshold` (the PR check's for counted work: compare-runs.ts defaultWorkThreshold of each series' harness,
 *   0.5%, 1% for pytest-benchmark): the threshold and minimum magnitude of a series of counted work (`instructions`,
 *   `estimated_cycles`), whose counts show far smaller steps than wall time; given, it holds for every series;
 * - `alpha` (0.05): the FDR level across all series and 1 - the CI level;
 * - `windowLen` (30 nights), `maxPValue` (0.001), `minMagnitude` (= threshold): E-divisive;
 *   `windowLen` also caps the nights the night-to-night spread is estimated from;
 * - `confirmNights` (5): nights each side of a change point in the history test;
 * - `historyAlpha` (0.01): the history test's level (t test on nightly log medians);
 * - `locateNights` (2): nights either side of a change point whose A/B may confirm it;
 * - `maxConfirmSessions` (3): interleaved A/B sessions of one pair before an inconclusive one is dropped;
 * - `minRuns`/`maxRuns` (10/40): the round budget of one A/B session (the action's `min-runs`/`max-runs`):
 *   each session is judged by `run`'s looks (compare/sequential-ab.ts), as the run that measured it stopped;
 * - `abAlpha` (0.5): a night's own A/B whose estimate is beyond the threshold with its look-adjusted p
 *   (run's looks over all its rounds) at most this raises an `ab-alert` candidate, which only later sessions
 *   of the pair can confirm; null turns that off;
 * - `zThreshold` (4): robust z of a one-night watch; `minBaselineNights` (10) the fewest nights the fast alert needs before it;
 * - `maxAgeNights` (30): change points whose first bad night is older are not reported;
 * - `trendNights` (30): nights in each finding's trend;
 * - `acks`: expected changes.
 */
export interface ScanOptions {
  threshold?: number;
  workThreshold?: number;
  alpha?: number;
  windowLen?: number;
  maxPValue?: number;
  minMagnitude?: number;
  confirmNights?: number;
  historyAlpha?: number;
  locateNights?: number;
  maxConfirmSessions?: number;
  minRuns?: number;
  maxRuns?: number;
  abAlpha?: number | null;
  zThreshold?: number;
  minBaselineNights?: number;
  maxAgeNights?: number;
  trendNights?: number;
  acks?: readonly Ack[];
}

/**
 * SCAN_DEFAULTS are the values of the ScanOptions left out (minMagnitude
 * defaults to the threshold, acks to none, workThreshold to each series'
 * harness's: workThresholdOf).
 */
export const SCAN_DEFAULTS = {
  threshold: 0.02,
  alpha: 0.05,
  windowLen: 30,
  maxPValue: 0.001,
  confirmNights: 5,
  historyAlpha: 0.01,
  locateNights: 2,
  maxConfirmSessions: 3,
  minRuns: 10,
  maxRuns: 40,
  abAlpha: 0.5 as number | null,
  zThreshold: 4,
  minBaselineNights: 10,
  maxAgeNights: 30,
  trendNights: 30,
};

/** ResolvedScanOptions is ScanOptions with every default filled in but workThreshold, which is per series (workThresholdOf). */
export type ResolvedScanOptions = typeof SCAN_DEFAULTS & { minMagnitude: number; acks: readonly Ack[]; workThreshold?: number };

/** resolveScanOptions fills in the defaults of the options left out (undefined counts as left out). */
export function resolveScanOptions(options: ScanOptions): ResolvedScanOptions {
  const o = { ...SCAN_DEFAULTS } as ResolvedScanOptions;
  for (const [k, v] of Object.entries(options)) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  o.minMagnitude = options.minMagnitude ?? o.threshold;
  o.acks = options.acks ?? [];
  return o;
}

/** workThresholdOf is the threshold of a series of counted work measured by `harness`: the one given, else that harness's default. */
export function workThresholdOf(o: ResolvedScanOptions, harness: string | undefined): number {
  return o.workThreshold ?? defaultWorkThreshold(harness);
}

/** forWork is the options a series of counted work is scanned with: its work threshold (workThresholdOf) as its threshold and minimum magnitude. */
export function forWork(o: ResolvedScanOptions, harness: string | undefined): ResolvedScanOptions {
  const threshold = workThresholdOf(o, harness);
  return { ...o, threshold, minMagnitude: threshold };
}
