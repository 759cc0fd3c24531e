import { loadNightlySeries } from './nightly-history.ts';
import type { Run } from '../model/run.ts';
import { scanHistory, type ScanResult } from '../scan/scan-history.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import type { ScanOptions } from '../scan/scan-options.ts';
import type { Ack, Series } from '../scan/series.ts';
import type { Store } from '../store/store.ts';
import { RunnerError } from '../runner/git-checkout.ts';

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
}

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
  for (let round = 0; round < (options.maxRounds ?? 2); round++) {
    const tried = new Set(failed.map((f) => `${f.base}..${f.head}`));
    const pairs = awaitingPairs(last.result.awaiting, options.maxPairs ?? 3).filter((p) => !tried.has(`${p.base}..${p.head}`));
    if (pairs.length === 0) break;
    for (const pair of pairs) {
      let runs: { base: Run; head: Run };
      try {
        runs = await measure(pair);
      } catch (error) {
        // A pair this checkout cannot measure (history rewritten, a commit that no longer builds) stays awaiting: not filed.
        if (!(error instanceof RunnerError)) throw error;
        failed.push({ ...pair, reason: error.message });
        continue;
      }
      await store.ingestRuns([{ ...runs.base, role: 'base', repo: options.repo }, { ...runs.head, role: 'head', repo: options.repo, time: runs.base.time }]);
      measured.push(pair);
    }
    last = await scan();
  }
  return { last, measured, failed };
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
