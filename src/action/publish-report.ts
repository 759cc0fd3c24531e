import * as core from '@actions/core';
import type { ComparisonReport } from '../compare/compare-runs.ts';
import { createGitHubClient, GitHubError, type GitHubClient } from '../github/github-client.ts';
import { upsertStickyComment } from '../github/sticky-comment.ts';
import { conclusionFor, publishCheckRun } from '../github/check-run.ts';
import type { NightlyHistory } from '../jobs/nightly-history.ts';
import { REPORT_MARKER } from '../report/markdown-report.ts';
import { headline } from '../report/report-order.ts';
import type { ActionSettings } from './action-inputs.ts';
import { closeRecoveredRegressions } from './close-recovered-regressions.ts';

/** Publishable is what the report job publishes: the recomputed report and, for a nightly, the history recovery is decided from. */
export interface Publishable {
  report: ComparisonReport;
  markdown: string;
  /** headSha is the commit the check run goes on: only a SHA the run was given, never one from the artifact. */
  headSha?: string;
  recovery?: NightlyHistory;
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
  const outputs: Record<string, string> = { 'comment-url': '', 'check-run-url': '' };
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  if (!owner || !repo || settings.githubToken === '') return outputs;
  const client: GitHubClient = createGitHubClient({ token: settings.githubToken, apiUrl: env.GITHUB_API_URL, fetch: deps.fetch });
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  const summary = outcome.report.summary;
  if (issueNumber !== undefined && settings.comment !== 'never') {
    try {
      const body = runUrl ? `${outcome.markdown}\n\n<sub>[Workflow run](${runUrl}) · JSON report: artifact \`${settings.artifactName}\`</sub>` : outcome.markdown;
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
      const check = await publishCheckRun(client, { owner, repo, headSha: outcome.headSha, name: settings.checkName, conclusion, title: headline(summary), summary: outcome.markdown, detailsUrl: runUrl });
      outputs['check-run-url'] = check.url;
      log(`benchbot: check run "${settings.checkName}" ${conclusion}${check.url ? ` (${check.url})` : ''}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      core.warning(`could not write the check run: ${error.message}${error.status === 403 ? ' (the report job needs permissions: checks: write)' : ''}`, { title: 'benchbot' });
    }
  }
  if (outcome.recovery) await closeRecoveredRegressions(client, outcome.recovery, settings.threshold, { owner, repo, serverUrl: env.GITHUB_SERVER_URL }, log);
  return outputs;
}

