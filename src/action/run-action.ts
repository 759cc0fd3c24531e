import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSide } from '../cli/compare-command.ts';
import { renderRunReport } from '../cli/run-command.ts';
import { loadAcks, loadNightlySeries } from '../cli/scan-command.ts';
import { scanHistory, type Series } from '../scan/scan-history.ts';
import { checkRecovery, recoveryWindows, regressionMarker, renderRecoveryComment } from '../report/regression-issue.ts';
import { closeRecoveredIssue, listRegressionIssues } from '../github/regression-issue.ts';
import { spawnSync } from 'node:child_process';
import { renderScanMarkdown, toScanJson } from '../report/scan-report.ts';
import { compareRuns, type ComparisonReport } from '../compare/compare-runs.ts';
import { FormatError } from '../formats/format-error.ts';
import { UnknownFormatError } from '../formats/detect.ts';
import type { Measurement } from '../model/measurement.ts';
import { renderMarkdown, REPORT_MARKER } from '../report/markdown-report.ts';
import { toJsonReport } from '../report/json-report.ts';
import { headline } from '../report/report-order.ts';
import { createExecutor } from '../runner/executor.ts';
import { RunnerError, openRepository, resolveCommit } from '../runner/git-checkout.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import { createProgress, type Progress } from '../runner/progress.ts';
import { runAb, type RunAbResult } from '../runner/run-ab.ts';
import { openStore } from '../store/open-store.ts';
import { redact } from '../store/redact.ts';
import { StoreError, type Store } from '../store/store.ts';
import { createGitHubClient, GitHubError, type GitHubClient } from '../github/github-client.ts';
import { upsertStickyComment } from '../github/sticky-comment.ts';
import { conclusionFor, publishCheckRun } from '../github/check-run.ts';
import { ActionInputError, readActionInputs, type ActionSettings } from './action-inputs.ts';

type Env = Record<string, string | undefined>;

/** ActionDeps are the edges the action touches, injectable for tests. */
export interface ActionDeps {
  env: Env;
  /** log writes one line to the job log (workflow commands such as `::error::` included). */
  log: (line: string) => void;
  /** now returns the current time as ISO 8601. */
  now: () => string;
  progress?: Progress;
  fetch?: typeof fetch;
}

/**
 * Verdict is the action's one-word outcome, the most important first:
 * `regressed`, `error` (a benchmark failed on one side), `improved`,
 * `inconclusive`, `unchanged`.
 */
export type OverallVerdict = 'regressed' | 'error' | 'improved' | 'inconclusive' | 'unchanged';

/** overallVerdict reduces a report's summary to the action's `verdict` output. */
export function overallVerdict(summary: ComparisonReport['summary']): OverallVerdict {
  if (summary.regressed > 0) return 'regressed';
  if (summary.error > 0) return 'error';
  if (summary.improved > 0) return 'improved';
  if (summary.inconclusive > 0) return 'inconclusive';
  return 'unchanged';
}

/** PullRequestEvent is the part of a webhook payload the action reads. */
interface EventPayload {
  pull_request?: { number?: number; base?: { sha?: string }; head?: { sha?: string; ref?: string } };
  issue?: { number?: number; pull_request?: unknown };
}

/** Outcome is what one measuring or merging pass produced, before it is reported. */
interface Outcome {
  report: ComparisonReport;
  markdown: string;
  json: string;
  headSha?: string;
  /** samples are the raw measurements of each side, kept so that shards can be merged and verdicts reproduced. */
  samples?: { base: Measurement[]; head: Measurement[] };
  /** scan is a nightly's scan of the branch's history after this night was stored (scan.json is what the app reads). */
  scan?: { json: string; markdown: string; series: Series[] };
}

/**
 * runAction is the whole action: parse the inputs, measure base against head
 * (or merge the shards' results), write the reports under $RUNNER_TEMP, the
 * job summary and the step outputs, then update the sticky PR comment and
 * the check run. Returns the process exit code: 0 when the step finished
 * (a regression is reported through the `fail` output, which the action's
 * last step turns into a failed step per `fail-on`), 2 for bad inputs or a
 * run that could not measure.
 */
export async function runAction(deps: ActionDeps): Promise<number> {
  const { env, log } = deps;
  try {
    const settings = readActionInputs(env);
    const event = readEvent(env.GITHUB_EVENT_PATH);
    const outcome = settings.merge ? mergeShards(settings) : await measure(settings, event, deps);
    const files = writeReports(settings, outcome, env);
    const summary = outcome.report.summary;
    const verdict = overallVerdict(summary);
    const fail = settings.failOn === 'regression' && summary.regressed > 0 && !settings.shard;
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${outcome.markdown}\n${outcome.scan ? `\n${outcome.scan.markdown}\n` : ''}`);
    const outputs: Record<string, string> = {
      verdict,
      regressions: String(summary.regressed),
      improvements: String(summary.improved),
      'report-markdown': files.markdown,
      'report-json': files.json,
      'artifact-name': settings.artifactName,
      'artifact-path': files.dir,
      fail: String(fail),
      'fail-message': fail ? `benchbot: ${headline(summary)} (fail-on: regression)` : '',
    };
    log(`benchbot: ${headline(summary)}`);
    Object.assign(outputs, await publish(settings, event, outcome, deps));
    writeOutputs(env.GITHUB_OUTPUT, outputs);
    return 0;
  } catch (error) {
    if (error instanceof ActionInputError || error instanceof RunnerError || error instanceof FormatError || error instanceof UnknownFormatError || error instanceof StoreError) {
      log(`::error title=benchbot::${escapeCommand(redact(error.message))}`);
      return 2;
    }
    throw error;
  }
}

function readEvent(path: string | undefined): EventPayload {
  if (!path || !existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EventPayload;
  } catch {
    return {};
  }
}

function pullRequestNumber(settings: ActionSettings, event: EventPayload): number | undefined {
  if (settings.prNumber !== undefined) return settings.prNumber;
  if (typeof event.pull_request?.number === 'number') return event.pull_request.number;
  // An issue_comment on a pull request (`/bench`) carries the PR as an issue.
  if (event.issue?.pull_request && typeof event.issue.number === 'number') return event.issue.number;
  return undefined;
}

async function measure(settings: ActionSettings, event: EventPayload, deps: ActionDeps): Promise<Outcome> {
  const { env } = deps;
  const repoName = env.GITHUB_REPOSITORY;
  const executor = createExecutor(settings.executor);
  // Open the store first: a store that does not connect should fail before an hour of measuring.
  const store = settings.store === undefined ? undefined : await openStore(settings.store, { cwd: settings.workingDirectory, env });
  try {
    const head = settings.head ?? event.pull_request?.head?.sha ?? (settings.mode === 'nightly' ? env.GITHUB_SHA : undefined);
    if (head === undefined) throw new ActionInputError('head: this event has no pull request; give base and head (SHAs or refs)');
    const base = settings.base ?? event.pull_request?.base?.sha ?? (settings.mode === 'nightly' ? await nightlyBase(settings, head, store, repoName, env) : undefined);
    if (base === undefined) throw new ActionInputError('base: this event has no pull request; give base and head (SHAs or refs)');
    // The shard's part of the suite is the bench command's business; it learns which part from these variables on every executor.
    const bench = settings.shard ? `export BENCHBOT_SHARD=${settings.shard.index} BENCHBOT_SHARDS=${settings.shard.count}; ${settings.bench}` : settings.bench;
    const progress = deps.progress ?? createProgress();
    const result = await runAb({
      repo: settings.workingDirectory,
      base,
      head,
      bench,
      build: settings.build,
      format: settings.format,
      resultFile: settings.resultFile,
      minRuns: settings.minRuns,
      maxRuns: settings.maxRuns,
      warmup: 1,
      threshold: settings.threshold,
      alpha: settings.alpha,
      rules: settings.rules,
      filter: settings.filter,
      roundTimeoutMs: 600_000,
      buildTimeoutMs: 3_600_000,
      seed: -1,
      counters: settings.counters,
      allowDirty: false,
      stateDir: join(settings.workingDirectory, '.benchbot'),
      labels: (env.RUNNER_LABELS ?? '').split(',').map((l) => l.trim()).filter((l) => l !== ''),
      maxFailedRounds: 3,
    }, { executor, progress, now: deps.now, holdMachine: holdMachine(executor, progress, { maxLoad: settings.maxLoad, loadWaitMs: 300_000, lockTimeoutMs: 3_600_000, settingHint: 'input max-load' }) });
    if (store) await store.ingestRuns(storedRuns(result, settings, event, env));
    const outcome = fromRun(result, settings);
    if (store && settings.mode === 'nightly') outcome.scan = await scanNightlies(store, settings, env);
    return outcome;
  } finally {
    await executor.close();
    await store?.close();
  }
}

/**
 * nightlyBase picks what a nightly is compared with: the last nightly of the
 * same branch in the store when it is another commit this checkout has, else
 * the head's first parent (the previous merge on the branch).
 */
async function nightlyBase(settings: ActionSettings, head: string, store: Store | undefined, repoName: string | undefined, env: Env): Promise<string> {
  const repo = openRepository(settings.workingDirectory);
  const headSha = resolveCommit(repo, head, 'head');
  const [last] = store ? await store.listRuns({ repo: repoName, branch: env.GITHUB_REF_NAME, role: 'nightly', limit: 1 }) : [];
  if (last && last.sha !== headSha) {
    try {
      return resolveCommit(repo, last.sha, 'base');
    } catch {
      // History was rewritten or the checkout is shallow; the parent still gives a comparison.
    }
  }
  try {
    return resolveCommit(repo, `${headSha}^`, 'base');
  } catch {
    throw new ActionInputError(`base: ${headSha.slice(0, 12)} has no parent in this checkout; fetch more history (actions/checkout with fetch-depth: 0) or give base`);
  }
}

/**
 * scanNightlies runs `benchbot scan` over the branch's nightly history, this
 * night included, for the job summary and the artifact (the app dispatches a
 * bisect for each confirmed regression it finds there).
 */
async function scanNightlies(store: Store, settings: ActionSettings, env: Env): Promise<Outcome['scan']> {
  const branch = env.GITHUB_REF_NAME ?? 'main';
  const repo = env.GITHUB_REPOSITORY;
  const series = await loadNightlySeries(store, { branch, repo });
  const result = scanHistory(series, { threshold: settings.threshold, acks: await loadAcks(store) });
  const repoUrl = repo ? `${(env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '')}/${repo}` : undefined;
  const options = { series: series.length, threshold: settings.threshold, branch, repoUrl };
  return { json: JSON.stringify(toScanJson(result, options), null, 2), markdown: renderScanMarkdown(result, options), series };
}

function storedRuns(result: RunAbResult, settings: ActionSettings, event: EventPayload, env: Env) {
  const repo = env.GITHUB_REPOSITORY;
  if (settings.mode === 'nightly') {
    // The nightly scan reads the branch's `nightly` series; the base side is only this run's reference.
    const branch = env.GITHUB_REF_NAME;
    return [{ ...result.base, repo }, { ...result.head, role: 'nightly' as const, repo, branch }];
  }
  return [{ ...result.base, repo }, { ...result.head, repo, branch: event.pull_request?.head?.ref }];
}

function fromRun(result: RunAbResult, settings: ActionSettings): Outcome {
  const markdown = renderRunReport(result, 'markdown');
  const json = JSON.parse(renderRunReport(result, 'json')) as Record<string, unknown>;
  if (settings.shard) json.shard = settings.shard;
  return {
    report: result.report,
    markdown: settings.shard ? `${markdown}\n\n<sub>Shard ${settings.shard.index} of ${settings.shard.count}; the merged report is in the report job.</sub>` : markdown,
    json: JSON.stringify(json, null, 2),
    headSha: result.head.sha,
    samples: { base: result.base.measurements, head: result.head.measurements },
  };
}

/** SAMPLES_FILES names the per-side sample files in a report directory (benchbot JSON, readable by `benchbot compare`). */
export const SAMPLES_FILES = { base: 'base.json', head: 'head.json' } as const;

/**
 * mergeShards compares the pooled samples of every shard found under the
 * `merge` directory (one sub-directory per downloaded artifact), so that
 * the false discovery rate covers the whole suite, not each shard alone.
 */
function mergeShards(settings: ActionSettings): Outcome {
  const dir = settings.merge as string;
  const parts = findShardDirs(dir);
  if (parts.length === 0) throw new ActionInputError(`merge: no ${SAMPLES_FILES.base} and ${SAMPLES_FILES.head} under ${dir}; download the shards' artifacts there`);
  const base = readSide(parts.map((p) => join(p, SAMPLES_FILES.base)), 'benchbot', settings.filter);
  const head = readSide(parts.map((p) => join(p, SAMPLES_FILES.head)), 'benchbot', settings.filter);
  const report = compareRuns(base, head, { threshold: settings.threshold, alpha: settings.alpha, rules: settings.rules });
  const heads = new Set(parts.map((p) => readHeadSha(join(p, 'report.json'))).filter((s): s is string => s !== undefined));
  const headSha = heads.size === 1 ? [...heads][0] : undefined;
  const footer = `Merged from ${parts.length} shard${parts.length === 1 ? '' : 's'}${headSha ? `; head ${headSha.slice(0, 12)}` : ''}.`;
  return {
    report,
    markdown: renderMarkdown(report, { footer }),
    json: JSON.stringify({ ...toJsonReport(report), head_sha: headSha ?? null, shards: parts.length }, null, 2),
    headSha,
    samples: { base: base.measurements, head: head.measurements },
  };
}

function findShardDirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const dirs = [dir, ...readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name))];
  return dirs.filter((d) => existsSync(join(d, SAMPLES_FILES.base)) && existsSync(join(d, SAMPLES_FILES.head))).sort();
}

function readHeadSha(path: string): string | undefined {
  try {
    const sha = (JSON.parse(readFileSync(path, 'utf8')) as { head_sha?: unknown }).head_sha;
    return typeof sha === 'string' ? sha : undefined;
  } catch {
    return undefined;
  }
}

function benchbotJson(measurements: readonly Measurement[]): string {
  return JSON.stringify({ $schema: 'benchbot-json/1', version: 1, benchmarks: measurements.map((m) => ({ benchmark: m.benchmark, metric: m.metric, unit: m.unit, better: m.better, values: m.values })) });
}

/** writeReports puts report.md, report.json and the sample files in one directory under $RUNNER_TEMP, which is what the artifact uploads. */
function writeReports(settings: ActionSettings, outcome: Outcome, env: Env): { dir: string; markdown: string; json: string } {
  const dir = join(env.RUNNER_TEMP ?? tmpdir(), 'benchbot', settings.artifactName);
  mkdirSync(dir, { recursive: true });
  const markdown = join(dir, 'report.md');
  const json = join(dir, 'report.json');
  writeFileSync(markdown, `${outcome.markdown}\n`);
  writeFileSync(json, `${outcome.json}\n`);
  if (outcome.scan) {
    writeFileSync(join(dir, 'scan.json'), `${outcome.scan.json}\n`);
    writeFileSync(join(dir, 'scan.md'), `${outcome.scan.markdown}\n`);
  }
  if (outcome.samples) {
    writeFileSync(join(dir, SAMPLES_FILES.base), benchbotJson(outcome.samples.base));
    writeFileSync(join(dir, SAMPLES_FILES.head), benchbotJson(outcome.samples.head));
  }
  return { dir, markdown, json };
}

/**
 * publish writes the sticky PR comment and the check run. A GitHub API error
 * becomes a warning, not a failed step: the job summary and the artifact
 * still carry the report, and a read-only token (a fork's) is not the
 * benchmark's fault.
 */
async function publish(settings: ActionSettings, event: EventPayload, outcome: Outcome, deps: ActionDeps): Promise<Record<string, string>> {
  const { env, log } = deps;
  const outputs: Record<string, string> = { 'comment-url': '', 'check-run-url': '' };
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  // A shard reports only in its job summary; the merge job speaks for the whole suite.
  if (settings.shard || !owner || !repo || settings.githubToken === '') return outputs;
  const client: GitHubClient = createGitHubClient({ token: settings.githubToken, apiUrl: env.GITHUB_API_URL, fetch: deps.fetch });
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  const summary = outcome.report.summary;
  const issueNumber = pullRequestNumber(settings, event);
  if (issueNumber !== undefined && settings.comment !== 'never') {
    try {
      const body = runUrl ? `${outcome.markdown}\n\n<sub>[Workflow run](${runUrl}) · JSON report: artifact \`${settings.artifactName}\`</sub>` : outcome.markdown;
      const result = await upsertStickyComment(client, { owner, repo, issueNumber, marker: REPORT_MARKER, body, mode: settings.comment, hasChanges: summary.regressed + summary.improved + summary.error > 0 });
      outputs['comment-url'] = result.url ?? '';
      log(`benchbot: PR #${issueNumber} comment ${result.action}${result.url ? ` (${result.url})` : ''}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      log(`::warning title=benchbot::could not write the PR comment: ${escapeCommand(error.message)}${error.status === 403 ? ' (the workflow needs permissions: pull-requests: write)' : ''}`);
    }
  }
  const headSha = outcome.headSha ?? event.pull_request?.head?.sha;
  if (headSha && settings.checkName !== '') {
    try {
      const check = await publishCheckRun(client, {
        owner,
        repo,
        headSha,
        name: settings.checkName,
        conclusion: conclusionFor(summary, settings.failOn),
        title: headline(summary),
        summary: outcome.markdown,
        detailsUrl: runUrl,
      });
      outputs['check-run-url'] = check.url;
      log(`benchbot: check run "${settings.checkName}" ${conclusionFor(summary, settings.failOn)}${check.url ? ` (${check.url})` : ''}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      log(`::warning title=benchbot::could not write the check run: ${escapeCommand(error.message)}${error.status === 403 ? ' (the workflow needs permissions: checks: write)' : ''}`);
    }
  }
  if (outcome.scan) await closeRecoveredRegressions(client, outcome.scan.series, settings, { owner, repo, serverUrl: env.GITHUB_SERVER_URL }, log);
  return outputs;
}

/**
 * closeRecoveredRegressions closes every open regression issue whose series
 * is back within the threshold: the latest nights against the nights before
 * the regression (recoveryWindows, checkRecovery), with the numbers in the
 * closing comment. The regression's first night is the marker's range end,
 * or the first night that contains the bisected culprit (git ancestry in
 * the checkout).
 */
async function closeRecoveredRegressions(client: GitHubClient, series: Series[], settings: ActionSettings, where: { owner: string; repo: string; serverUrl?: string }, log: (line: string) => void): Promise<void> {
  let open;
  try {
    open = await listRegressionIssues(client, { owner: where.owner, repo: where.repo, state: 'open' });
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    log(`::warning title=benchbot::could not read the regression issues: ${escapeCommand(error.message)}${error.status === 403 ? ' (the workflow needs permissions: issues: write)' : ''}`);
    return;
  }
  for (const issue of open) {
    const s = series.find((x) => x.key === issue.marker.series);
    if (!s) continue;
    const start = issue.marker.culprit.includes('..') ? issue.marker.culprit.split('..')[1] : issue.marker.culprit;
    const firstBad = s.nights.findIndex((night) => night.sha === start || isAncestor(settings.workingDirectory, start, night.sha));
    const windows = recoveryWindows(s.nights, firstBad);
    if (!windows) continue;
    const recovery = checkRecovery(windows.baseline, windows.recent, s.better, settings.threshold);
    if (!recovery.recovered) continue;
    const comment = renderRecoveryComment({ series: issue.marker.series, benchmark: s.benchmark, metric: s.metric, unit: s.unit, recovery, lastNight: windows.lastNight, nights: windows.nights, threshold: settings.threshold, ...where });
    try {
      const closed = await closeRecoveredIssue(client, { owner: where.owner, repo: where.repo, marker: regressionMarker(issue.marker.series, issue.marker.culprit), comment });
      log(`benchbot: regression issue #${closed.number ?? issue.number} ${closed.action}: ${s.benchmark} (${s.metric}) recovered`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      log(`::warning title=benchbot::could not close recovered issue #${issue.number}: ${escapeCommand(error.message)}`);
    }
  }
}

/** isAncestor tells whether commit a is an ancestor of (or equal to) commit b in the checkout. */
function isAncestor(repo: string, a: string, b: string): boolean {
  return spawnSync('git', ['-C', repo, 'merge-base', '--is-ancestor', a, b]).status === 0;
}

/** writeOutputs appends step outputs in GITHUB_OUTPUT's heredoc form, which is safe for any value. */
function writeOutputs(path: string | undefined, outputs: Record<string, string>): void {
  if (!path) return;
  const lines: string[] = [];
  for (const [name, value] of Object.entries(outputs)) {
    let delimiter = 'benchbot_EOF';
    while (value.includes(delimiter)) delimiter += '_';
    lines.push(`${name}<<${delimiter}`, value, delimiter);
  }
  appendFileSync(path, `${lines.join('\n')}\n`);
}

/** escapeCommand keeps a message on one workflow-command line (GitHub's own escaping for command data). */
function escapeCommand(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
