import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { repositoryUrl } from '../jobs/nightly.ts';
import { runNightly, type NightlyIssues, type NightlySettings } from '../jobs/run-nightly.ts';
import { confirmedRegressions } from '../report/scan-report.ts';
import { NIGHTLY_REPORT_FORMATS, renderNightlyReport, type NightlyReportFormat } from '../report/nightly-report.ts';
import { createProgress } from '../runner/progress.ts';
import { choose, parseFlags, UsageError } from './usage-error.ts';
import { checkOutputDirectory } from './output-paths.ts';
import { MEASURE_FLAG_OPTIONS, MEASURE_FLAGS_USAGE, parseMeasureFlags } from './run-command.ts';

export const NIGHTLY_USAGE = `usage: benchbot nightly --bench CMD [options]

The nightly job on this machine, the same as the action's nightly mode: in
a checkout, measures the branch head against the last nightly commit on
this machine (interleaved rounds), stores it as the night, measures right
away the interleaved A/B of every finding that awaits one (at most 3 pairs,
2 rounds), scans the branch's nightly history and prints the report. Run it
from cron, a systemd timer or any CI (docs/nightly-and-bisect.md); run on
every push to the default branch, it records a point per push.

options:
  --bench CMD             benchmark command, run in the checkout (required)
  --branch NAME           branch whose nightly this is (default: the checkout's current branch)
  --head REF              commit to measure (default: the tip of --branch)
  --base REF              commit to compare it with (default: the last nightly of the branch, else the head's first parent)
  --repository O/N        the GitHub repository OWNER/NAME: the history's key in the store, the commits' links, and
                          where --issues files (default: the checkout's directory, as benchbot run stores)
  --confirm-only          measure no night: only the interleaved A/B of the findings that await one (e.g. after
                          benchbot import), then scan
  --bisect                bisect each confirmed regression over the merges of its range on this machine and name
                          the culprit in the report (once per regression: the log is kept in the store)
  --issues                file or update an issue per confirmed regression on --repository through the GitHub API,
                          and close those whose series recovered; the token comes from env GITHUB_TOKEN (or GH_TOKEN),
                          the API from env GITHUB_API_URL (default https://api.github.com)
  --issue-label L         another label for the issues filed (repeatable; they always carry benchbot)
  --dashboard DIR         write the dashboard of the history into DIR (as benchbot dashboard --out DIR)
  --output O              ${NIGHTLY_REPORT_FORMATS.join(' | ')} (default text)
${MEASURE_FLAGS_USAGE}

exit status: 0 no confirmed regression, 1 at least one, 2 usage, setup or input error`;

/** NightlyCommandSettings are the parsed flags: the nightly job's settings and how to print. */
export interface NightlyCommandSettings extends NightlySettings {
  output: NightlyReportFormat;
}

/** currentBranch is the checkout's branch, or undefined on a detached HEAD (or outside a repository: the job says so). */
function currentBranch(repo: string): string | undefined {
  const r = spawnSync('git', ['-C', repo, 'symbolic-ref', '--quiet', '--short', 'HEAD'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
}

/** parseNightlyArgs validates `benchbot nightly`'s flags; every problem names the flag to change. */
export function parseNightlyArgs(args: string[], cwd: string, env: NodeJS.ProcessEnv): NightlyCommandSettings {
  const { values: v } = parseFlags(args, {
    ...MEASURE_FLAG_OPTIONS,
    branch: { type: 'string' }, head: { type: 'string' }, base: { type: 'string' }, repository: { type: 'string' },
    'confirm-only': { type: 'boolean' }, bisect: { type: 'boolean' }, issues: { type: 'boolean' }, 'issue-label': { type: 'string', multiple: true },
    dashboard: { type: 'string' }, output: { type: 'string' },
  }, false);
  const output = choose('--output', v.output ?? 'text', NIGHTLY_REPORT_FORMATS);
  // Refused now, not after the night's measurements: the dashboard is written last.
  if (v.dashboard !== undefined) checkOutputDirectory('--dashboard', resolve(cwd, v.dashboard));
  const measure = parseMeasureFlags(v, cwd, env);
  const repository = v.repository;
  if (repository !== undefined && !/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new UsageError(`--repository ${repository}: give the GitHub repository as OWNER/NAME`);
  const branch = v.branch ?? currentBranch(measure.repo);
  if (branch === undefined) throw new UsageError(`--branch is required: ${measure.repo} is not on a branch (detached HEAD); name the branch whose nightly this is`);
  if (v['confirm-only'] === true && v.base !== undefined) throw new UsageError('--base: --confirm-only measures no night, so there is nothing to compare with a base; leave one of them out');
  // The bisect job measures on this machine only: a night measured elsewhere would be bisected on the wrong machine.
  if (v.bisect === true && measure.executorSpec.kind !== 'local') throw new UsageError(`--bisect: bisects on this machine only, and --executor ${v.executor} measures on another; leave one of them out (benchbot bisect runs there by hand)`);
  if (v.issues !== true && v['issue-label'] !== undefined) throw new UsageError('--issue-label: labels are for the issues --issues files; add --issues');
  let issues: NightlyIssues | undefined;
  if (v.issues === true) {
    if (repository === undefined) throw new UsageError('--issues needs --repository OWNER/NAME: the repository to file the issues in');
    const token = (env.GITHUB_TOKEN ?? env.GH_TOKEN ?? '').trim();
    if (token === '') throw new UsageError('--issues needs a token that may write issues in env GITHUB_TOKEN (or GH_TOKEN); it is never read from a flag, which ps would show');
    const [owner, repo] = repository.split('/');
    issues = { owner, repo, token, apiUrl: env.GITHUB_API_URL, serverUrl: env.GITHUB_SERVER_URL, labels: v['issue-label'] ?? [] };
  }
  return {
    ...measure,
    // The history's key: the GitHub repository when named (as the action stores it), else the directory (as run does).
    repository: repository ?? measure.repository,
    branch,
    head: v.head ?? branch,
    base: v.base,
    confirmOnly: v['confirm-only'] === true,
    bisect: v.bisect === true,
    issues,
    dashboard: v.dashboard === undefined ? undefined : { dir: resolve(cwd, v.dashboard), title: repository ? `benchbot: ${repository}` : 'benchbot' },
    output,
  };
}

/** runNightlyCommand implements `benchbot nightly`; returns the exit code. */
export async function runNightlyCommand(args: string[], out: (text: string) => void): Promise<number> {
  const settings = parseNightlyArgs(args, process.cwd(), process.env);
  const outcome = await runNightly(settings, { progress: createProgress(), now: () => new Date().toISOString() });
  const { result, series } = outcome.evidence;
  out(renderNightlyReport({ ...outcome, scan: result, series, confirmed: outcome.evidence.confirmed, unmeasurable: outcome.evidence.unmeasurable }, settings.output, {
    series, threshold: settings.threshold, branch: settings.branch ?? 'main', repoUrl: repositoryUrl(settings.repository, process.env.GITHUB_SERVER_URL),
  }));
  return confirmedRegressions(result).length > 0 ? 1 : 0;
}
