import { loadNightlySeries } from './nightly-history.ts';
import type { Run } from '../model/run.ts';
import { scanHistory, type ScanResult } from '../scan/scan-history.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import type { ScanOptions } from '../scan/scan-options.ts';
import type { Ack, Series } from '../scan/series.ts';
import type { Store } from '../store/store.ts';
import { missingCommits, RunnerError } from '../runner/git-checkout.ts';

/** AbPair is what one confirmation measures: the two commits interleaved in one session on this runner. */
export interface AbPair {
  base: string;
  head: string;
}

/** MeasurePair runs one interleaved A/B of a pair (the PR check's runAb) and returns its two runs, role base and head, one time. */
export type MeasurePair = (pair: AbPair) => Promise<{ base: Run; head: Run }>;

/**
 * ConfirmOptions: `branch`/`repo` select the history (as loadNightlySeries),
 * `scan` the scan's options, `maxPairs` (default 3) the confirmation A/Bs
 * one night may run per round, `maxRounds` (default 2) how often an A/B
 * still inconclusive after the last one gets another session.
 */
export interface ConfirmOptions {
  branch: string;
  repo?: string;
  scan?: ScanOptions & { acks?: readonly Ack[] };
  maxPairs?: number;
  maxRounds?: number;
  /** unmeasurable says why a pair cannot be measured here before anything is built (its commits are not in the checkout), or undefined; such a pair takes no place in the budget. */
  unmeasurable?: (pair: AbPair) => string | undefined;
}

/** CONFIRM_FAILED_PREFIX keys the pairs a nightly could not measure (`confirm-failed:<base>..<head>`), with why, so that the scan can say so. */
export const CONFIRM_FAILED_PREFIX = 'confirm-failed:';

/**
 * awaitingPairs are the distinct (last good, first bad) pairs of the
 * findings that await an interleaved confirmation, regressions first (an
 * improvement is good news that can wait a night).
 */
export function awaitingPairs(awaiting: readonly ScanFinding[], max: number): AbPair[] {
  const ordered = [...awaiting].sort((a, b) => (a.direction === b.direction ? 0 : a.direction === 'regression' ? -1 : 1));
  const seen = new Set<string>();
  const pairs: AbPair[] = [];
  for (const f of ordered) {
    const key = `${f.lastGood.sha}..${f.firstBad.sha}`;
    if (seen.has(key) || pairs.length >= max) continue;
    seen.add(key);
    pairs.push({ base: f.lastGood.sha, head: f.firstBad.sha });
  }
  return pairs;
}

/**
 * confirmFindings is the nightly's confirmation step around any scan of the
 * stored history (`scan`: the branch's series read and scanned, all at once
 * or a batch at a time, returning the result of the whole scan): for every
 * finding still awaiting its interleaved A/B (the night had none, or it was
 * inconclusive) it measures last good against first bad right away on this
 * runner, stores the two runs (roles base and head, one time: the next
 * read pairs them with that night as another session of its A/B), and
 * scans again; at most `maxRounds` rounds of `maxPairs` pairs. A pair that
 * cannot be measured here (RunnerError) is left awaiting. Returns the last
 * scan, the pairs measured and those that failed with why.
 */
export async function confirmFindings<T extends { result: Pick<ScanResult, 'awaiting'> }>(
  store: Store, options: Omit<ConfirmOptions, 'branch' | 'scan'>, measure: MeasurePair | undefined, scan: () => Promise<T>,
): Promise<{ last: T; measured: AbPair[]; failed: Array<AbPair & { reason: string }> }> {
  let last = await scan();
  const measured: AbPair[] = [];
  const failed: Array<AbPair & { reason: string }> = [];
  if (measure === undefined) return { last, measured, failed };
  const fail = async (pair: AbPair, reason: string) => {
    failed.push({ ...pair, reason });
    await store.putState(`${CONFIRM_FAILED_PREFIX}${pair.base}..${pair.head}`, { reason });
  };
  for (let round = 0; round < (options.maxRounds ?? 2); round++) {
    const tried = new Set(failed.map((f) => `${f.base}..${f.head}`));
    // Pairs that cannot be measured here are told apart before the budget is counted: they would only waste it.
    const candidates = awaitingPairs(last.result.awaiting, Infinity).filter((p) => !tried.has(`${p.base}..${p.head}`));
    const pairs: AbPair[] = [];
    for (const p of candidates) {
      if (pairs.length >= (options.maxPairs ?? 3)) break;
      const why = options.unmeasurable?.(p);
      if (why === undefined) pairs.push(p);
      else await fail(p, why);
    }
    if (pairs.length === 0) break;
    for (const pair of pairs) {
      let runs: { base: Run; head: Run };
      try {
        runs = await measure(pair);
      } catch (error) {
        // A pair this checkout cannot measure (history rewritten, a commit that no longer builds) stays awaiting: not filed.
        if (!(error instanceof RunnerError)) throw error;
        await fail(pair, error.message);
        continue;
      }
      await store.ingestRuns([{ ...runs.base, role: 'base', repo: options.repo }, { ...runs.head, role: 'head', repo: options.repo, time: runs.base.time }]);
      await store.deleteState(`${CONFIRM_FAILED_PREFIX}${pair.base}..${pair.head}`);
      measured.push(pair);
    }
    last = await scan();
  }
  return { last, measured, failed };
}

/**
 * explainAwaiting sets what each awaiting finding waits for (waitingFor):
 * why its pair could not be measured when a nightly tried (this run's
 * `failedNow`, else the store's record of an earlier one), else, with the
 * checkout at `repoDir`, whether its two commits are there (then the next
 * `benchbot nightly` measures it) or gone (then nothing ever will: fetch
 * them, or ack the change), else that it waits for the machine that
 * measured the nights.
 */
export async function explainAwaiting(store: Store, awaiting: readonly ScanFinding[], repoDir: string | undefined, failedNow: ReadonlyArray<AbPair & { reason: string }> = []): Promise<void> {
  if (awaiting.length === 0) return;
  const failures = new Map<string, string>();
  for (const e of await store.listState(CONFIRM_FAILED_PREFIX)) {
    const reason = (e.value as { reason?: unknown } | null)?.reason;
    if (typeof reason === 'string') failures.set(e.key.slice(CONFIRM_FAILED_PREFIX.length), reason);
  }
  for (const f of failedNow) failures.set(`${f.base}..${f.head}`, f.reason);
  for (const f of awaiting) {
    const range = `${f.lastGood.sha}..${f.firstBad.sha}`;
    const failure = failures.get(range);
    const missing = repoDir === undefined ? [] : missingCommits(repoDir, [f.lastGood.sha, f.firstBad.sha]);
    if (missing.length > 0) {
      f.waitingFor = `cannot be confirmed: ${missing.map((s) => s.slice(0, 12)).join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not in the repository at ${repoDir} (history rewritten, or not fetched), so no interleaved A/B can measure this change; fetch ${missing.length === 1 ? 'it' : 'them'}, or acknowledge the change (benchbot ack) to stop waiting`;
    } else if (failure !== undefined) {
      f.waitingFor = `could not be measured on the last try: ${failure}`;
    } else if (repoDir !== undefined) {
      f.waitingFor = `both commits are in ${repoDir}: the next benchbot nightly there measures their interleaved A/B (benchbot nightly --confirm-only measures it without a night)`;
    } else {
      f.waitingFor = 'waits for the interleaved A/B of last good vs first bad, which the next nightly measures in a checkout that has both commits';
    }
  }
}

/**
 * loadConfirmedSeries is confirmFindings on every series at once
 * (loadNightlySeries, scanHistory): the history after confirmation, with
 * the pairs measured and those that failed.
 */
export async function loadConfirmedSeries(store: Store, options: ConfirmOptions, measure: MeasurePair | undefined): Promise<{ series: Series[]; measured: AbPair[]; failed: Array<AbPair & { reason: string }> }> {
  const scan = async () => {
    const series = await loadNightlySeries(store, { branch: options.branch, repo: options.repo });
    return { series, get result() { return scanHistory(series, options.scan); } };
  };
  const { last, measured, failed } = await confirmFindings(store, options, measure, scan);
  return { series: last.series, measured, failed };
}
