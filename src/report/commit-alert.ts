import type { ScanResult } from '../scan/scan-history.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import { inertCode } from './inert-markdown.ts';
import { renderScanMarkdown } from './scan-report.ts';

/** COMMIT_ALERT_MARKER starts benchbot's comment on a commit that regressed; a re-run finds and updates it instead of adding another. */
export const COMMIT_ALERT_MARKER = '<!-- benchbot:commit-alert -->';

/**
 * ccLine mentions the users an alert is for, `cc @octocat @hubot`, or is
 * empty. The logins must already be validated GitHub logins (the workflow's
 * `alert-comment-cc-users`, the app's `issues.cc`): text from a pull request
 * is never mentioned, it goes through inertText, which breaks every `@`.
 */
export function ccLine(logins: readonly string[]): string {
  return logins.length === 0 ? '' : `cc ${logins.map((l) => `@${l}`).join(' ')}`;
}

/** CommitAlertInput is what the comment on a regressed commit says. */
export interface CommitAlertInput {
  /** sha is the commit commented on, the run's own (never one from the artifact). */
  sha: string;
  branch: string;
  threshold: number;
  /** regressions are the scan's confirmed regressions whose first bad run is `sha`. */
  regressions: ScanFinding[];
  /** series is how many series the scan read. */
  series: number;
  repoUrl?: string;
  runUrl?: string;
  cc: readonly string[];
}

/**
 * renderCommitAlert is the comment on a commit of the default branch that
 * made benchmarks slower: a headline, the scan's table of those
 * regressions (each confirmed by its interleaved A/B against the run
 * before), how to bisect or acknowledge them, the workflow run, and the cc
 * line. github-action-benchmark's `comment-on-alert` comments on the pushed
 * commit the same way; benchbot says it only for confirmed regressions.
 */
export function renderCommitAlert(input: CommitAlertInput): string {
  const n = input.regressions.length;
  const scan: ScanResult = { findings: input.regressions, awaiting: [], refuted: [], machineChanges: [], tested: n, warnings: [] };
  const lines = [
    `**benchbot: this commit made ${n} benchmark${n === 1 ? '' : 's'} slower** on ${inertCode(input.branch)}, confirmed by an interleaved A/B against the run before it.`,
    '',
    renderScanMarkdown(scan, { series: input.series, threshold: input.threshold, branch: input.branch, repoUrl: input.repoUrl }),
  ];
  if (input.runUrl) lines.push('', `<sub>[Workflow run](${input.runUrl})</sub>`);
  const cc = ccLine(input.cc);
  if (cc !== '') lines.push('', cc);
  return lines.join('\n');
}
