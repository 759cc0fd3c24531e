import { warning } from '@actions/core';
import { closeRecoveredIssue, listRegressionIssues } from '../github/regression-issue.ts';
import { GitHubError, type GitHubClient } from '../github/github-client.ts';
import { regressionMarker } from '../report/regression-issue.ts';
import { recoveredRegressions } from '../jobs/nightly.ts';
import type { NightlyHistory } from '../jobs/nightly-history.ts';

/**
 * closeRecoveredRegressions closes the open regression issues the nightly
 * job decides recovered (jobs/nightly.ts recoveredRegressions), each with
 * its numbers in a comment. It runs in the report job, which holds
 * `issues: write` and runs no repository code.
 */
export async function closeRecoveredRegressions(client: GitHubClient, history: NightlyHistory, threshold: number, where: { owner: string; repo: string; serverUrl?: string }, log: (line: string) => void): Promise<void> {
  let open;
  try {
    // The issues are filed by the app (its own `<slug>[bot]`), or by a workflow as github-actions[bot]: any GitHub App
    // account, never a person, since anyone who may label issues could file one with the label and the marker.
    open = await listRegressionIssues(client, { owner: where.owner, repo: where.repo, state: 'open', botLogin: null });
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    warning(`could not read the regression issues: ${error.message}${error.status === 403 ? ' (the report job needs permissions: issues: write)' : ''}`, { title: 'benchbot' });
    return;
  }
  for (const { issue, benchmark, metric, comment } of recoveredRegressions(history, open, threshold, where)) {
    try {
      const closed = await closeRecoveredIssue(client, { owner: where.owner, repo: where.repo, marker: regressionMarker(issue.marker.series, issue.marker.culprit), comment, botLogin: null });
      // Names come from the artifact: one line each, so they cannot start a workflow command.
      log(`benchbot: regression issue #${closed.number ?? issue.number} ${closed.action}: ${escapeCommand(benchmark)} (${escapeCommand(metric)}) recovered`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      warning(`could not close recovered issue #${issue.number}: ${error.message}`, { title: 'benchbot' });
    }
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
