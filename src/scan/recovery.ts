/**
 * recovery: whether a regressed series is back, decided from the raw samples
 * of the nights before the regression and the latest nights after it. Pure:
 * the nightly job closes the issue (src/action/close-recovered-regressions.ts)
 * and the report says so with the numbers (renderRecoveryComment in
 * src/report/regression-issue.ts).
 */

import { decideVerdict } from '../compare/compare-runs.ts';
import { estimateChange } from '../compare/estimate-change.ts';
import type { Comparison } from '../model/comparison.ts';
import { median } from '../stats/order-statistics.ts';
import type { Night } from './series.ts';

/** Recovery is the evidence that a regressed series is back: recent nights against the nights before the regression. */
export interface Recovery {
  recovered: boolean;
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  baseline: { n: number; median: number };
  recent: { n: number; median: number };
}

/**
 * checkRecovery compares the raw samples of recent nights with those of the
 * nights before the regression by the PR rule: recovered when the verdict
 * is `unchanged` (CI inside +-threshold) or `improved`. One comparison, so
 * alpha is not adjusted; an inconclusive answer keeps the issue open for
 * another night.
 */
export function checkRecovery(baseline: readonly number[], recent: readonly number[], better: 'lower' | 'higher', threshold = 0.02, alpha = 0.05): Recovery {
  const change = estimateChange(baseline, recent, alpha);
  const c: Comparison = {
    benchmark: '', metric: '', unit: '', better, base: null, head: null,
    ratio: change.ratio, ratioCi: change.ratioCi, p: change.p, q: change.p, verdict: 'inconclusive', warnings: [],
  };
  const verdict = decideVerdict(c, threshold, alpha);
  return {
    recovered: verdict === 'unchanged' || verdict === 'improved',
    ratio: change.ratio, ratioCi: change.ratioCi, p: change.p,
    baseline: { n: baseline.length, median: median(baseline) },
    recent: { n: recent.length, median: median(recent) },
  };
}

/**
 * recoveryWindows picks the samples checkRecovery compares for a series
 * whose regression began at night `firstBad`: up to `baselineNights` nights
 * before it, against the latest `recentNights` nights after it. Undefined
 * until at least two nights after the regressed one exist, so the night
 * that regressed is never counted as a recovery.
 */
export function recoveryWindows(nights: readonly Night[], firstBad: number, recentNights = 3, baselineNights = 5): { baseline: number[]; recent: number[]; nights: number; lastNight: Night } | undefined {
  if (firstBad <= 0 || firstBad >= nights.length) return undefined;
  const recentStart = Math.max(firstBad + 1, nights.length - recentNights);
  if (nights.length - recentStart < 2) return undefined;
  return {
    baseline: nights.slice(Math.max(0, firstBad - baselineNights), firstBad).flatMap((n) => [...n.values]),
    recent: nights.slice(recentStart).flatMap((n) => [...n.values]),
    nights: nights.length - recentStart,
    lastNight: nights[nights.length - 1],
  };
}
