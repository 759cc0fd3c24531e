import type { GitHubClient } from './github-client.ts';
import { GitHubError } from './github-client.ts';
import { truncateMarkdown } from './truncate-markdown.ts';

/** COMMENT_BODY_LIMIT is GitHub's cap on a comment body (65536 characters; counted here as UTF-8 bytes, the stricter reading). */
export const COMMENT_BODY_LIMIT = 65536;

/** DEFAULT_BOT_LOGIN is the author of comments made with a workflow's GITHUB_TOKEN. */
export const DEFAULT_BOT_LOGIN = 'github-actions[bot]';

/**
 * StickyMode: `always` creates or updates; `on-change` does not create a new
 * comment when the report has no changes, but still updates an existing one
 * so that it never shows stale results.
 */
export type StickyMode = 'always' | 'on-change';

/** StickyCommentOptions configure upsertStickyComment. */
export interface StickyCommentOptions {
  owner: string;
  repo: string;
  issueNumber: number;
  /** marker is a hidden line such as `<!-- benchbot:report -->`; it becomes the body's first line. */
  marker: string;
  body: string;
  /**
   * botLogin is the author whose comments may be reconciled. Default
   * DEFAULT_BOT_LOGIN; pass the app's `<slug>[bot]` or the token user's login
   * otherwise, or null to accept any author whose type is `Bot` when the login
   * is unknown.
   */
  botLogin?: string | null;
  /** mode defaults to `always`. */
  mode?: StickyMode;
  /** hasChanges matters only for `on-change`; default true. */
  hasChanges?: boolean;
}

/**
 * StickyAction says what happened to the kept comment. `deleted-duplicates`
 * means its body was already current but later duplicates were removed; when
 * the kept comment was also written, the action is `created`/`updated` and
 * `deletedIds` still lists the duplicates.
 */
export type StickyAction = 'created' | 'updated' | 'unchanged' | 'skipped' | 'deleted-duplicates';

/** StickyCommentResult is what upsertStickyComment did. */
export interface StickyCommentResult {
  action: StickyAction;
  id?: number;
  url?: string;
  deletedIds: number[];
  /** truncated is true when the body exceeded COMMENT_BODY_LIMIT and was cut with a note. */
  truncated: boolean;
}

/** IssueComment is the part of GitHub's issue-comment object this module reads. */
export interface IssueComment {
  id: number;
  body?: string | null;
  html_url: string;
  user: { login: string; type: string } | null;
  created_at: string;
}

/**
 * withMarker returns the body as it is stored: the marker alone on the first
 * line, then the body. A body that already starts with the marker line is
 * kept. The result is not yet cut to COMMENT_BODY_LIMIT.
 */
export function withMarker(marker: string, body: string): string {
  const normalized = body.replace(/\r\n/g, '\n');
  return startsWithMarker(normalized, marker) ? normalized : `${marker.trim()}\n${normalized}`;
}

/**
 * isStickyComment tells whether a comment is the bot's own for this marker:
 * the author must match (see StickyCommentOptions.botLogin) and the body must
 * start with the marker on a line of its own. Only the start counts: a
 * marker further down (a human's reply quoting the report, or text from a
 * benchmark's output, which the renderers escape anyway) never makes a
 * comment ours, even if a bot account posted it.
 */
export function isStickyComment(comment: IssueComment, marker: string, botLogin: string | null = DEFAULT_BOT_LOGIN): boolean {
  const user = comment.user;
  if (user === null) return false;
  if (botLogin === null ? user.type !== 'Bot' : user.login.toLowerCase() !== botLogin.toLowerCase()) return false;
  return startsWithMarker((comment.body ?? '').replace(/\r\n/g, '\n'), marker);
}

/** findStickyComments lists the bot's comments carrying the marker, oldest first. */
export async function findStickyComments(client: GitHubClient, options: Pick<StickyCommentOptions, 'owner' | 'repo' | 'issueNumber' | 'marker' | 'botLogin'>): Promise<IssueComment[]> {
  const comments = await client.paginate<IssueComment>('/repos/{owner}/{repo}/issues/{issue_number}/comments', {
    owner: options.owner,
    repo: options.repo,
    issue_number: options.issueNumber,
  });
  const botLogin = options.botLogin === undefined ? DEFAULT_BOT_LOGIN : options.botLogin;
  // GitHub lists by ascending id; sort anyway, since "oldest" decides which comment survives.
  return comments.filter((c) => isStickyComment(c, options.marker, botLogin)).sort((a, b) => a.id - b.id);
}

/**
 * upsertStickyComment keeps exactly one bot comment per marker on an issue or
 * pull request, probot style: reconcile instead of append. It reads every
 * page of comments, keeps the OLDEST match (its place in the timeline and its
 * links stay stable, and racing runs agree on which one survives), writes the
 * body only when it differs (ignoring CRLF vs LF), and deletes later matches,
 * which exist only when two runs raced or a retried POST had in fact landed.
 */
export async function upsertStickyComment(client: GitHubClient, options: StickyCommentOptions): Promise<StickyCommentResult> {
  const { owner, repo, issueNumber } = options;
  const { text: body, truncated } = truncateMarkdown(withMarker(options.marker, options.body), COMMENT_BODY_LIMIT, (bytes, limit) => `\n\n---\n_benchbot truncated this comment: the report is ${bytes} bytes and GitHub allows ${limit}. The job summary has the full report._\n`);
  const matches = await findStickyComments(client, options);
  const [kept, ...duplicates] = matches;

  if (kept === undefined) {
    if ((options.mode ?? 'always') === 'on-change' && options.hasChanges === false) return { action: 'skipped', deletedIds: [], truncated };
    const created = await client.request<IssueComment>('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issueNumber, body });
    return { action: 'created', id: created.id, url: created.html_url, deletedIds: [], truncated };
  }

  let action: StickyAction = 'unchanged';
  let url = kept.html_url;
  if ((kept.body ?? '').replace(/\r\n/g, '\n') !== body) {
    const updated = await client.request<IssueComment>('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: kept.id, body });
    action = 'updated';
    url = updated.html_url;
  }

  const deletedIds: number[] = [];
  for (const duplicate of duplicates) {
    try {
      await client.request('DELETE', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { owner, repo, comment_id: duplicate.id });
    } catch (error) {
      // A concurrent run may have deleted it first; that is the outcome we wanted.
      if (!(error instanceof GitHubError && error.status === 404)) throw error;
    }
    deletedIds.push(duplicate.id);
  }
  if (action === 'unchanged' && deletedIds.length > 0) action = 'deleted-duplicates';
  return { action, id: kept.id, url, deletedIds, truncated };
}

/** startsWithMarker: the text's first line is exactly the marker (trailing spaces allowed). */
function startsWithMarker(text: string, marker: string): boolean {
  const end = text.indexOf('\n');
  return (end === -1 ? text : text.slice(0, end)).trimEnd() === marker.trim();
}
