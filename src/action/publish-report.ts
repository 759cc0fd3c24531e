import * as core from '@actions/core';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { createGitHubClient, GitHubError, type GitHubClient } from '../github/github-client.ts';
import { upsertStickyComment } from '../github/sticky-comment.ts';
import { conclusionFor, publishCheckRun } from '../github/check-run.ts';
import type { NightlyHistory } from '../jobs/nightly-history.ts';
import { repositoryUrl, type ScanTexts } from '../jobs/nightly.ts';
import { upsertCommitComment } from '../github/commit-comment.ts';
import { ccLine, COMMIT_ALERT_MARKER, renderCommitAlert } from '../report/commit-alert.ts';
import { confirmedRegressions } from '../report/scan-report.ts';
import { REPORT_MARKER, withFooter } from '../report/markdown-report.ts';
import { countsLine } from '../report/report-layout.ts';
import type { ActionSettings } from './action-inputs.ts';
import { closeRecoveredRegressions } from '../jobs/regression-issues.ts';

/** Publishable is what the report job publishes: the recomputed report and, for a nightly, the history recovery is decided from. */
export interface Publishable {
  report: ComparisonReport;
  markdown: string;
  /** headSha is the commit the check run goes on: only a SHA the run was given, never one from the artifact. */
  headSha?: string;
  recovery?: NightlyHistory;
  /** scan is a nightly's scan, recomputed from the raw samples of history.json: its confirmed regressions decide the commit comment. */
  scan?: ScanTexts;
}

/** PublishDeps are the edges publishing touches: the workflow's environment, the job log, and fetch for the GitHub client. */
export interface PublishDeps {
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  fetch?: typeof fetch;
}

/**
 * publish writes the sticky PR comment and the check run, and for a nightly
 * closes the regression issues that recovered. A GitHub API error becomes
 * a warning, not a failed step: the job summary and the artifact still
 * carry the report.
 */
export async function publishReport(settings: ActionSettings, issueNumber: number | undefined, outcome: Publishable, deps: PublishDeps): Promise<Record<string, string>> {
  const { env, log } = deps;
  const outputs: Record<string, string> = { 'comment-url': '', 'check-run-url': '', 'commit-comment-url': '' };
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo || settings.githubToken === '') return outputs;
  const client: GitHubClient = createGitHubClient({ token: settings.githubToken, apiUrl: env.GITHUB_API_URL, fetch: deps.fetch });
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  const summary = outcome.report.summary;
  if (issueNumber !== undefined && settings.comment !== 'never') {
    try {
      const report = runUrl ? withFooter(outcome.markdown, `[Workflow run](${runUrl}) · JSON report: artifact \`${settings.artifactName}\``) : outcome.markdown;
      // The users to cc come from the workflow's alert-comment-cc-users only, and only a regression is an alert.
      const cc = summary.regressed > 0 ? ccLine(settings.ccUsers) : '';
      const body = cc === '' ? report : `${report}\n\n${cc}`;
      const result = await upsertStickyComment(client, { owner, repo, issueNumber, marker: REPORT_MARKER, body, mode: settings.comment, hasChanges: summary.regressed + summary.improved + summary.error > 0 });
      outputs['comment-url'] = result.url ?? '';
      log(`benchbot: PR #${issueNumber} comment ${result.action}${result.url ? ` (${result.url})` : ''}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      core.warning(`could not write the PR comment: ${error.message}${error.status === 403 ? ' (the report job needs permissions: pull-requests: write)' : ''}`, { title: 'benchbot' });
    }
  }
  if (settings.checkName !== '' && outcome.headSha === undefined) {
    core.warning('no check run: the report job knows no head commit to put it on; give head as a full commit SHA (the artifact\'s own is not trusted)', { title: 'benchbot' });
  } else if (settings.checkName !== '' && outcome.headSha !== undefined) {
    try {
      const conclusion = conclusionFor(summary, settings.failOn);
      const check = await publishCheckRun(client, { owner, repo, headSha: outcome.headSha, name: settings.checkName, conclusion, title: countsLine(outcome.report), summary: outcome.markdown, detailsUrl: runUrl });
      outputs['check-run-url'] = check.url;
      log(`benchbot: check run "${settings.checkName}" ${conclusion}${check.url ? ` (${check.url})` : ''}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      core.warning(`could not write the check run: ${error.message}${error.status === 403 ? ' (the report job needs permissions: checks: write)' : ''}`, { title: 'benchbot' });
    }
  }
  if (settings.commentOnCommit && outcome.scan) {
    outputs['commit-comment-url'] = await commentOnCommit(client, settings, outcome, { owner, repo, runUrl, env, log });
  }
  if (outcome.recovery) {
    // The issues are filed by the app (its own `<slug>[bot]`, issue-authors), or by a workflow as github-actions[bot]:
    // those accounts only, never a person or another app (dependabot[bot]), since anyone who may label issues, and
    // any bot with issues: write, could file one with the label and the marker.
    const warn = (message: string) => core.warning(message, { title: 'benchbot' });
    const closed = await closeRecoveredRegressions(client, outcome.recovery, settings.threshold, { owner, repo, serverUrl: env.GITHUB_SERVER_URL, author: settings.issueAuthors }, warn);
    // Names come from the artifact: one line each, so they cannot start a workflow command.
    for (const c of closed) log(`benchbot: regression issue #${c.number} ${c.action}: ${escapeCommand(c.benchmark)} (${escapeCommand(c.metric)}) recovered`);
  }
  return outputs;
}


/**
 * commentOnCommit comments on the run's own commit (a SHA the workflow gave
 * the report job, never one from the artifact) when the recomputed scan
 * confirms regressions whose first bad run is that commit: the push (or the
 * night) that made them slower, as github-action-benchmark's
 * comment-on-alert does on a push. One comment per commit, updated by a
 * re-run. Returns its URL, or '' when there was nothing to say.
 */
async function commentOnCommit(client: GitHubClient, settings: ActionSettings, outcome: Publishable, where: { owner: string; repo: string; runUrl?: string; env: Record<string, string | undefined>; log: (line: string) => void }): Promise<string> {
  const sha = outcome.headSha;
  const scan = outcome.scan as ScanTexts;
  if (sha === undefined) {
    core.warning('comment-on-commit: the report job knows no commit to comment on; give head as a full commit SHA, or run it in the workflow of the pushed commit (GITHUB_SHA)', { title: 'benchbot' });
    return '';
  }
  const regressions = confirmedRegressions(scan.result).filter((f) => f.firstBad.sha === sha);
  if (regressions.length === 0) {
    where.log(`benchbot: no confirmed regression first showed at ${sha.slice(0, 12)}; no commit comment`);
    return '';
  }
  const branch = regressions[0].branch;
  const body = renderCommitAlert({ sha, branch, threshold: settings.threshold, regressions, series: regressions.length, repoUrl: repositoryUrl(where.env.GITHUB_REPOSITORY, where.env.GITHUB_SERVER_URL), runUrl: where.runUrl, cc: settings.ccUsers });
  try {
    const result = await upsertCommitComment(client, { owner: where.owner, repo: where.repo, sha, marker: COMMIT_ALERT_MARKER, body });
    where.log(`benchbot: commit ${sha.slice(0, 12)} comment ${result.action} (${result.url}): ${regressions.length} confirmed regression${regressions.length === 1 ? '' : 's'}`);
    return result.url;
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    core.warning(`could not comment on commit ${sha.slice(0, 12)}: ${error.message}${error.status === 403 ? ' (the report job needs permissions: contents: write)' : ''}`, { title: 'benchbot' });
    return '';
  }
}

/**
 * escapeCommand keeps a plain log line that carries text from a PR on one
 * line, so it cannot start a workflow command (GitHub's escaping for command
 * data, which @actions/core applies to the annotations themselves).
 */
export function escapeCommand(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
