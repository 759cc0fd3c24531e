/**
 * scan-history: the nightly scan. Every series (benchmark x metric x machine
 * x branch) is searched for changes; a change is reported only when two
 * kinds of evidence agree, and the survivors of all series go through one
 * Benjamini-Hochberg step so that scanning 300 series every night does not
 * mean a false alarm every night.
 *
 * The unit of evidence is the night (one benchmark session): the samples of
 * one night share its offset (machine state, thermal state, what ran
 * before), so nights are compared by their medians, with the
 * night-to-night variance estimated from the history itself, never by
 * pooling raw samples of different nights as if they were independent.
 *
 * 1. History (context). Per series, oldest night first: the latest ack
 *    starts the baseline, and a night whose machine facts differ from the
 *    night before (kernel, microcode, governor, turbo, SMT, toolchain:
 *    `Night.machine`) starts a new segment, never a regression (the result
 *    lists it under `machineChanges`, with what changed). In each segment,
 *    windowed E-divisive means (Otava's algorithm and defaults) on
 *    log(median per night) with a minimum magnitude of the threshold; and
 *    the fast alert, the newest two or three nights against the segment
 *    before them. Either is a candidate only when a t test on the nights'
 *    log medians (sessionShift: up to `confirmNights` nights each side, the
 *    night-to-night standard deviation from up to `windowLen` nights of the
 *    segment before) gives p <= `historyAlpha` and a shift beyond the
 *    threshold, every night after it on the same side.
 * 2. Interleaved confirmation. The nightly job measures last night's SHA
 *    beside tonight's in ABBA rounds (`Night.ab`). A candidate is confirmed
 *    by the A/B of its first bad night against its last good one (the
 *    night among the `locateNights` around the candidate whose A/B moved
 *    most in the candidate's direction; p Bonferroni-corrected for the
 *    nights looked at) by the PR rule: Hodges-Lehmann ratio with its
 *    Mann-Whitney CI, q < alpha after BH across all series, beyond the
 *    threshold, in the direction the history moved. A candidate whose night
 *    has no A/B is `awaiting` (the nightly action measures it right away;
 *    jobs/confirm-findings.ts); one the A/B contradicts is dropped.
 * 3. A `watch` is one night beyond `zThreshold` robust z (median/MAD of
 *    log medians over the segment): shown, never filed.
 *
 * Change points older than `maxAgeNights` are not reported (an earlier scan
 * reported them). Nights whose median is not positive cannot be logged and
 * are left out with a warning.
 */

import type { Comparison } from '../model/comparison.ts';
import { decideVerdict } from '../compare/compare-runs.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { benjaminiHochberg } from '../stats/fdr.ts';
import { median } from '../stats/order-statistics.ts';
import { abAlert, locate, type Candidate } from './ab-evidence.ts';
import { eDivisive, logMagnitude } from './e-divisive.ts';
import { baselineStart, historyTest, machineChangesOf, nightIndex, oneNightWatch, ref, type UnmatchedAck, type UsableNight } from './history-evidence.ts';
import type { AbConfirmation, MachineChange, ScanFinding } from './scan-finding.ts';
import { forWork, resolveScanOptions, workThresholdOf, type ResolvedScanOptions, type ScanOptions } from './scan-options.ts';
import { seriesFields, seriesKey, type Ack, type Series } from './series.ts';
import { timeFamilies, type TimeFamily } from './time-families.ts';

/**
 * ScanResult: `findings` (confirmed regressions first, then by q, then
 * watches), `awaiting` (history candidates whose first bad night has no
 * interleaved A/B yet: measure lastGood vs firstBad, then scan again),
 * `refuted` (candidates the A/B did not confirm), `machineChanges`,
 * `timeFamilies` (benchmarks with both real_time and cpu_time: which one
 * was scanned, see {@link timeFamilies}), how many candidates were tested,
 * and warnings as values.
 */
export interface ScanResult {
  findings: ScanFinding[];
  awaiting: ScanFinding[];
  refuted: ScanFinding[];
  machineChanges: MachineChange[];
  timeFamilies?: TimeFamily[];
  tested: number;
  warnings: string[];
}

/** scanSeries scans one series; q-values are adjusted across its own candidates only. */
export function scanSeries(series: Series, options: ScanOptions = {}): ScanResult {
  return scanHistory([series], options);
}

const familyKey = (s: { branch: string; benchmark: string; machineKey: string }, metric: string) => `${s.branch}\u0000${s.benchmark}\u0000${s.machineKey}\u0000${metric}`;

/** scanHistory scans every series and applies Benjamini-Hochberg across all of their confirmations' p-values. */
export function scanHistory(allSeries: readonly Series[], options: ScanOptions = {}): ScanResult {
  const scan = new HistoryScan(options);
  scan.add(allSeries);
  return scan.result();
}

/**
 * HistoryScan is scanHistory a batch of series at a time, for histories
 * too big to hold at once: `add` scans a batch and keeps only what it found
 * (candidates with their p-values, watches, machine changes, warnings),
 * `result` applies Benjamini-Hochberg once across every batch's
 * confirmations. Batches added in the order of one scanHistory call give
 * the same result as that call, whatever their size.
 */
export class HistoryScan {
  private readonly o: ResolvedScanOptions;
  private readonly candidates: Candidate[] = [];
  private readonly watches: ScanFinding[] = [];
  private readonly machineChanges: MachineChange[] = [];
  private readonly families: TimeFamily[] = [];
  private readonly warnings: Array<string | UnmatchedAck> = [];
  /** series counts the series added so far. */
  series = 0;

  constructor(options: ScanOptions = {}) {
    this.o = resolveScanOptions(options);
  }

  /** add scans a batch of series; nothing of the batch is kept but what it found. */
  add(batch: readonly Series[]): void {
    // A benchmark's real_time and cpu_time are one measurement: both must be in the same batch (timeFamilies).
    const families = timeFamilies(batch, this.o.windowLen);
    const secondary = new Set(families.map((f) => familyKey(f, f.secondary)));
    for (const f of families) this.families.push(f);
    for (const series of batch) {
      if (secondary.has(familyKey(series, series.metric))) continue;
      const found = candidatesOf(series, this.o, this.warnings);
      for (const c of found.candidates) this.candidates.push(c);
      for (const w of found.watches) this.watches.push(w);
      for (const m of found.machineChanges) this.machineChanges.push(m);
      this.series++;
    }
  }

  /**
   * result adjusts every confirmation's p-value across all batches and
   * decides. `ackCounts` says whether an ack that matched no night of its
   * series is worth a warning (default: every one is); the CLI leaves out
   * those older than every night it read (scan-command.ts).
   */
  result(options: { ackCounts?: (ack: Ack) => boolean } = {}): ScanResult {
    const warnings = this.warnings.flatMap((w) => {
      if (typeof w === 'string') return [w];
      if (options.ackCounts && !options.ackCounts(w.ack)) return [];
      return [`${w.key}: ack at ${w.ack.sha} matches no night${w.ack.time === undefined ? ' (give its time)' : ''}; ignored`];
    });
    return { ...decide(this.candidates, this.watches, this.machineChanges, warnings, this.o), timeFamilies: this.families };
  }
}

function decide(candidates: readonly Candidate[], watches: readonly ScanFinding[], machineChanges: MachineChange[], warnings: string[], o: ResolvedScanOptions): ScanResult {
  const awaiting = candidates.filter((c) => c.ab === null).map((c) => c.finding);
  const tested = candidates.filter((c) => c.ab !== null);
  const qs = benjaminiHochberg(tested.map((c) => c.finding.p));
  const findings: ScanFinding[] = [];
  const refuted: ScanFinding[] = [];
  tested.forEach((c, i) => {
    c.finding.q = qs[i];
    const ab = c.ab as AbConfirmation;
    const comparison: Comparison = {
      benchmark: c.finding.benchmark, metric: c.finding.metric, unit: c.finding.unit, better: c.finding.better,
      base: null, head: null, ratio: ab.ratio, ratioCi: c.abCi.ratioCi, equivalenceCi: c.abCi.equivalenceCi ?? undefined, p: ab.p, q: qs[i], verdict: 'inconclusive', warnings: [],
    } as Comparison;
    const verdict = decideVerdict(comparison, isWorkMetric(c.finding.metric) ? workThresholdOf(o, c.finding.harness) : o.threshold, o.alpha);
    const historyWorse = c.finding.direction === 'regression';
    const abWorse = c.finding.better === 'lower' ? ab.ratio > 1 : ab.ratio < 1;
    const agrees = abWorse === historyWorse;
    if ((verdict === 'regressed' || verdict === 'improved') && agrees) findings.push(c.finding);
    // Inconclusive but leaning the history's way: one more interleaved session of the pair may settle it.
    else if (verdict === 'inconclusive' && agrees && ab.sessions + (c.sessionsBefore ?? 0) < o.maxConfirmSessions) awaiting.push(c.finding);
    else refuted.push(c.finding);
  });
  findings.push(...watches);
  const rank = (f: ScanFinding) => (f.kind === 'watch' ? 2 : f.direction === 'regression' ? 0 : 1);
  findings.sort((a, b) => rank(a) - rank(b) || (a.q ?? a.p) - (b.q ?? b.p) || a.series.localeCompare(b.series));
  return { findings, awaiting, refuted, machineChanges, timeFamilies: [], tested: tested.length, warnings };
}

function candidatesOf(series: Series, scanOptions: ResolvedScanOptions, warnings: Array<string | UnmatchedAck>): { candidates: Candidate[]; watches: ScanFinding[]; machineChanges: MachineChange[] } {
  // Counted work is judged at its own threshold (a step of 1% in an exact count is as real as 10% of wall time).
  const o = isWorkMetric(series.metric) ? forWork(scanOptions, series.harness) : scanOptions;
  const key = series.key ?? seriesKey(series);
  const nights: UsableNight[] = [];
  let dropped = 0;
  for (const night of series.nights) {
    const m = night.median ?? (night.values.length > 0 ? median(night.values) : NaN);
    if (m > 0 && Number.isFinite(m) && night.values.length > 0) nights.push({ ...night, median: m, log: Math.log(m) });
    else dropped++;
  }
  if (dropped > 0) warnings.push(`${key}: ${dropped} night(s) without a positive median left out`);

  const start = baselineStart(key, nights, o.acks, warnings);
  const end = nights.length;
  const machineChanges = machineChangesOf(series, key, nights);
  // A machine change is a segment boundary, never a candidate itself.
  const segmentStarts = [start, ...machineChanges.map((c) => nights.findIndex((n) => n === c.nightRef)).filter((i) => i > start)];
  const found: number[] = [];
  for (let s = 0; s < segmentStarts.length; s++) {
    const from = segmentStarts[s];
    const to = s + 1 < segmentStarts.length ? segmentStarts[s + 1] : end;
    const logs = nights.slice(from, to).map((n) => n.log);
    if (logs.length >= 3) {
      found.push(...eDivisive(logs, { windowLen: o.windowLen, maxPValue: o.maxPValue, minMagnitude: o.minMagnitude, magnitude: logMagnitude }).changePoints.map((c) => c.index + from));
    }
  }
  const boundaries = [...new Set([...segmentStarts, ...found, end])].sort((a, b) => a - b);
  const isFound = new Set(found);
  const changes = machineChanges.map(({ nightRef: _n, ...c }) => c);

  const candidates: Candidate[] = [];
  const seen = new Set<number>();
  for (let i = 1; i < boundaries.length - 1; i++) {
    const at = boundaries[i];
    if (!isFound.has(at)) continue;
    // One night after the change is not enough history; the fast alert takes it from the second night.
    if (end - at < 2) continue;
    if (end - at > o.maxAgeNights) continue;
    const c = candidate(series, key, nights, boundaries[i - 1], at, boundaries[i + 1], 'change-point', o, changes);
    if (c && !seen.has(nightIndex(nights, c.finding.firstBad))) {
      seen.add(nightIndex(nights, c.finding.firstBad));
      candidates.push(c);
    }
  }

  // The fast alert: the newest two, then three, nights against the segment before them.
  const segmentFrom = (k: number) => Math.max(...boundaries.filter((b) => b <= k - o.minBaselineNights), -1);
  for (const k of [end - 2, end - 3]) {
    if (k < 0 || found.some((f) => Math.abs(f - k) <= o.locateNights) || seen.has(k)) continue;
    const from = segmentFrom(k);
    // A boundary between the baseline and the newest nights (a machine change, an ack) means there is no baseline.
    if (from < 0 || boundaries.some((b) => b > from && b <= k && b !== k) || boundaries.some((b) => b > k && b < end)) continue;
    const c = candidate(series, key, nights, from, k, end, 'alert', o, changes);
    if (c) {
      seen.add(nightIndex(nights, c.finding.firstBad));
      candidates.push(c);
      break;
    }
  }

  // The interleaved alert: one of the newest nights' own A/B, decided by run's looks at abAlpha, before the history can see the change.
  if (o.abAlpha !== null) {
    for (const k of [end - 1, end - 2, end - 3]) {
      if (k < 1 || k <= start || candidates.some((c) => Math.abs(nightIndex(nights, c.finding.firstBad) - k) <= o.locateNights)) continue;
      // Not `seen`: the one-night watch stays shown while an interleaved alert awaits its confirmation.
      const c = abAlert(series, key, nights, boundaries, k, o, changes);
      if (c) candidates.push(c);
    }
  }

  const watches: ScanFinding[] = [];
  const watch = oneNightWatch(series, key, nights, boundaries, o, changes);
  if (watch && !seen.has(end - 1)) watches.push(watch);
  return { candidates, watches, machineChanges: changes };
}

/**
 * candidate tests a change at night `at` (between the boundaries `prev` and
 * `next`) on the nights' log medians, then looks for its interleaved
 * confirmation among the A/Bs of the nights around it.
 */
function candidate(
  series: Series, key: string, nights: readonly UsableNight[], prev: number, at: number, next: number,
  kind: 'change-point' | 'alert', o: ResolvedScanOptions, changes: readonly MachineChange[],
): Candidate | null {
  const history = historyTest(nights, prev, at, next, o, kind);
  if (history === null) return null;
  const { test, before, after, baseline } = history;
  if (!(test.p <= o.historyAlpha) || Math.expm1(Math.abs(test.estimate)) < o.threshold) return null;
  const sign = Math.sign(test.estimate);
  // Every night after the change on the same side of the baseline: a change, not one outlier dragging a mean.
  const center = median(baseline.map((n) => n.log));
  if (after.some((n) => Math.sign(n.log - center) !== sign)) return null;

  const located = locate(nights, prev, at, next, sign, o, series.better, isWorkMetric(series.metric));
  const firstBad = located?.at ?? at;
  const worse = series.better === 'lower' ? sign > 0 : sign < 0;
  const ratio = Math.exp(test.estimate);
  const trendFrom = Math.max(0, Math.min(nights.length - o.trendNights, firstBad - 5));
  const trendNights = nights.slice(trendFrom);
  const finding: ScanFinding = {
    ...seriesFields(series, key), kind,
    direction: worse ? 'regression' : 'improvement',
    ratio, ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, q: null,
    lastGood: ref(nights[firstBad - 1]), firstBad: ref(nights[firstBad]), nightsSince: nights.length - firstBad,
    before: { nights: before.length, n: before.reduce((a, n) => a + n.values.length, 0), median: median(before.map((n) => n.median)) },
    after: { nights: after.length, n: after.reduce((a, n) => a + n.values.length, 0), median: median(after.map((n) => n.median)) },
    trend: trendNights.map((n) => ({ ...ref(n), median: n.median })),
    history: { ratio, ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, nightSd: test.se / Math.sqrt(1 / before.length + 1 / after.length) },
    confirmation: null,
    machineChanges: changes.filter((c) => trendNights.some((n) => n.sha === c.night.sha && n.time === c.night.time)),
  };
  if (located === null) return { finding, ab: null, abCi: { ratioCi: null, equivalenceCi: null } };
  finding.confirmation = located.ab;
  finding.ratio = located.ab.ratio;
  finding.ratioCi = located.ci.ratioCi;
  finding.p = located.ab.p;
  return { finding, ab: located.ab, abCi: located.ci };
}
