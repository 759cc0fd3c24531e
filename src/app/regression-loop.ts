import type { GitHubClient } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';
import { fileRegressionIssue } from '../github/regression-issue.ts';
import { readBisectLog, type BisectLog } from '../bisect/bisect-log.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import type { AppConfig } from './app-config.ts';
import { bisectDispatchKey, bisectIssueKey } from './app-state.ts';
import { dispatchOnce } from './dispatch-once.ts';
import { downloadArtifactFile } from './artifact-file.ts';
import type { HandlerDeps, Repo } from './handler-deps.ts';

/**
 * The app's side of the nightly loop: a completed nightly run whose artifact
 * carries the scan JSON dispatches one bisection per confirmed regression; a
 * completed bisection files (or updates) the regression issue with the
 * culprit. The artifacts are the contract (docs/app.md):
 *
 * - the nightly workflow uploads NIGHTLY_ARTIFACT with `scan.json`, the output
 *   of `benchbot scan --output json` (ScanJson, src/report/scan-report.ts);
 * - the bisect workflow takes the inputs `good`, `bad`, `benchmark`, `metric`
 *   and `series`, and uploads BISECT_ARTIFACT with `bisect.json`, the output of
 *   `benchbot bisect --output json` (BisectLog, src/bisect/bisect-log.ts).
 */

/** NIGHTLY_ARTIFACT is the nightly run's artifact (the action's default in nightly mode). */
export const NIGHTLY_ARTIFACT = 'benchbot-nightly';

/** BISECT_ARTIFACT is the bisect run's artifact. */
export const BISECT_ARTIFACT = 'benchbot-bisect';

/** RegressionOutcome says what the nightly loop did with a run. */
export type RegressionOutcome = 'no-scan' | 'no-regression' | 'bisect-dispatched' | 'bisect-known' | 'not-dispatched-here' | 'issue-filed';

/** ScanFindingJson is one finding of the scan JSON, as validated here. */
type ScanFindingJson = Record<string, unknown> & { series: string; benchmark: string; metric: string; kind: string; direction: string; last_good: { sha: string; time: string }; first_bad: { sha: string; time: string } };

/** isWorkflow tells whether a run's path (`.github/workflows/x.yml`) is the configured workflow file. */
export function isWorkflow(path: string, workflow: string): boolean {
  return path.toLowerCase() === `.github/workflows/${workflow.toLowerCase()}`;
}

/**
 * handleNightlyCompleted reads `scan.json` from the nightly run's artifact and
 * dispatches the bisect workflow once per confirmed regression (a change
 * point or a two-night alert, not a one-night watch). A regression stays in
 * the scan night after night; its effect key (`bisect-dispatch:`) keeps it to
 * one bisection: recorded as intended before the dispatch and done with the
 * run after, and a dispatch whose outcome is unknown (a lost answer, a crash)
 * is looked for among the workflow's runs by its key before it is sent again.
 * A dispatch that fails is tried again by the next attempt or nightly.
 */
export async function handleNightlyCompleted(deps: HandlerDeps, client: GitHubClient, where: Repo, runId: number, config: AppConfig, defaultBranch: string): Promise<RegressionOutcome> {
  const text = await downloadArtifactFile(client, where, runId, NIGHTLY_ARTIFACT, 'scan.json');
  if (text === null) return 'no-scan';
  const scan = parseScan(text);
  const confirmed = scan.findings.filter((f) => f.kind !== 'watch' && f.direction === 'regression');
  if (confirmed.length === 0) return 'no-regression';
  let dispatched = 0;
  for (const finding of confirmed) {
    const range = `${finding.last_good.sha}..${finding.first_bad.sha}`;
    const key = bisectDispatchKey(where.owner, where.repo, finding.series, range);
    const workflow = config.nightly.bisectWorkflow;
    try {
      // Dispatched by a version that kept the claim in the state table: not again.
      if (await deps.state.bisectClaimedBefore(where.owner, where.repo, finding.series, range)) continue;
      const inputs = { good: finding.last_good.sha, bad: finding.first_bad.sha, benchmark: finding.benchmark, metric: finding.metric, series: finding.series };
      const { run, fresh } = await dispatchOnce(deps, client, where, { workflow, ref: defaultBranch, inputs, key, at: deps.now().toISOString() });
      if (!fresh) continue;
      // The record the completion reads (none for a run GitHub did not name: its completion files nothing).
      if (run.id !== 0) await deps.state.putBisectRun(where.owner, where.repo, run.id, { finding, branch: scan.branch, threshold: scan.threshold, at: deps.now().toISOString() });
      dispatched++;
      deps.log.info({ owner: where.owner, repo: where.repo, series: finding.series, range, runId: run.id || undefined, found: run.found === true }, 'dispatched bisect');
    } catch (error) {
      if (error instanceof GitHubError && error.status === 404) {
        deps.log.warn({ owner: where.owner, repo: where.repo, workflow }, 'no bisect workflow to dispatch (nightly.bisect-workflow in .github/benchbot.yml)');
        continue;
      }
      throw error;
    }
  }
  return dispatched > 0 ? 'bisect-dispatched' : 'bisect-known';
}

/**
 * handleBisectCompleted files the regression issue for a bisect run the app
 * dispatched: culprit, trend and bisect log from `bisect.json` (or, without
 * one, the nightly range). An open issue filed for the range before the
 * bisection (by the nightly job) is re-keyed to the culprit in place, so a
 * regression never gets two issues; upsertRegressionIssue then reconciles.
 */
export async function handleBisectCompleted(deps: HandlerDeps, client: GitHubClient, where: Repo, runId: number, config: AppConfig): Promise<RegressionOutcome> {
  const record = await deps.state.getBisectRun(where.owner, where.repo, runId);
  if (record === undefined) return 'not-dispatched-here';
  const json = record.finding as ScanFindingJson;
  const finding = toScanFinding(json, record.branch);
  const text = await downloadArtifactFile(client, where, runId, BISECT_ARTIFACT, 'bisect.json');
  const bisect = text === null ? undefined : parseBisectLog(text);
  // Only the app's own issues are reconciled: anyone who may label issues can file one with the label and the marker.
  const botLogin = await deps.botLogin();
  // One filing per bisection at a time, across replicas: a completion delivered twice (a redelivery, a re-run attempt) finds the issue by its marker and updates it.
  const range = `${json.last_good.sha}..${json.first_bad.sha}`;
  const result = await deps.state.withEffect(bisectIssueKey(where.owner, where.repo, finding.series, range), async () => {
    const filed = await fileRegressionIssue(client, { ...where, finding, bisect, threshold: record.threshold, dashboardUrl: config.nightly.dashboard, botLogin, labels: config.issues.labels, assignees: config.issues.assignees, cc: config.issues.cc });
    // The culprit goes with the record too: the dashboard marks it on the series' chart.
    const named = bisect?.culprit;
    await deps.state.putIssue(where.owner, where.repo, finding.series, { number: filed.number, url: filed.url, marker: filed.marker, at: deps.now().toISOString(), ...(named ? { culprit: { sha: named.sha, subject: named.subject, ...(typeof named.pr === 'number' ? { pr: named.pr } : {}) } } : {}) });
    return { id: filed.number, action: filed.action };
  });
  deps.log.info({ owner: where.owner, repo: where.repo, series: finding.series, issue: result.id, action: result.action }, 'regression issue');
  return 'issue-filed';
}

/** ScanShapeError says which field of scan.json or bisect.json is wrong. */
export class ScanShapeError extends Error {
  override name = 'ScanShapeError';
}

function parseScan(text: string): { branch: string; threshold: number; findings: ScanFindingJson[] } {
  const root = parseObject(text, 'scan.json');
  if (root.version !== 1) throw new ScanShapeError(`scan.json $.version: expected 1, got ${JSON.stringify(root.version)}`);
  if (typeof root.branch !== 'string') throw new ScanShapeError('scan.json $.branch: expected a string');
  if (typeof root.threshold !== 'number' || !Number.isFinite(root.threshold)) throw new ScanShapeError('scan.json $.threshold: expected a number');
  if (!Array.isArray(root.findings)) throw new ScanShapeError('scan.json $.findings: expected an array');
  const findings = root.findings.map((f, i) => {
    const path = `scan.json $.findings[${i}]`;
    if (f === null || typeof f !== 'object') throw new ScanShapeError(`${path}: expected an object`);
    const o = f as Record<string, unknown>;
    for (const key of ['series', 'benchmark', 'metric', 'unit', 'kind', 'direction', 'fingerprint']) if (typeof o[key] !== 'string') throw new ScanShapeError(`${path}.${key}: expected a string`);
    for (const key of ['ratio', 'p', 'nights_since']) if (typeof o[key] !== 'number') throw new ScanShapeError(`${path}.${key}: expected a number`);
    for (const key of ['last_good', 'first_bad']) {
      const night = o[key] as { sha?: unknown; time?: unknown } | null;
      if (typeof night?.sha !== 'string' || !/^[0-9a-f]{7,64}$/i.test(night.sha) || typeof night.time !== 'string') throw new ScanShapeError(`${path}.${key}: expected { sha, time } with a hex SHA`);
    }
    if (!Array.isArray(o.trend)) throw new ScanShapeError(`${path}.trend: expected an array`);
    return o as ScanFindingJson;
  });
  return { branch: root.branch, threshold: root.threshold, findings };
}

function toScanFinding(f: ScanFindingJson, branch: string): ScanFinding {
  return {
    series: f.series,
    benchmark: f.benchmark,
    metric: f.metric,
    unit: f.unit as string,
    better: f.better === 'higher' ? 'higher' : 'lower',
    machineKey: f.fingerprint as string,
    branch,
    kind: f.kind as ScanFinding['kind'],
    direction: f.direction as ScanFinding['direction'],
    ratio: f.ratio as number,
    ratioCi: (f.ratio_ci as [number, number] | null) ?? null,
    p: f.p as number,
    q: (f.q as number | null) ?? null,
    lastGood: f.last_good,
    firstBad: f.first_bad,
    nightsSince: f.nights_since as number,
    before: f.before as ScanFinding['before'],
    after: f.after as ScanFinding['after'],
    zScore: typeof f.z === 'number' ? f.z : undefined,
    trend: f.trend as ScanFinding['trend'],
    ...confirmationOf(f),
  };
}

/** confirmationOf reads the interleaved confirmation and machine changes a finding of scan.json carries, so the issue can show them. */
function confirmationOf(f: ScanFindingJson): Pick<ScanFinding, 'confirmation' | 'machineChanges'> {
  const c = f.confirmation as { base_sha?: unknown; head_sha?: unknown; ratio?: unknown; ratio_ci?: unknown; p?: unknown; n_base?: unknown; n_head?: unknown; sessions?: unknown } | null | undefined;
  const hex = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{7,64}$/i.test(v);
  const ci = Array.isArray(c?.ratio_ci) && c.ratio_ci.length === 2 && c.ratio_ci.every((x) => typeof x === 'number') ? (c.ratio_ci as [number, number]) : null;
  const confirmation = c && hex(c.base_sha) && hex(c.head_sha) && typeof c.ratio === 'number' && typeof c.p === 'number'
    ? { baseSha: c.base_sha as string, headSha: c.head_sha as string, time: f.first_bad.time, ratio: c.ratio, ratioCi: ci, p: c.p, nBase: Number(c.n_base) || 0, nHead: Number(c.n_head) || 0, sessions: Number(c.sessions) || 1 }
    : null;
  const changes = Array.isArray(f.machine_changes) ? (f.machine_changes as Array<{ sha?: unknown; time?: unknown; changes?: unknown }>) : [];
  const machineChanges = changes.filter((m) => hex(m.sha) && typeof m.time === 'string' && Array.isArray(m.changes)).map((m) => ({
    series: f.series, benchmark: f.benchmark, metric: f.metric, night: { sha: m.sha as string, time: m.time as string }, previous: { sha: m.sha as string, time: m.time as string },
    changes: (m.changes as Array<Record<string, unknown>>).filter((x) => typeof x.field === 'string').map((x) => ({ field: String(x.field), before: typeof x.before === 'string' ? x.before : null, after: typeof x.after === 'string' ? x.after : null })),
  }));
  return { confirmation, machineChanges };
}

function parseBisectLog(text: string): BisectLog {
  return readBisectLog(parseObject(text, 'bisect.json'), (path, expected) => {
    throw new ScanShapeError(`bisect.json ${path}: expected ${expected}`);
  });
}

function parseObject(text: string, file: string): Record<string, unknown> {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new ScanShapeError(`${file} is not JSON: ${(error as Error).message}`);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) throw new ScanShapeError(`${file}: expected an object`);
  return root as Record<string, unknown>;
}
