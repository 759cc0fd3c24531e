import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as core from '@actions/core';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReportContext } from '../report/run-report.ts';
import { renderReport } from '../report/report-renderers.ts';
import { hostKey } from '../model/fingerprint.ts';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { FormatError } from '../formats/format-error.ts';
import { UnknownFormatError } from '../formats/detect.ts';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import type { Fingerprint } from '../model/fingerprint.ts';
import { withFooter, type MarkdownOptions } from '../report/markdown-report.ts';
import { headline } from '../report/report-order.ts';
import { RunnerError } from '../runner/git-checkout.ts';
import { createProgress, type Progress } from '../runner/progress.ts';
import type { RunAbResult } from '../runner/run-ab.ts';
import { redact } from '../store/redact.ts';
import { StoreError } from '../store/store.ts';
import { PR_CHECK_DEFAULTS, runPrCheck } from '../jobs/pr-check.ts';
import { mergedReportContext, mergeShards } from '../jobs/merge-shards.ts';
import { actionSetting, SettingError } from '../jobs/setting-names.ts';
import { ActionInputError, readActionInputs, type ActionSettings } from './action-inputs.ts';
import { publishReport } from './publish-report.ts';
import type { NightlyHistory } from '../jobs/nightly-history.ts';
import type { ScanTexts } from '../jobs/nightly.ts';
import { COMMIT_SHA, RESULTS_FILES, ResultsError, samplesJson, writeProfileSources } from '../jobs/results-artifact.ts';

type Env = Record<string, string | undefined>;

/** ActionDeps are the edges the action touches, injectable for tests. */
export interface ActionDeps {
  env: Env;
  /**
   * log writes one plain line to the job log. Annotations and step outputs
   * go through @actions/core: to standard output, and to the file that
   * $GITHUB_OUTPUT of process.env names.
   */
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
  repository?: { default_branch?: string };
  issue?: { number?: number; pull_request?: unknown };
}

/** Side is one side's raw results, as written to and read from the results artifact. */
interface Side {
  measurements: Measurement[];
  warnings: ReadWarning[];
  hints: FingerprintHints;
  /** harness measured the samples: the report job's default threshold of counted work follows it. */
  harness?: string;
}

/** Outcome is what one measuring or reporting pass produced. */
interface Outcome {
  report: ComparisonReport;
  markdown: string;
  json: string;
  /** headSha is the commit the check run goes on; in the report role only a SHA the run was given, never one from the artifact. */
  headSha?: string;
  samples: { base: Side; head: Side };
  /** scan is a nightly's scan of the branch's history (scan.json is what the app reads, from the report job's artifact). */
  scan?: ScanTexts;
  /** recovery is the parsed history the report job decides recovered issues from. */
  recovery?: NightlyHistory;
  /** profileSources are the measuring job's callgrind files of its regressed benchmarks' profiles, for the artifact. */
  profileSources?: RunAbResult['profileSources'];
}

/**
 * runAction is the whole action, in one of two roles (ActionRole):
 *
 * - measure (no `merge`): measure base against head on this runner, store
 *   the runs, and write the results artifact (raw samples, and for a
 *   nightly the branch's history) under $RUNNER_TEMP. It holds no token and
 *   writes nothing to GitHub; its counts are for its own job summary only.
 * - report (`merge`): read the downloaded results, recompute every
 *   comparison, count, scan and conclusion from the raw rows, and publish
 *   the sticky PR comment, the check run, the job summary and the report
 *   artifact; for a nightly, close the regression issues that recovered.
 *
 * Returns the process exit code: 0 when the step finished (a regression
 * fails the report step through the `fail` output, which the action's last
 * step turns into a failed step per `fail-on`), 2 for bad inputs, a run
 * that could not measure, or results the report job cannot use.
 */
export async function runAction(deps: ActionDeps): Promise<number> {
  const { env, log } = deps;
  try {
    const settings = readActionInputs(env);
    const event = readEvent(env.GITHUB_EVENT_PATH);
    const outcome = settings.role === 'measure' ? await measure(settings, event, deps) : recompute(settings, event, env);
    const files = writeReports(settings, outcome, env);
    const summary = outcome.report.summary;
    const fail = settings.role === 'report' && settings.failOn === 'regression' && summary.regressed > 0;
    // Appended as rendered, not through @actions/core's summary, which keeps the first file it saw for the whole process.
    if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${outcome.markdown}\n${outcome.scan ? `\n${outcome.scan.markdown}\n` : ''}`);
    const outputs: Record<string, string> = {
      verdict: overallVerdict(summary),
      regressions: String(summary.regressed),
      improvements: String(summary.improved),
      'report-markdown': files.markdown,
      'report-json': files.json,
      'artifact-name': settings.artifactName,
      'artifact-path': files.dir,
      fail: String(fail),
      'fail-message': fail ? `benchbot: ${headline(summary)} (fail-on: regression)` : '',
      'comment-url': '',
      'check-run-url': '',
      'commit-comment-url': '',
    };
    if (settings.role === 'measure') {
      log(`benchbot: measured ${headline(summary)}; the report job recomputes and publishes it from artifact ${settings.artifactName}`);
    } else {
      log(`benchbot: ${headline(summary)}`);
      Object.assign(outputs, await publishReport(settings, pullRequestNumber(settings, event), outcome, deps));
    }
    // Where @actions/core writes them; without $GITHUB_OUTPUT (not a workflow step) there is nowhere to.
    if (process.env.GITHUB_OUTPUT) for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);
    return 0;
  } catch (error) {
    if (error instanceof ActionInputError || error instanceof SettingError || error instanceof RunnerError || error instanceof FormatError || error instanceof UnknownFormatError || error instanceof StoreError || error instanceof ResultsError) {
      // A results file that does not parse is annotated at its line.
      const at = error instanceof FormatError ? { file: error.file, startLine: error.line } : {};
      core.error(redact(error.message), { title: 'benchbot', ...at });
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

/**
 * measure is the measuring role: the pull request's base and head (or the
 * inputs'), or a nightly's commit, measured by the PR check job on this
 * runner with the action's inputs as its settings.
 */
async function measure(settings: ActionSettings, event: EventPayload, deps: ActionDeps): Promise<Outcome> {
  const { env } = deps;
  const nightly = settings.mode === 'nightly';
  const head = settings.head ?? event.pull_request?.head?.sha ?? (nightly ? env.GITHUB_SHA : undefined);
  if (head === undefined) throw new ActionInputError('head: this event has no pull request; give base and head (SHAs or refs)');
  // A nightly without a base is compared with the night before (nightlyBase).
  const base = settings.base ?? event.pull_request?.base?.sha;
  if (base === undefined && !nightly) throw new ActionInputError('base: this event has no pull request; give base and head (SHAs or refs)');
  const { run, nightly: evidence } = await runPrCheck({
    ...PR_CHECK_DEFAULTS,
    repo: settings.workingDirectory,
    base,
    head,
    bench: settings.bench,
    build: settings.build,
    format: settings.format,
    resultFile: settings.resultFile,
    minRuns: settings.minRuns,
    maxRuns: settings.maxRuns,
    threshold: settings.threshold,
    workThreshold: settings.workThreshold,
    alpha: settings.alpha,
    rules: settings.rules,
    filter: settings.filter,
    counters: settings.counters,
    ...(settings.instructions ? { instructions: settings.instructions } : {}),
    allowDirty: false,
    stateDir: join(settings.workingDirectory, '.benchbot'),
    labels: (env.RUNNER_LABELS ?? '').split(/[\s,]+/).filter((l) => l !== ''),
    executorSpec: settings.executor,
    maxLoad: settings.maxLoad,
    store: settings.store,
    noStore: settings.store === undefined,
    repository: env.GITHUB_REPOSITORY,
    branch: nightly ? env.GITHUB_REF_NAME : event.pull_request?.head?.ref,
    // history.json goes into the results directory as it is read, a batch of series at a time (jobs/nightly.ts).
    nightly: nightly ? { serverUrl: env.GITHUB_SERVER_URL, historyFile: join(resultsDir(settings, env), RESULTS_FILES.history) } : undefined,
    shard: settings.shard,
    nameSetting: actionSetting,
  }, { progress: deps.progress ?? createProgress(), now: deps.now, env });
  return { ...fromRun(run, settings), ...(evidence ? { scan: evidence.scan } : {}) };
}

function fromRun(result: RunAbResult, settings: ActionSettings): Outcome {
  const context = runReportContext(result);
  const markdown = renderReport('markdown', result.report, { ...context, merged: settings.mode === 'nightly' });
  // The run's JSON report, with the machine and the shard for the report job (which takes neither on trust).
  const json = renderReport('json', result.report, { json: { ...context.json, environment: context.environment, ...(settings.shard ? { shard: settings.shard } : {}) } });
  const note = settings.shard
    ? `Shard ${settings.shard.index} of ${settings.shard.count}, as measured on this runner; the report job merges the shards and publishes.`
    : 'As measured on this runner; the report job recomputes it from the raw samples and publishes it.';
  return {
    report: result.report,
    markdown: withFooter(markdown, note),
    json,
    headSha: result.head.sha,
    samples: { base: result.base, head: result.head },
    profileSources: result.profileSources,
  };
}

/**
 * trustedCommits are the commits the report job reports on, from what the
 * workflow gave it (inputs `head`/`base` as full SHAs, the pull request in
 * the event, the nightly's own commit), never from the artifact.
 */
function trustedCommits(settings: ActionSettings, event: EventPayload, env: Env): { head?: string; base?: string } {
  const sha = (value: string | undefined) => (value !== undefined && COMMIT_SHA.test(value) ? value : undefined);
  const head = sha(settings.head) ?? sha(event.pull_request?.head?.sha) ?? (settings.mode === 'nightly' && settings.head === undefined ? sha(env.GITHUB_SHA) : undefined);
  const base = sha(settings.base) ?? sha(event.pull_request?.base?.sha);
  return { head, base };
}

/**
 * dashboardOf links a PR comment's changes to their nightly series when
 * BENCHBOT_DASHBOARD_URL names a published dashboard: the default branch's
 * series on the machine that measured (its key, a hash, is all the
 * artifact's fingerprint decides).
 */
function dashboardOf(env: Env, event: EventPayload, side: { fingerprint?: Fingerprint }): MarkdownOptions['dashboard'] {
  const url = env.BENCHBOT_DASHBOARD_URL?.trim();
  if (!url || !side.fingerprint) return undefined;
  return { url, repo: env.GITHUB_REPOSITORY, branch: event.repository?.default_branch ?? 'main', machine: hostKey(side.fingerprint) };
}

/**
 * recompute is the report role: the merge-shards job recomputes every
 * comparison, count and conclusion from the raw samples of the downloaded
 * results (a nightly's scan too, from history.json), for the commits this
 * run was given, never the artifact's.
 */
function recompute(settings: ActionSettings, event: EventPayload, env: Env): Outcome {
  const merged = mergeShards({
    dir: settings.merge as string,
    trusted: trustedCommits(settings, event, env),
    threshold: settings.threshold,
    workThreshold: settings.workThreshold,
    format: settings.format,
    alpha: settings.alpha,
    rules: settings.rules,
    filter: settings.filter,
    minRuns: settings.minRuns,
    maxRuns: settings.maxRuns,
    nightly: settings.mode === 'nightly' ? { branch: env.GITHUB_REF_NAME ?? 'main', repository: env.GITHUB_REPOSITORY, serverUrl: env.GITHUB_SERVER_URL } : undefined,
    nameSetting: actionSetting,
  });
  const context = mergedReportContext(merged);
  return {
    report: merged.report,
    markdown: renderReport('markdown', merged.report, { ...context, merged: settings.mode === 'nightly', dashboard: dashboardOf(env, event, merged.head) }),
    json: renderReport('json', merged.report, context),
    headSha: merged.headSha,
    samples: { base: merged.base, head: merged.head },
    scan: merged.scan,
    recovery: merged.history,
    // The callgrind files of the profiles shown, passed on: the app reads this job's artifact for a /bench comment.
    profileSources: merged.profileSources,
  };
}

/**
 * writeReports puts the artifact's files in one directory under
 * $RUNNER_TEMP, which the action's upload step uploads: report.md,
 * report.json and the sample files always; scan.json and scan.md from a
 * reporting nightly (a measuring one wrote history.json there already).
 */
function writeReports(settings: ActionSettings, outcome: Outcome, env: Env): { dir: string; markdown: string; json: string } {
  const dir = resultsDir(settings, env);
  const markdown = join(dir, 'report.md');
  const json = join(dir, RESULTS_FILES.report);
  writeFileSync(markdown, `${outcome.markdown}\n`);
  writeFileSync(json, `${outcome.json}\n`);
  writeFileSync(join(dir, RESULTS_FILES.base), samplesJson(outcome.samples.base));
  writeFileSync(join(dir, RESULTS_FILES.head), samplesJson(outcome.samples.head));
  // The callgrind files of the regressed benchmarks' profiles: the report job diffs them again.
  if (outcome.profileSources) writeProfileSources(dir, outcome.profileSources);
  if (outcome.scan && settings.role === 'report') {
    writeFileSync(join(dir, 'scan.json'), `${outcome.scan.json}\n`);
    writeFileSync(join(dir, 'scan.md'), `${outcome.scan.markdown}\n`);
  }
  return { dir, markdown, json };
}

/** resultsDir is the artifact's directory under $RUNNER_TEMP, made if missing. */
function resultsDir(settings: ActionSettings, env: Env): string {
  const dir = join(env.RUNNER_TEMP ?? tmpdir(), 'benchbot', settings.artifactName);
  mkdirSync(dir, { recursive: true });
  return dir;
}
