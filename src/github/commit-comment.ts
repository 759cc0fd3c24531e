import type { GitHubClient } from './github-client.ts';
import { COMMENT_BODY_LIMIT, DEFAULT_BOT_LOGIN, isStickyComment, withMarker, type IssueComment } from './sticky-comment.ts';
import { truncateMarkdown } from './truncate-markdown.ts';

/** CommitCommentResult is what upsertCommitComment did, with the comment's id and address. */
export interface CommitCommentResult {
  action: 'created' | 'updated' | 'unchanged';
  id: number;
  url: string;
}

/**
 * upsertCommitComment keeps one bot comment per marker on a commit, as
 * upsertStickyComment does on a pull request: it lists the commit's
 * comments, updates the oldest one that is the bot's (`botLogin`, see
 * StickyCommentOptions) and starts with the marker when its body differs,
 * and creates it otherwise. A re-run of the same report so changes nothing
 * and mentions nobody twice.
 */
export async function upsertCommitComment(client: GitHubClient, options: { owner: string; repo: string; sha: string; marker: string; body: string; botLogin?: string | null }): Promise<CommitCommentResult> {
  const { owner, repo, sha } = options;
  const { text: body } = truncateMarkdown(withMarker(options.marker, options.body), COMMENT_BODY_LIMIT, (bytes, limit) => `\n\n---\n_benchbot truncated this comment: the report is ${bytes} bytes and GitHub allows ${limit}. The job summary has the full report._\n`);
  const comments = await client.paginate<IssueComment>('/repos/{owner}/{repo}/commits/{commit_sha}/comments', { owner, repo, commit_sha: sha });
  const botLogin = options.botLogin === undefined ? DEFAULT_BOT_LOGIN : options.botLogin;
  const kept = comments.filter((c) => isStickyComment(c, options.marker, botLogin)).sort((a, b) => a.id - b.id)[0];
  if (kept === undefined) {
    const created = await client.request<IssueComment>('POST', '/repos/{owner}/{repo}/commits/{commit_sha}/comments', { owner, repo, commit_sha: sha, body });
    return { action: 'created', id: created.id, url: created.html_url };
  }
  if ((kept.body ?? '').replace(/\r\n/g, '\n') === body) return { action: 'unchanged', id: kept.id, url: kept.html_url };
  const updated = await client.request<IssueComment>('PATCH', '/repos/{owner}/{repo}/comments/{comment_id}', { owner, repo, comment_id: kept.id, body });
  return { action: 'updated', id: kept.id, url: updated.html_url };
}
