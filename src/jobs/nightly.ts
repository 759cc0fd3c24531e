import { firstBadNight, loadAcks, NightlyHistoryFile, nightlySeriesBatches, SCAN_NIGHTS, type NightlyHistory } from './nightly-history.ts';
import type { NameSetting } from './setting-names.ts';
import { confirmFindings, explainAwaiting, type AbPair, type MeasurePair } from './confirm-findings.ts';
import { missingCommits } from '../runner/git-checkout.ts';
import { firstParentChain } from '../runner/first-parent-chain.ts';
import { renderRecoveryComment } from '../report/regression-issue.ts';
import { renderScanMarkdown, toScanJson } from '../report/scan-report.ts';
import { checkRecovery, recoveryWindows } from '../scan/recovery.ts';
import { HistoryScan, scanHistory, type ScanResult } from '../scan/scan-history.ts';
import type { Store } from '../store/store.ts';

/**
 * nightly: the nightly job's decisions. The measuring job scans the
 * branch's history (this night included) and packs it for the report job
 * (history.json), which scans it again from those raw samples and decides
 * which regression issues recovered; the adapters only publish.
 */

/** ScanTexts are a scan's two renderings: scan.json (what the app bisects from) and the markdown for the job summary; `result` is what they render. */
export interface ScanTexts {
  json: string;
  markdown: string;
  result: ScanResult;
}

/** NightlyScanSettings say how a branch's history is scanned and linked. */
export interface NightlyScanSettings {
  branch: string;
  threshold: number;
  /** workThreshold is the threshold of series of counted work (default: each series' harness's, scan-options.ts workThresholdOf). */
  workThreshold?: number;
  /** minRuns and maxRuns are the round budget each A/B session is replayed on (the PR check's looks). */
  minRuns: number;
  maxRuns: number;
  /** repository is OWNER/NAME: the history's key in the store and the commits' links. */
  repository?: string;
  /** serverUrl is the GitHub server the links go to (default https://github.com). */
  serverUrl?: string;
}

/** repositoryUrl is the web address of OWNER/NAME on serverUrl, or undefined for anything else. */
export function repositoryUrl(repository: string | undefined, serverUrl: string | undefined): string | undefined {
  if (!repository || !/^[\w.-]+\/[\w.-]+$/.test(repository)) return undefined;
  return `${(serverUrl ?? 'https://github.com').replace(/\/+$/, '')}/${repository}`;
}

/** scanBranch scans a branch's series, each A/B session replayed on the round budget it was measured with. */
export function scanBranch(series: NightlyHistory['series'], acks: NightlyHistory['acks'], settings: NightlyScanSettings): ScanTexts {
  return scanTexts(scanHistory(series, { threshold: settings.threshold, workThreshold: settings.workThreshold, acks, minRuns: settings.minRuns, maxRuns: settings.maxRuns }), series.length, settings);
}

/** scanTexts renders a branch's scan result of `series` series. */
function scanTexts(result: ScanResult, series: number, settings: NightlyScanSettings): ScanTexts {
  const options = { series, threshold: settings.threshold, branch: settings.branch, repoUrl: repositoryUrl(settings.repository, settings.serverUrl) };
  return { json: JSON.stringify(toScanJson(result, options), null, 2), markdown: renderScanMarkdown(result, options), result };
}

/**
 * scanStoredNightlies scans a branch's nightly history in the store, a
 * batch of series at a time with the false discovery rate across all of
 * them at the end; changes whose first bad night is more than
 * `maxAgeNights` old are not reported. Returns the result and how many
 * series were scanned; none is a warning that names where it looked.
 */
export async function scanStoredNightlies(store: Store, settings: { branch: string; repository?: string; threshold: number; maxAgeNights: number; nameSetting: NameSetting }): Promise<{ result: ScanResult; series: number }> {
  const { branch, repository } = settings;
  const scan = new HistoryScan({ threshold: settings.threshold, acks: await loadAcks(store), maxAgeNights: settings.maxAgeNights });
  const shas = new Set<string>();
  let oldest = Infinity;
  for await (const batch of nightlySeriesBatches(store, { branch, repo: repository, nights: Math.max(SCAN_NIGHTS, settings.maxAgeNights + 60) })) {
    scan.add(batch);
    for (const s of batch) {
      for (const n of s.nights) shas.add(n.sha);
      if (s.nights.length > 0) oldest = Math.min(oldest, Date.parse(s.nights[0].time));
    }
  }
  // An ack older than every night read is no news (acksInWindow).
  const result = scan.result({ ackCounts: (a) => shas.has(a.sha) || (a.time !== undefined && Date.parse(a.time) >= oldest) });
  const name = settings.nameSetting;
  if (scan.series === 0) result.warnings.unshift(`no nightly runs of branch ${branch}${repository ? ` in ${repository}` : ''} in ${store.location}; store them with role nightly, or check ${name('branch')} and ${name('repository')}`);
  return { result, series: scan.series };
}

/**
 * NightlyEvidence is what a measuring nightly hands on: history.json,
 * written to `historyFile`, and its own scan (rendered, and the result of
 * `series` series for an adapter that acts on the findings itself), with
 * the confirmations it measured and those it could not (and why).
 */
export interface NightlyEvidence {
  historyFile: string;
  scan: ScanTexts;
  result: ScanResult;
  series: number;
  confirmed: AbPair[];
  unmeasurable: Array<AbPair & { reason: string }>;
}

/**
 * nightlyEvidence scans the branch's nightly history, this night included,
 * after confirming what awaits an interleaved A/B (`confirm` measures a
 * pair on this runner), and writes that history to `historyFile` with the
 * branch's first-parent chain from `repoDir` back to `headSha`, for the
 * report job. Every pass reads and scans a batch of `batch` series at a
 * time (default SCAN_BATCH) and streams them into history.json, so memory
 * follows the batch, not the suite; the confirmation runs on the findings
 * of the whole scan (the false discovery rate across every batch), and each
 * pass after a confirmation writes the file again. With `checkout` (the
 * repository `confirm` measures in), a pair whose commits are not there is
 * not tried, and every finding still awaiting says what it waits for
 * (explainAwaiting).
 */
export async function nightlyEvidence(store: Store, settings: NightlyScanSettings & { repoDir: string; headSha: string; historyFile: string; batch?: number; checkout?: string }, confirm?: MeasurePair): Promise<NightlyEvidence> {
  const acks = await loadAcks(store);
  const options = { threshold: settings.threshold, workThreshold: settings.workThreshold, acks, minRuns: settings.minRuns, maxRuns: settings.maxRuns };
  let file: NightlyHistoryFile | undefined;
  const pass = async () => {
    file?.abandon();
    file = new NightlyHistoryFile(settings.historyFile, settings.branch);
    const scan = new HistoryScan(options);
    const shas = new Set<string>();
    let series = 0;
    for await (const batch of nightlySeriesBatches(store, { branch: settings.branch, repo: settings.repository, batch: settings.batch })) {
      scan.add(batch);
      file.add(batch);
      series += batch.length;
      for (const s of batch) for (const n of s.nights) shas.add(n.sha);
    }
    return { result: scan.result(), series, shas };
  };
  try {
    // A pair whose commits the checkout does not have (history imported, or rewritten) is told apart before anything is built.
    const checkout = settings.checkout;
    const unmeasurable = checkout === undefined ? undefined : (pair: AbPair) => {
      const missing = missingCommits(checkout, [pair.base, pair.head]);
      return missing.length === 0 ? undefined : `${missing.map((sha) => sha.slice(0, 12)).join(' and ')} not in the repository at ${checkout}`;
    };
    const { last, measured, failed } = await confirmFindings(store, { repo: settings.repository, unmeasurable }, confirm, pass);
    await explainAwaiting(store, last.result.awaiting, checkout, failed);
    (file as NightlyHistoryFile).finish(acks, firstParentChain(settings.repoDir, settings.headSha, last.shas));
    return { historyFile: settings.historyFile, scan: scanTexts(last.result, last.series, settings), result: last.result, series: last.series, confirmed: measured, unmeasurable: failed };
  } catch (error) {
    file?.abandon();
    throw error;
  }
}

/** OpenRegression is an open regression issue, as its hidden marker names its series and culprit. */
export interface OpenRegression {
  number: number;
  marker: { series: string; culprit: string };
}

/** RecoveredRegression is an open issue whose series is back within the threshold, with the comment that closes it. */
export interface RecoveredRegression {
  issue: OpenRegression;
  benchmark: string;
  metric: string;
  comment: string;
}

/**
 * recoveredRegressions decides which open regression issues to close: those
 * whose series is back within the threshold, the latest nights against the
 * nights before the regression (recoveryWindows, checkRecovery), from the
 * raw samples of history.json, with the numbers in the closing comment. The
 * regression's first night is the marker's range end, or the first night
 * that contains the bisected culprit (firstBadNight).
 */
export function recoveredRegressions(history: NightlyHistory, open: readonly OpenRegression[], threshold: number, where: { owner: string; repo: string; serverUrl?: string }): RecoveredRegression[] {
  const recovered: RecoveredRegression[] = [];
  for (const issue of open) {
    const s = history.series.find((x) => x.key === issue.marker.series);
    if (!s) continue;
    const start = issue.marker.culprit.includes('..') ? issue.marker.culprit.split('..')[1] : issue.marker.culprit;
    const windows = recoveryWindows(s.nights, firstBadNight(s.nights, start, history.firstParent));
    if (!windows) continue;
    const recovery = checkRecovery(windows.baseline, windows.recent, s.better, threshold);
    if (!recovery.recovered) continue;
    const comment = renderRecoveryComment({ series: issue.marker.series, benchmark: s.benchmark, metric: s.metric, unit: s.unit, recovery, lastNight: windows.lastNight, nights: windows.nights, threshold, ...where });
    recovered.push({ issue, benchmark: s.benchmark, metric: s.metric, comment });
  }
  return recovered;
}
