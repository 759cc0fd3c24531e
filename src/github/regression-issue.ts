import type { GitHubClient } from './github-client.ts';
import { DEFAULT_BOT_LOGIN, withMarker } from './sticky-comment.ts';
import { truncateMarkdown } from './truncate-markdown.ts';
import type { BisectLog } from '../bisect/bisect-log.ts';
import { ccLine } from '../report/commit-alert.ts';
import { parseRegressionMarker, REGRESSION_LABEL, regressionMarker, renderRegressionIssue, type RegressionIssueInput } from '../report/regression-issue.ts';

/** ISSUE_BODY_LIMIT is GitHub's cap on an issue body (65536 characters; counted as UTF-8 bytes, the stricter reading). */
export const ISSUE_BODY_LIMIT = 65536;

/** Issue is the part of GitHub's issue object this module reads. */
export interface Issue {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  html_url: string;
  pull_request?: unknown;
  labels: (string | { name?: string })[];
  user?: { login: string; type: string } | null;
}

/**
 * IssueAuthor is whose regression issues are reconciled: a login (the app's
 * `<slug>[bot]`, or DEFAULT_BOT_LOGIN, the default), several (the report
 * job closes what the app or a workflow filed), or null for any account of
 * type `Bot` (a GitHub App; never a person), as for the sticky comment.
 */
export type IssueAuthor = string | readonly string[] | null;

/**
 * isOwnIssue tells whether the issue was filed by the account benchbot acts
 * as: anyone who may label issues can open one with the label and the
 * marker, and it must not be updated, reopened or closed as benchbot's own.
 */
export function isOwnIssue(issue: Pick<Issue, 'user'>, author: IssueAuthor = DEFAULT_BOT_LOGIN): boolean {
  const user = issue.user;
  if (user === null || user === undefined) return false;
  if (author === null) return user.type === 'Bot';
  const login = user.login.toLowerCase();
  return (typeof author === 'string' ? [author] : author).some((a) => a.toLowerCase() === login);
}

/**
 * RegressionIssueOptions: `marker` is the hidden first line of the body
 * (regressionMarker); `labels` always get REGRESSION_LABEL added, since the
 * search only looks at issues carrying it.
 */
export interface RegressionIssueOptions {
  owner: string;
  repo: string;
  marker: string;
  title: string;
  body: string;
  labels?: string[];
  assignees?: string[];
  /** botLogin is whose issues are benchbot's (IssueAuthor); default DEFAULT_BOT_LOGIN. */
  botLogin?: IssueAuthor;
  /** recurrenceComment is posted when a closed issue is reopened; default says the regression is back. */
  recurrenceComment?: string;
  /**
   * reopen (default true) reopens a closed issue with the same marker. A
   * filer that sees the same finding night after night (`benchbot
   * nightly`) says false: the issue was closed because the series
   * recovered, and a regression that recurs is a new change, another marker.
   */
  reopen?: boolean;
}

/** RegressionIssueAction says what upsertRegressionIssue did. */
export type RegressionIssueAction = 'created' | 'updated' | 'reopened' | 'unchanged' | 'left-closed';

/** RegressionIssueResult is the action with the issue's number and URL. */
export interface RegressionIssueResult {
  action: RegressionIssueAction;
  number: number;
  url: string;
}

function firstLine(text: string | null | undefined): string {
  const t = (text ?? '').replace(/\r\n/g, '\n');
  const end = t.indexOf('\n');
  return (end === -1 ? t : t.slice(0, end)).trim();
}

/**
 * listRegressionIssues returns every issue (open and closed, every page)
 * labelled REGRESSION_LABEL whose body starts with a regression marker,
 * with the marker decoded, filed by options.botLogin (isOwnIssue); pull
 * requests are left out (the issues endpoint lists them too).
 */
export async function listRegressionIssues(client: GitHubClient, options: { owner: string; repo: string; state?: 'open' | 'closed' | 'all'; botLogin?: IssueAuthor }): Promise<(Issue & { marker: { series: string; culprit: string } })[]> {
  const issues = await client.paginate<Issue>('/repos/{owner}/{repo}/issues', { owner: options.owner, repo: options.repo, state: options.state ?? 'all', labels: REGRESSION_LABEL });
  const out: (Issue & { marker: { series: string; culprit: string } })[] = [];
  for (const issue of issues) {
    if (issue.pull_request !== undefined || !isOwnIssue(issue, options.botLogin)) continue;
    const marker = parseRegressionMarker(issue.body);
    if (marker) out.push({ ...issue, marker });
  }
  return out;
}

/**
 * findRegressionIssue finds benchbot's own issue (isOwnIssue) for a marker: the oldest open one if
 * any (racing runs agree on it), else the most recently filed closed one,
 * which carries the latest history of that regression. Null when there is none.
 */
export async function findRegressionIssue(client: GitHubClient, options: { owner: string; repo: string; marker: string; botLogin?: IssueAuthor }): Promise<Issue | null> {
  const issues = await client.paginate<Issue>('/repos/{owner}/{repo}/issues', { owner: options.owner, repo: options.repo, state: 'all', labels: REGRESSION_LABEL });
  const matches = issues.filter((i) => i.pull_request === undefined && isOwnIssue(i, options.botLogin) && firstLine(i.body) === options.marker.trim());
  const open = matches.filter((i) => i.state === 'open').sort((a, b) => a.number - b.number);
  if (open.length > 0) return open[0];
  const closed = matches.sort((a, b) => b.number - a.number);
  return closed[0] ?? null;
}

/**
 * upsertRegressionIssue files one issue per regression, reconciled by its
 * hidden marker: it creates the issue when none carries the marker, updates
 * title or body only when they changed (a second detection with the same
 * numbers writes nothing), and reopens a closed one with a comment when the
 * regression recurs.
 */
export async function upsertRegressionIssue(client: GitHubClient, options: RegressionIssueOptions): Promise<RegressionIssueResult> {
  const { owner, repo } = options;
  const { text: body } = truncateMarkdown(withMarker(options.marker, options.body), ISSUE_BODY_LIMIT, (bytes, limit) => `\n\n---\n_benchbot truncated this issue: the report is ${bytes} bytes and GitHub allows ${limit}._\n`);
  const labels = [...new Set([REGRESSION_LABEL, ...(options.labels ?? [])])];
  const existing = await findRegressionIssue(client, options);
  if (existing === null) {
    const created = await client.request<Issue>('POST', '/repos/{owner}/{repo}/issues', {
      owner, repo, title: options.title, body, labels, ...(options.assignees && options.assignees.length > 0 ? { assignees: options.assignees } : {}),
    });
    return { action: 'created', number: created.number, url: created.html_url };
  }
  if (existing.state === 'closed' && options.reopen === false) return { action: 'left-closed', number: existing.number, url: existing.html_url };
  const patch: Record<string, unknown> = {};
  if (existing.title !== options.title) patch.title = options.title;
  if ((existing.body ?? '').replace(/\r\n/g, '\n') !== body) patch.body = body;
  const reopen = existing.state === 'closed';
  if (reopen) {
    patch.state = 'open';
    patch.state_reason = 'reopened';
  }
  if (Object.keys(patch).length === 0) return { action: 'unchanged', number: existing.number, url: existing.html_url };
  const updated = await client.request<Issue>('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: existing.number, ...patch });
  if (reopen) {
    await client.request('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', {
      owner, repo, issue_number: existing.number,
      body: options.recurrenceComment ?? 'The regression is back: a later nightly scan found it again, so benchbot reopened this issue and updated the numbers above.',
    });
  }
  return { action: reopen ? 'reopened' : 'updated', number: updated.number, url: updated.html_url };
}

/** CloseRecoveredResult says what closeRecoveredIssue did: `closed`, or nothing to close (`not-found`, `already-closed`). */
export interface CloseRecoveredResult {
  action: 'closed' | 'not-found' | 'already-closed';
  number?: number;
}

/**
 * closeRecoveredIssue comments with the numbers (renderRecoveryComment) and
 * closes the issue carrying the marker as completed. An issue that is
 * already closed is left alone, so running the nightly job twice comments once.
 */
export async function closeRecoveredIssue(client: GitHubClient, options: { owner: string; repo: string; marker: string; comment: string; botLogin?: IssueAuthor }): Promise<CloseRecoveredResult> {
  const { owner, repo } = options;
  const issue = await findRegressionIssue(client, options);
  if (issue === null) return { action: 'not-found' };
  if (issue.state !== 'open') return { action: 'already-closed', number: issue.number };
  await client.request('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, body: options.comment });
  await client.request('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: issue.number, state: 'closed', state_reason: 'completed' });
  return { action: 'closed', number: issue.number };
}

/** FileRegressionOptions: the issue's input (renderRegressionIssue) and whose issues are reconciled, with the labels and assignees a new one gets. */
export interface FileRegressionOptions extends Omit<RegressionIssueInput, 'bisect'> {
  bisect?: BisectLog;
  labels?: string[];
  assignees?: string[];
  /** cc are validated GitHub logins mentioned at the end of the body (ccLine); never text from a pull request. */
  cc?: readonly string[];
  botLogin: IssueAuthor;
  /** reopen: as upsertRegressionIssue's (default true). */
  reopen?: boolean;
}

/**
 * fileRegressionIssue files or updates the issue of a confirmed regression
 * (the app after a bisect run, `benchbot nightly` with a token): keyed by
 * the culprit when bisected, else by the nightly range. An open issue filed
 * for the range before the bisection is re-keyed to the culprit in place,
 * so a regression never gets two issues; upsertRegressionIssue then
 * reconciles. Returns what it did, with the marker.
 */
export async function fileRegressionIssue(client: GitHubClient, options: FileRegressionOptions): Promise<RegressionIssueResult & { marker: string }> {
  const { owner, repo, finding, botLogin } = options;
  const rendered = renderRegressionIssue(options);
  const cc = ccLine(options.cc ?? []);
  const issue = cc === '' ? rendered : { ...rendered, body: `${rendered.body}\n\n${cc}` };
  const rangeMarker = regressionMarker(finding.series, `${finding.lastGood.sha}..${finding.firstBad.sha}`);
  if (issue.marker !== rangeMarker && (await findRegressionIssue(client, { owner, repo, marker: issue.marker, botLogin })) === null) {
    const rangeIssue = await findRegressionIssue(client, { owner, repo, marker: rangeMarker, botLogin });
    if (rangeIssue !== null && rangeIssue.state === 'open') {
      const labels = [...new Set([...rangeIssue.labels.map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''), REGRESSION_LABEL, ...(options.labels ?? [])])];
      await client.request('PATCH', '/repos/{owner}/{repo}/issues/{issue_number}', { owner, repo, issue_number: rangeIssue.number, title: issue.title, body: withMarker(issue.marker, issue.body), labels });
    }
  }
  const result = await upsertRegressionIssue(client, { owner, repo, botLogin, marker: issue.marker, title: issue.title, body: issue.body, labels: options.labels, assignees: options.assignees, reopen: options.reopen });
  return { ...result, marker: issue.marker };
}
