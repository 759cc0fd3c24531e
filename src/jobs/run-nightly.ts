import { join } from 'node:path';
import type { BisectLog } from '../bisect/bisect-log.ts';
import { defaultWorkThreshold } from '../compare/compare-runs.ts';
import { githubRepoUrl } from '../dashboard/read-history.ts';
import { writeSite } from '../dashboard/write-site.ts';
import { createGitHubClient, GitHubError, type GitHubClient } from '../github/github-client.ts';
import { fileRegressionIssue, type IssueAuthor, type RegressionIssueAction } from '../github/regression-issue.ts';
import { confirmedRegressions } from '../report/scan-report.ts';
import { RunnerError } from '../runner/git-checkout.ts';
import { makeStateDir } from '../runner/state-dir.ts';
import type { RunAbResult } from '../runner/run-ab.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { bisect, BISECT_DEFAULTS } from './bisect-session.ts';
import { ESTIMATED_CYCLES_METRIC, INSTRUCTIONS_METRIC, isWorkMetric } from '../model/work-metrics.ts';
import { readNightlyHistory } from './nightly-history.ts';
import type { NightlyEvidence } from './nightly.ts';
import { confirmAwaiting, PR_CHECK_DEFAULTS, runPrCheck, type PrCheckDeps, type PrCheckSettings } from './pr-check.ts';
import { closeRecoveredRegressions, type ClosedRegression } from './regression-issues.ts';
import { PROFILE_DEFAULTS, profileBenchmark } from './profile-benchmark.ts';
import { SettingError } from './setting-names.ts';
import type { ProfileDiff } from '../model/profile-diff.ts';

/**
 * run-nightly: the nightly job on a machine of its own (`benchbot
 * nightly`, from cron, a systemd timer or another CI). The measuring part
 * is the action's nightly (runPrCheck with `nightly`: the branch head
 * against the last nightly, stored as the night, the awaiting findings
 * confirmed right away, the branch scanned); what the action's report job
 * and the app do after it (bisect a confirmed regression, file or update
 * its issue, close recovered ones, publish the dashboard) runs here with
 * the same jobs, each only when asked for.
 */

/** NIGHTLY_STATE_PREFIX keys a bisection the nightly ran (`nightly-bisect:<series>:<good>..<bad>`): a regression stays in the scan night after night, and is bisected once. */
export const NIGHTLY_BISECT_PREFIX = 'nightly-bisect:';

/** ISSUE_STATE_PREFIX keys the issue filed for a series, as the app records it (`issue:<owner>/<repo>:<series>`), which the dashboard shows. */
const ISSUE_STATE_PREFIX = 'issue:';

/** NightlyIssues say where regression issues go: OWNER/NAME on a GitHub API, with a token that may write issues. */
export interface NightlyIssues {
  owner: string;
  repo: string;
  token: string;
  /** apiUrl is the REST API (default GITHUB_API_URL, then https://api.github.com). */
  apiUrl?: string;
  /** serverUrl is the web server the issues link commits to (default https://github.com). */
  serverUrl?: string;
  labels: string[];
  fetch?: typeof fetch;
}

/**
 * NightlySettings are a nightly's: the PR check's settings for the night's
 * A/B (its base is the last nightly, nightlyBase, unless given) and what to
 * do after the scan. `confirmOnly` measures no night, only what awaits
 * confirmation; `bisect` bisects each confirmed regression on this machine
 * (once: the log is kept in the store); `issues` files them; `dashboard`
 * writes the site into that directory.
 */
export interface NightlySettings extends Omit<PrCheckSettings, 'nightly' | 'calibrate' | 'noStore'> {
  confirmOnly: boolean;
  bisect: boolean;
  issues?: NightlyIssues;
  dashboard?: { dir: string; title: string };
}

/** NightlyBisect is one confirmed regression's bisection: its log, or why none ran. */
export interface NightlyBisect {
  finding: ScanFinding;
  log?: BisectLog;
  /** reused: the log was kept from an earlier night's bisection of the same range. */
  reused?: boolean;
  error?: string;
}

/** NightlyIssue is what filing one regression's issue did. */
export interface NightlyIssue {
  series: string;
  action: RegressionIssueAction;
  number: number;
  url: string;
}

/** NightlyOutcome is everything the nightly did, for the report. */
export interface NightlyOutcome {
  /** run is the night's A/B (none with confirmOnly). */
  run?: RunAbResult;
  evidence: NightlyEvidence;
  bisects: NightlyBisect[];
  issues: NightlyIssue[];
  closed: ClosedRegression[];
  dashboard?: { dir: string; series: number; files: number };
  /** warnings are what went wrong after the scan (GitHub, a bisection) without changing its result. */
  warnings: string[];
}

/** runNightly runs the nightly job on this machine (see the file's comment). */
export async function runNightly(settings: NightlySettings, deps: PrCheckDeps): Promise<NightlyOutcome> {
  // A nightly without its history is no nightly: history.json goes where the runner keeps its state.
  // makeStateDir first: a .benchbot/ benchbot creates ignores itself, so git status stays clean.
  makeStateDir(settings.stateDir);
  makeStateDir(join(settings.stateDir, 'nightly'));
  const nightly = { historyFile: join(settings.stateDir, 'nightly', 'history.json') };
  const check: PrCheckSettings = { ...settings, noStore: false, nightly };
  let run: RunAbResult | undefined;
  let evidence: NightlyEvidence;
  if (settings.confirmOnly) {
    evidence = await confirmAwaiting({ ...check, nightly }, deps);
  } else {
    const result = await runPrCheck(check, deps);
    run = result.run;
    evidence = result.nightly as NightlyEvidence;
  }
  const warnings: string[] = [];
  const confirmed = confirmedRegressions(evidence.result);
  const store = await openStore(settings.store, { cwd: settings.repo, env: deps.env });
  try {
    const bisects = settings.bisect ? await bisectAll(settings, confirmed, store, deps) : [];
    for (const b of bisects) if (b.error) warnings.push(`could not bisect ${b.finding.benchmark} (${b.finding.metric}): ${b.error}`);
    let issues: NightlyIssue[] = [];
    let closed: ClosedRegression[] = [];
    if (settings.issues) {
      const profiles = await profileFindings(settings, confirmed, bisects, deps, (w) => warnings.push(w));
      ({ issues, closed } = await publishIssues(settings, settings.issues, evidence, confirmed, bisects, store, deps.now, (w) => warnings.push(w), profiles));
    }
    let dashboard: NightlyOutcome['dashboard'];
    if (settings.dashboard) {
      const site = await writeSite(store, settings.dashboard.dir, { repo: settings.repository, branch: settings.branch, title: settings.dashboard.title, threshold: settings.threshold, generated: deps.now(), repoUrl: githubRepoUrl(settings.issues?.serverUrl ?? 'https://github.com') });
      dashboard = { dir: settings.dashboard.dir, series: site.series, files: site.files };
    }
    return { run, evidence, bisects, issues, closed, dashboard, warnings };
  } finally {
    await store.close();
  }
}

/**
 * bisectAll bisects each confirmed regression over the merges of its range
 * (the bisect job, following that benchmark and metric), once per series
 * and range: the log is kept in the store's state and reused the next
 * nights, while the regression stays in the scan.
 */
async function bisectAll(settings: NightlySettings, confirmed: readonly ScanFinding[], store: Store, deps: PrCheckDeps): Promise<NightlyBisect[]> {
  const out: NightlyBisect[] = [];
  // A benchmark's instructions and estimated cycles are one count: when both regressed over one range, the bisection of
  // its instructions answers for both (the same valgrind runs would be made twice).
  const range = (f: ScanFinding) => `${f.benchmark}\u0000${f.machineKey}\u0000${f.lastGood.sha}..${f.firstBad.sha}`;
  const countedRanges = new Set(confirmed.filter((f) => f.metric === INSTRUCTIONS_METRIC && settings.instructions !== undefined).map(range));
  const ordered = [...confirmed].sort((a, b) => Number(b.metric === INSTRUCTIONS_METRIC) - Number(a.metric === INSTRUCTIONS_METRIC));
  for (const finding of ordered) {
    if (finding.metric === ESTIMATED_CYCLES_METRIC && countedRanges.has(range(finding))) {
      const same = out.find((b) => b.finding.metric === INSTRUCTIONS_METRIC && range(b.finding) === range(finding));
      if (same?.log) {
        out.push({ finding, log: same.log, ...(same.reused ? { reused: true } : {}) });
        continue;
      }
    }
    const key = `${NIGHTLY_BISECT_PREFIX}${finding.series}:${finding.lastGood.sha}..${finding.firstBad.sha}`;
    const kept = (await store.getState(key))?.value as BisectLog | undefined;
    if (kept && typeof kept === 'object' && typeof kept.status === 'string') {
      out.push({ finding, log: kept, reused: true });
      continue;
    }
    // A regression of counted work is bisected by counting (one count per probe, at the work threshold); one of wall time on wall time.
    const work = isWorkMetric(finding.metric) && settings.instructions !== undefined;
    deps.progress.note(`bisecting ${finding.benchmark} (${finding.metric}${work ? ', counted under valgrind' : ''}): ${finding.lastGood.sha.slice(0, 12)}..${finding.firstBad.sha.slice(0, 12)}`);
    try {
      const { log } = await bisect({
        settings: {
          repo: settings.repo,
          measure: {
            bench: settings.bench, build: settings.build, format: settings.format, resultFile: settings.resultFile, rounds: BISECT_DEFAULTS.rounds, warmup: BISECT_DEFAULTS.warmup, roundTimeoutMs: settings.roundTimeoutMs, buildTimeoutMs: settings.buildTimeoutMs,
            ...(work ? { instructions: { ...settings.instructions, repeats: BISECT_DEFAULTS.instructionRepeats } } : {}),
          },
          benchmarks: [finding.benchmark],
          metric: finding.metric,
          // Counted work at its own threshold: the one given, else the default of the harness (the format given, else the series' own).
          threshold: work ? (settings.workThreshold ?? defaultWorkThreshold(settings.format ?? finding.harness)) : settings.threshold,
          maxSessions: BISECT_DEFAULTS.maxSessions,
          parallel: BISECT_DEFAULTS.parallel,
        },
        good: finding.lastGood.sha,
        bad: finding.firstBad.sha,
        store: settings.store,
        noStore: false,
        hold: { maxLoad: settings.maxLoad, loadWaitMs: settings.loadWaitMs, lockTimeoutMs: settings.lockTimeoutMs, nameSetting: settings.nameSetting },
        name: settings.nameSetting,
        cwd: settings.repo,
      });
      await store.putState(key, log);
      out.push({ finding, log });
    } catch (error) {
      // A range this checkout cannot bisect (rewritten history, a reference that no longer builds) leaves the regression reported, unbisected.
      if (!(error instanceof RunnerError)) throw error;
      out.push({ finding, error: error.message });
    }
  }
  return out;
}

/**
 * profileFindings makes, for each confirmed regression an issue is filed
 * for, the benchmark's differential profile across the change: the culprit
 * merge against its first parent when bisection named one, else the last
 * good against the first bad nightly. It runs on this machine, which builds
 * and runs the repository's code anyway: callgrind where the harness's
 * schedule can be fixed, else perf record. One that cannot be made (no
 * valgrind, no perf, a commit that no longer builds) is a warning, and the
 * issue still says how to make it.
 */
async function profileFindings(settings: NightlySettings, confirmed: readonly ScanFinding[], bisects: readonly NightlyBisect[], deps: PrCheckDeps, warn: (w: string) => void): Promise<Map<ScanFinding, ProfileDiff>> {
  const out = new Map<ScanFinding, ProfileDiff>();
  // A harness whose schedule cannot be fixed is sampled by perf record (profileBenchmark's default), the whole command where it cannot run one benchmark alone.
  if (!(settings.profile ?? PR_CHECK_DEFAULTS.profile)) return out;
  for (const finding of confirmed) {
    const culprit = bisects.find((b) => b.finding === finding)?.log?.culprit;
    const [base, head] = culprit ? [`${culprit.sha}^1`, culprit.sha] : [finding.lastGood.sha, finding.firstBad.sha];
    try {
      const { diff } = await profileBenchmark({
        repo: settings.repo, base, head, bench: settings.bench, build: settings.build, format: settings.format, benchmark: finding.benchmark,
        top: PROFILE_DEFAULTS.top, timeoutMs: settings.roundTimeoutMs, buildTimeoutMs: settings.buildTimeoutMs, stateDir: settings.stateDir,
        executorSpec: settings.executorSpec, nameSetting: settings.nameSetting,
      }, { progress: deps.progress });
      out.set(finding, diff);
    } catch (error) {
      if (!(error instanceof RunnerError || error instanceof SettingError)) throw error;
      warn(`no profile of ${finding.benchmark} for its issue: ${error.message}`);
    }
  }
  return out;
}

/**
 * issueAuthor is whose issues the token's are: the token's user (a
 * person's token files issues as that person), or any GitHub App account
 * when the token is an app's or a workflow's (GET /user answers 403).
 */
async function issueAuthor(client: GitHubClient): Promise<IssueAuthor> {
  try {
    const user = await client.request<{ login?: string }>('GET', '/user');
    return typeof user?.login === 'string' ? user.login : null;
  } catch (error) {
    if (error instanceof GitHubError && (error.status === 403 || error.status === 404)) return null;
    throw error;
  }
}

/**
 * publishIssues files or updates one issue per confirmed regression (with
 * the culprit when bisected), records it where the dashboard reads issues,
 * and closes the issues whose series recovered (the action's report job's
 * rule, from the same history.json). A GitHub error is a warning.
 */
async function publishIssues(
  settings: NightlySettings, where: NightlyIssues, evidence: NightlyEvidence, confirmed: readonly ScanFinding[], bisects: readonly NightlyBisect[], store: Store, now: () => string, warn: (w: string) => void,
  profiles: ReadonlyMap<ScanFinding, ProfileDiff> = new Map(),
): Promise<{ issues: NightlyIssue[]; closed: ClosedRegression[] }> {
  const client = createGitHubClient({ token: where.token, apiUrl: where.apiUrl, fetch: where.fetch });
  const issues: NightlyIssue[] = [];
  let author: IssueAuthor;
  try {
    author = await issueAuthor(client);
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    warn(`could not reach the GitHub API at ${client.apiUrl}: ${error.message}`);
    return { issues, closed: [] };
  }
  // Recovered issues are closed first: the scan still lists their regression (it happened), and an issue closed for
  // recovery stays closed (reopen: false); a regression that recurs is a new change with an issue of its own.
  const history = readNightlyHistory(evidence.historyFile, settings.branch ?? 'main');
  const closed = await closeRecoveredRegressions(client, history, settings.threshold, { owner: where.owner, repo: where.repo, serverUrl: where.serverUrl, author }, warn);
  for (const finding of confirmed) {
    const log = bisects.find((b) => b.finding === finding)?.log;
    try {
      const result = await fileRegressionIssue(client, {
        owner: where.owner, repo: where.repo, serverUrl: where.serverUrl, finding, bisect: log, threshold: settings.threshold,
        reproduce: { bench: settings.bench, build: settings.build, format: settings.format }, labels: where.labels, botLogin: author, reopen: false,
        profile: profiles.get(finding),
      });
      issues.push({ series: finding.series, action: result.action, number: result.number, url: result.url });
      const named = log?.culprit;
      await store.putState(`${ISSUE_STATE_PREFIX}${where.owner}/${where.repo}:${finding.series}`, {
        number: result.number, url: result.url, marker: result.marker, at: now(),
        ...(named ? { culprit: { sha: named.sha, subject: named.subject, ...(typeof named.pr === 'number' ? { pr: named.pr } : {}) } } : {}),
      });
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      warn(`could not file the issue of ${finding.benchmark} (${finding.metric}): ${error.message}${error.status === 403 ? ' (the token needs issues: write)' : ''}`);
    }
  }
  return { issues, closed };
}
