import { closeRecoveredIssue, listRegressionIssues, type CloseRecoveredResult, type IssueAuthor } from '../github/regression-issue.ts';
import { GitHubError, type GitHubClient } from '../github/github-client.ts';
import { regressionMarker } from '../report/regression-issue.ts';
import { recoveredRegressions } from './nightly.ts';
import type { NightlyHistory } from './nightly-history.ts';

/** ClosedRegression is one open regression issue whose series recovered, and what closing it did. */
export interface ClosedRegression {
  number: number;
  benchmark: string;
  metric: string;
  action: CloseRecoveredResult['action'];
}

/**
 * closeRecoveredRegressions closes the open regression issues the nightly
 * job decides recovered (jobs/nightly.ts recoveredRegressions), each with
 * its numbers in a comment: the action's report job (which holds `issues:
 * write` and runs no repository code) and `benchbot nightly` with a token.
 * `author` is whose issues they are (IssueAuthor): a person's token files
 * them as that person, a GitHub App's as any bot. A GitHub API error is
 * passed to `warn` and ends nothing else: the report still stands.
 */
export async function closeRecoveredRegressions(
  client: GitHubClient, history: NightlyHistory, threshold: number,
  where: { owner: string; repo: string; serverUrl?: string; author: IssueAuthor }, warn: (message: string) => void,
): Promise<ClosedRegression[]> {
  let open;
  try {
    open = await listRegressionIssues(client, { owner: where.owner, repo: where.repo, state: 'open', botLogin: where.author });
  } catch (error) {
    if (!(error instanceof GitHubError)) throw error;
    warn(`could not read the regression issues: ${error.message}${error.status === 403 ? ' (the token needs issues: write; in a workflow, the job needs permissions: issues: write)' : ''}`);
    return [];
  }
  const closed: ClosedRegression[] = [];
  for (const { issue, benchmark, metric, comment } of recoveredRegressions(history, open, threshold, where)) {
    try {
      const result = await closeRecoveredIssue(client, { owner: where.owner, repo: where.repo, marker: regressionMarker(issue.marker.series, issue.marker.culprit), comment, botLogin: where.author });
      closed.push({ number: result.number ?? issue.number, benchmark, metric, action: result.action });
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      warn(`could not close recovered issue #${issue.number}: ${error.message}`);
    }
  }
  return closed;
}
