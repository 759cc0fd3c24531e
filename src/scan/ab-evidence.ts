/**
 * ab-evidence: the interleaved side of the scan. The nightly job measures
 * last night's SHA beside tonight's in ABBA rounds (Night.ab); those
 * sessions confirm a change the history found (locate), or raise one
 * themselves (abAlert), judged by the PR rule (abChange).
 */

import type { Direction } from '../model/measurement.ts';
import { sequentialAb } from '../compare/sequential-ab.ts';
import { median } from '../stats/order-statistics.ts';
import { randomEffects } from '../stats/sessions.ts';
import { contrast } from '../bisect/session-oracle.ts';
import { countedChange } from '../compare/work-verdict.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { historyTest, ref, type UsableNight } from './history-evidence.ts';
import type { AbConfirmation, MachineChange, ScanFinding } from './scan-finding.ts';
import type { ResolvedScanOptions } from './scan-options.ts';
import { seriesFields, type Series } from './series.ts';

/** Candidate is a finding before the decision across series: its A/B confirmation (null: awaiting one) and that A/B's intervals. */
export interface Candidate {
  finding: ScanFinding;
  ab: AbConfirmation | null;
  /** sessionsBefore: sessions of the pair not counted in `ab` (the night's own A/B that raised an `ab-alert`). */
  sessionsBefore?: number;
  abCi: { ratioCi: [number, number] | null; equivalenceCi: [number, number] | null };
}

/**
 * abAlert raises a candidate from night `k`'s own interleaved A/B (the
 * previous nightly's commit beside tonight's, one session), judged over
 * every round it has by run's looks without futility stops: its estimate
 * beyond the threshold either way and its look-adjusted p at most
 * `abAlpha` (0.5 by default: a lean, not a decision; the step night's
 * session is the only one that holds a step, and one session of a noisy
 * benchmark decides a +5% step about half the time). Raising costs no
 * false finding, only a confirmation session of the pair, which the
 * nightly runs for the whole suite at most `maxConfirmSessions` - 1 times
 * a night however many benchmarks lean. That session chose the candidate, so it cannot confirm it:
 * only the sessions of the same pair measured after it (`NightAb.extra`)
 * do, combined by random effects when there are several, by the PR rule
 * as any finding; with none it is awaiting. The history (the nights from
 * `k` on against the segment before) is reported as context.
 */
export function abAlert(series: Series, key: string, nights: readonly UsableNight[], boundaries: readonly number[], k: number, o: ResolvedScanOptions, changes: readonly MachineChange[]): Candidate | null {
  const night = nights[k];
  const ab = night.ab;
  if (!ab || ab.baseSha !== nights[k - 1].sha) return null;
  const work = isWorkMetric(series.metric);
  const own = work ? workChange([{ base: ab.base, head: ab.head ?? night.values }], o.threshold) : null;
  const found = work ? null : sequentialAb(ab.base, ab.head ?? night.values, { threshold: o.threshold, alpha: o.alpha, minRuns: o.minRuns, maxRuns: o.maxRuns, better: series.better, futility: false });
  const c = work ? (own === null ? null : { ratio: own.ratio, ratioCi: own.ratioCi, verdict: 'inconclusive' as const }) : found?.comparison;
  const pOwn = work ? (own?.p ?? null) : (found?.pAdjusted ?? null);
  if (!c || c.ratio === null || pOwn === null || pOwn > (o.abAlpha as number)) return null;
  if (c.verdict === 'unchanged' || !(Math.abs(Math.log(c.ratio)) > Math.log1p(o.threshold))) return null;
  const prev = Math.max(...boundaries.filter((b) => b < k));
  const history = historyTest(nights, prev, k, nights.length, o, 'alert');
  if (history === null) return null;
  const { test, before, after } = history;
  const worse = series.better === 'lower' ? c.ratio > 1 : c.ratio < 1;
  const trendFrom = Math.max(0, Math.min(nights.length - o.trendNights, k - 5));
  const trendNights = nights.slice(trendFrom);
  const finding: ScanFinding = {
    ...seriesFields(series, key), kind: 'ab-alert',
    direction: worse ? 'regression' : 'improvement',
    ratio: c.ratio, ratioCi: c.ratioCi, p: pOwn, q: null,
    lastGood: ref(nights[k - 1]), firstBad: ref(night), nightsSince: nights.length - k,
    before: { nights: before.length, n: before.reduce((a, n) => a + n.values.length, 0), median: median(before.map((n) => n.median)) },
    after: { nights: after.length, n: after.reduce((a, n) => a + n.values.length, 0), median: median(after.map((n) => n.median)) },
    trend: trendNights.map((n) => ({ ...ref(n), median: n.median })),
    history: { ratio: Math.exp(test.estimate), ratioCi: [Math.exp(test.lower), Math.exp(test.upper)], p: test.p, nightSd: test.se / Math.sqrt(1 / before.length + 1 / after.length) },
    confirmation: null,
    machineChanges: changes.filter((m) => trendNights.some((n) => n.sha === m.night.sha && n.time === m.night.time)),
  };
  const fresh = ab.extra ?? [];
  const change = fresh.length > 0 ? abChange(fresh, o.alpha, o, series.better, work) : null;
  if (change === null) return { finding, ab: null, abCi: { ratioCi: null, equivalenceCi: null }, sessionsBefore: 1 };
  const confirmation: AbConfirmation = {
    baseSha: ab.baseSha, headSha: night.sha, time: night.time, ratio: change.ratio, ratioCi: change.ratioCi, p: change.p,
    nBase: fresh.reduce((a, x) => a + x.base.length, 0), nHead: fresh.reduce((a, x) => a + x.head.length, 0), sessions: fresh.length,
  };
  finding.confirmation = confirmation;
  finding.ratio = change.ratio;
  finding.ratioCi = change.ratioCi;
  finding.p = change.p;
  return { finding, ab: confirmation, abCi: { ratioCi: change.ratioCi, equivalenceCi: change.equivalenceCi }, sessionsBefore: 1 };
}

/** AbChange is an A/B's change: ratio head/base with its 1 - alpha CI, the 1 - 2 alpha `equivalenceCi`, and p. */
interface AbChange {
  ratio: number;
  ratioCi: [number, number] | null;
  equivalenceCi: [number, number] | null;
  p: number;
}

/**
 * workChange is the A/B's change for counted work (instructions, estimated
 * cycles), by the PR check's rule for it (compare/work-verdict.ts
 * judgeWork): the ratio of medians, decided when it is beyond the
 * threshold and the repeats agree (p 0), else not (p 1); the CIs are the
 * range of head/base over every pair of repeats. A count does not see the
 * session it was taken in, so the sessions' repeats are pooled: two
 * sessions of one count a side are two repeats. A rank test cannot judge
 * counts: one to three repeats a side, all tied when the counts are exact,
 * never reach p < 0.05 (3 vs 3 at best 0.1), so an exact step would await
 * its confirmation forever.
 */
export function workChange(sessions: ReadonlyArray<{ base: readonly number[]; head: readonly number[] }>, threshold: number): AbChange | null {
  const base = sessions.flatMap((x) => [...x.base]);
  const head = sessions.flatMap((x) => [...x.head]);
  const c = countedChange(base, head, threshold);
  return c === null ? null : { ratio: c.ratio, ratioCi: c.range, equivalenceCi: c.range, p: c.moved ? 0 : 1 };
}

/**
 * abChange is the A/B's change over its sessions: one session by the PR
 * rule's rank test (Hodges-Lehmann ratio, Mann-Whitney CI and p) at `run`'s
 * looks over its rounds (compare/sequential-ab.ts: the look that settled it,
 * p adjusted for that look's level); several,
 * each session's Hodges-Lehmann contrast combined by random effects (the
 * session is the unit: a second session adds one session of evidence, not
 * ten samples). `equivalenceCi` is the 1 - 2 alpha interval.
 */
function abChange(sessions: ReadonlyArray<{ base: readonly number[]; head: readonly number[] }>, alpha: number, o: ResolvedScanOptions, better: Direction, work: boolean): AbChange | null {
  if (work) return workChange(sessions, o.threshold);
  if (sessions.length === 1) {
    // One session is judged as the run that measured it stopped: run's looks over its rounds, p adjusted for the look.
    const s = sequentialAb(sessions[0].base, sessions[0].head, { threshold: o.threshold, alpha, minRuns: o.minRuns, maxRuns: o.maxRuns, better, futility: false });
    const c = s?.comparison;
    return !s || !c || c.ratio === null || s.pAdjusted === null ? null : { ratio: c.ratio, ratioCi: c.ratioCi, equivalenceCi: c.equivalenceCi ?? null, p: s.pAdjusted };
  }
  const contrasts = sessions.map((x) => contrast(x.base, x.head)).filter((c): c is NonNullable<typeof c> => c !== null);
  const r = randomEffects(contrasts.map((c) => c.estimate), contrasts.map((c) => c.variance), { alpha });
  const r2 = randomEffects(contrasts.map((c) => c.estimate), contrasts.map((c) => c.variance), { alpha: 2 * alpha });
  if (r === null || r2 === null) return null;
  return { ratio: Math.exp(r.mean), ratioCi: [Math.exp(r.lower), Math.exp(r.upper)], equivalenceCi: [Math.exp(r2.lower), Math.exp(r2.upper)], p: r.p };
}

/**
 * locate finds the interleaved A/B that confirms a change the history put
 * at night `at`: that night's A/B against the night before, as it is (the
 * history chose the night, not the A/B). When it has none or does not
 * confirm, the nights within `locateNights` (inside the segment) are
 * tried, and the one whose A/B moved most in the direction `sign` is
 * taken with its p multiplied by the A/Bs looked at (the night was then
 * chosen for its difference). Null when no night there has an A/B.
 */
export function locate(nights: readonly UsableNight[], prev: number, at: number, next: number, sign: number, o: ResolvedScanOptions, better: Direction, work = false) {
  const abAt = (c: number, alpha: number) => {
    const night = nights[c];
    const ab = night.ab;
    if (!ab || c < 1 || ab.baseSha !== nights[c - 1].sha) return null;
    const head = ab.head ?? night.values;
    if (ab.base.length < (work ? 1 : 2) || head.length < (work ? 1 : 2)) return null;
    const sessions = [{ base: ab.base, head }, ...(ab.extra ?? [])];
    const change = abChange(sessions, alpha, o, better, work);
    if (change === null) return null;
    return {
      at: c, moved: Math.sign(Math.log(change.ratio)) === sign, ci: { ratioCi: change.ratioCi, equivalenceCi: change.equivalenceCi },
      ab: { baseSha: ab.baseSha, headSha: night.sha, time: night.time, ratio: change.ratio, ratioCi: change.ratioCi, p: change.p, nBase: sessions.reduce((a, x) => a + x.base.length, 0), nHead: sessions.reduce((a, x) => a + x.head.length, 0), sessions: sessions.length } as AbConfirmation,
    };
  };
  const own = at < nights.length ? abAt(at, o.alpha) : null;
  if (own !== null && own.moved && own.ab.p < o.alpha) return own;
  const around: number[] = [];
  for (let c = Math.max(prev + 1, at - o.locateNights, 1); c <= Math.min(next - 1, at + o.locateNights, nights.length - 1); c++) around.push(c);
  const looks = around.filter((c) => abAt(c, o.alpha) !== null).length;
  let best: ReturnType<typeof abAt> = null;
  for (const c of around) {
    const r = abAt(c, o.alpha / Math.max(1, looks));
    if (r === null || !r.moved) continue;
    if (best === null || r.ab.p < best.ab.p || (r.ab.p === best.ab.p && Math.abs(c - at) < Math.abs(best.at - at))) best = r;
  }
  if (best === null || looks <= 1) return best ?? own;
  best.ab.p = Math.min(1, best.ab.p * looks);
  return own !== null && own.ab.p <= best.ab.p ? own : best;
}
