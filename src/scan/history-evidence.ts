/**
 * history-evidence: the nights' side of the scan. Nights are compared by
 * their log medians (the night is the unit of evidence): the history test
 * of a change, the one-night watch, the segments that acks and machine
 * changes start.
 */

import { normalSf } from '../stats/normal.ts';
import { median } from '../stats/order-statistics.ts';
import { MAD_TO_SIGMA } from '../stats/robust-cv.ts';
import { sessionShift } from '../stats/sessions.ts';
import type { MachineChange, NightRef, ScanFinding } from './scan-finding.ts';
import type { ResolvedScanOptions } from './scan-options.ts';
import { seriesFields, type Ack, type Night, type Series } from './series.ts';

/** UsableNight is a night with a positive median and its log, the value the history is scanned on. */
export interface UsableNight extends Night {
  median: number;
  log: number;
}

/** UnmatchedAck is the warning about an ack that matches no night of its series, kept until the caller says whether it counts. */
export interface UnmatchedAck {
  key: string;
  ack: Ack;
}

/** historyTest compares the nights after `at` with those before it on log medians, the spread taken from the segment before. */
export function historyTest(nights: readonly UsableNight[], prev: number, at: number, next: number, o: ResolvedScanOptions, kind: 'change-point' | 'alert') {
  const baseline = nights.slice(Math.max(prev, at - o.windowLen), at);
  const before = kind === 'alert' ? baseline : nights.slice(Math.max(prev, at - o.confirmNights), at);
  const after = nights.slice(at, Math.min(next, at + o.confirmNights));
  if (before.length < 2 || after.length < 1) return null;
  // The spread comes from the history: the segment's nights before the change (at least three of them), else both sides pooled.
  const test = sessionShift(before.map((n) => n.log), after.map((n) => n.log), { history: baseline.length >= 3 ? baseline.map((n) => n.log) : undefined, alpha: o.alpha, minSd: 1e-4 });
  return test === null ? null : { test, before, after, baseline };
}

/** machineChangesOf lists the nights whose machine facts differ from the previous night's (both known). */
export function machineChangesOf(series: Series, key: string, nights: readonly UsableNight[]): Array<MachineChange & { nightRef: UsableNight }> {
  const out: Array<MachineChange & { nightRef: UsableNight }> = [];
  for (let i = 1; i < nights.length; i++) {
    const a = nights[i - 1].machine;
    const b = nights[i].machine;
    if (a === undefined || b === undefined) continue;
    const fields = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    const changes = fields.filter((f) => a[f] !== b[f]).map((f) => ({ field: f, before: a[f] ?? null, after: b[f] ?? null }));
    if (changes.length > 0) out.push({ series: key, benchmark: series.benchmark, metric: series.metric, night: ref(nights[i]), previous: ref(nights[i - 1]), changes, nightRef: nights[i] });
  }
  return out;
}

/** baselineStart is the night the latest ack of series `key` starts the baseline at (0 without one); an ack that matches no night is kept as a warning. */
export function baselineStart(key: string, nights: readonly UsableNight[], acks: readonly Ack[], warnings: Array<string | UnmatchedAck>): number {
  let start = 0;
  for (const ack of acks) {
    if (ack.series !== key) continue;
    let at = nights.findIndex((n) => n.sha === ack.sha);
    if (at < 0 && ack.time !== undefined) {
      const t = Date.parse(ack.time);
      at = nights.findIndex((n) => Date.parse(n.time) >= t);
    }
    if (at < 0) warnings.push({ key, ack });
    else start = Math.max(start, at);
  }
  return start;
}

/** ref names a night. */
export function ref(n: UsableNight): NightRef {
  return { sha: n.sha, time: n.time };
}

/** nightIndex finds a named night (-1 when it is not there). */
export function nightIndex(nights: readonly UsableNight[], ref: NightRef): number {
  return nights.findIndex((n) => n.sha === ref.sha && n.time === ref.time);
}

/**
 * oneNightWatch: the newest night against the current segment (at least
 * `minBaselineNights`, at most `windowLen` nights before it) in robust z of
 * log medians; beyond `zThreshold` and the threshold it is a watch.
 */
export function oneNightWatch(series: Series, key: string, nights: readonly UsableNight[], boundaries: readonly number[], o: ResolvedScanOptions, changes: readonly MachineChange[]): ScanFinding | null {
  const end = nights.length;
  const baselineEnd = end - 1;
  let from = -1;
  for (const b of boundaries) if (b <= baselineEnd && baselineEnd - b >= o.minBaselineNights) from = b;
  // E-divisive may already mark the newest night itself; only a boundary inside the baseline leaves it too short.
  if (from < 0 || boundaries.some((b) => b > from && b < baselineEnd)) return null;
  from = Math.max(from, baselineEnd - o.windowLen);
  const base = nights.slice(from, baselineEnd);
  const logs = base.map((n) => n.log);
  const center = median(logs);
  const sigma = MAD_TO_SIGMA * median(logs.map((v) => Math.abs(v - center)));
  const newest = nights[end - 1];
  const z = (newest.log - center) / Math.max(sigma, 1e-12);
  if (Math.abs(z) < o.zThreshold || Math.expm1(Math.abs(newest.log - center)) < o.threshold) return null;
  const ratio = Math.exp(newest.log - center);
  const worse = series.better === 'lower' ? ratio > 1 : ratio < 1;
  const trend = nights.slice(Math.max(0, end - o.trendNights));
  return {
    ...seriesFields(series, key), kind: 'watch', direction: worse ? 'regression' : 'improvement',
    ratio, ratioCi: null, p: Math.min(1, 2 * normalSf(Math.abs(z))), q: null,
    lastGood: ref(nights[end - 2]), firstBad: ref(newest), nightsSince: 1,
    before: { nights: base.length, n: base.reduce((a, n) => a + n.values.length, 0), median: Math.exp(center) },
    after: { nights: 1, n: newest.values.length, median: newest.median },
    zScore: z, trend: trend.map((n) => ({ ...ref(n), median: n.median })), confirmation: null,
    machineChanges: changes.filter((c) => trend.some((n) => n.sha === c.night.sha && n.time === c.night.time)),
  };
}
