/**
 * Builders for GitHub-shaped response objects. Each returns what the OpenAPI
 * description's response schema requires (the stand-in validates its own
 * responses), with URLs pointing at the stand-in for API links and at
 * github.com for HTML links, as GitHub Enterprise would do with its hosts.
 */

/** Account is a user or bot as the stand-in stores it. */
export interface Account {
  login: string;
  type: 'User' | 'Bot' | 'Organization';
  id?: number;
}

/** HTML_URL is the web host used in html_url fields. */
export const HTML_URL = 'https://github.com';

/** accountId derives a stable id from a login so that the same login always has the same id. */
export function accountId(account: Account): number {
  if (account.id !== undefined) return account.id;
  let hash = 0;
  for (const ch of account.login) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return 1000 + (hash % 9_000_000);
}

/** nodeId makes an opaque GraphQL-style node id. */
export function nodeId(kind: string, id: number): string {
  return Buffer.from(`${kind}:${id}`).toString('base64url');
}

/** simpleUser is GitHub's `simple-user` schema. */
export function simpleUser(api: string, account: Account): Record<string, unknown> {
  const id = accountId(account);
  const url = `${api}/users/${encodeURIComponent(account.login)}`;
  return {
    login: account.login,
    id,
    node_id: nodeId(account.type, id),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url,
    html_url: `${HTML_URL}/${account.login.replace(/\[bot\]$/, '')}`,
    followers_url: `${url}/followers`,
    following_url: `${url}/following{/other_user}`,
    gists_url: `${url}/gists{/gist_id}`,
    starred_url: `${url}/starred{/owner}{/repo}`,
    subscriptions_url: `${url}/subscriptions`,
    organizations_url: `${url}/orgs`,
    repos_url: `${url}/repos`,
    events_url: `${url}/events{/privacy}`,
    received_events_url: `${url}/received_events`,
    type: account.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

/** publicUser is GitHub's `public-user` schema, what `GET /user` shows without private scopes. */
export function publicUser(api: string, account: Account, createdAt: string): Record<string, unknown> {
  return {
    ...simpleUser(api, account),
    name: null,
    company: null,
    blog: null,
    location: null,
    email: null,
    hireable: null,
    bio: null,
    public_repos: 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: createdAt,
    updated_at: createdAt,
  };
}

/** IssueCommentRecord is an issue or pull request comment in the stand-in's state. */
export interface IssueCommentRecord {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  user: Account;
  createdAt: string;
  updatedAt: string;
}

/** issueComment is GitHub's `issue-comment` schema. */
export function issueComment(api: string, c: IssueCommentRecord, reactions: readonly ReactionRecord[]): Record<string, unknown> {
  const repoApi = `${api}/repos/${c.owner}/${c.repo}`;
  const url = `${repoApi}/issues/comments/${c.id}`;
  const mine = reactions.filter((r) => r.commentId === c.id);
  const count = (content: string) => mine.filter((r) => r.content === content).length;
  return {
    id: c.id,
    node_id: nodeId('IssueComment', c.id),
    url,
    html_url: `${HTML_URL}/${c.owner}/${c.repo}/issues/${c.issueNumber}#issuecomment-${c.id}`,
    body: c.body,
    user: simpleUser(api, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    issue_url: `${repoApi}/issues/${c.issueNumber}`,
    author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
    performed_via_github_app: null,
    reactions: {
      url: `${url}/reactions`,
      total_count: mine.length,
      '+1': count('+1'),
      '-1': count('-1'),
      laugh: count('laugh'),
      confused: count('confused'),
      heart: count('heart'),
      hooray: count('hooray'),
      eyes: count('eyes'),
      rocket: count('rocket'),
    },
  };
}

/** ReactionRecord is a reaction on an issue comment. */
export interface ReactionRecord {
  id: number;
  commentId: number;
  content: string;
  user: Account;
  createdAt: string;
}

/** reaction is GitHub's `reaction` schema. */
export function reaction(api: string, r: ReactionRecord): Record<string, unknown> {
  return { id: r.id, node_id: nodeId('Reaction', r.id), user: simpleUser(api, r.user), content: r.content, created_at: r.createdAt };
}

/** CheckRunRecord is a check run in the stand-in's state. */
export interface CheckRunRecord {
  id: number;
  owner: string;
  repo: string;
  headSha: string;
  name: string;
  status: string;
  conclusion: string | null;
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  /** history keeps every create/update body in order, as sent. */
  history: unknown[];
}

/** checkRun is GitHub's `check-run` schema. */
export function checkRun(api: string, r: CheckRunRecord): Record<string, unknown> {
  const url = `${api}/repos/${r.owner}/${r.repo}/check-runs/${r.id}`;
  return {
    id: r.id,
    head_sha: r.headSha,
    node_id: nodeId('CheckRun', r.id),
    external_id: r.externalId ?? '',
    url,
    html_url: `${HTML_URL}/${r.owner}/${r.repo}/runs/${r.id}`,
    details_url: r.detailsUrl ?? `${HTML_URL}/${r.owner}/${r.repo}/runs/${r.id}`,
    status: r.status,
    conclusion: r.conclusion,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    output: { ...r.output, annotations_count: 0, annotations_url: `${url}/annotations` },
    name: r.name,
    check_suite: { id: r.id + 500_000 },
    app: null,
    pull_requests: [],
  };
}

/** ArtifactRecord is a workflow artifact in the stand-in's state; `data` is the zip served on download. */
export interface ArtifactRecord {
  id: number;
  owner: string;
  repo: string;
  runId: number;
  name: string;
  data: Uint8Array;
  expired?: boolean;
  createdAt?: string;
}

/** artifact is GitHub's `artifact` schema. */
export function artifact(api: string, a: ArtifactRecord): Record<string, unknown> {
  const url = `${api}/repos/${a.owner}/${a.repo}/actions/artifacts/${a.id}`;
  const created = a.createdAt ?? '2025-01-01T00:00:00Z';
  return {
    id: a.id,
    node_id: nodeId('Artifact', a.id),
    name: a.name,
    size_in_bytes: a.data.length,
    url,
    archive_download_url: `${url}/zip`,
    expired: a.expired ?? false,
    created_at: created,
    expires_at: new Date(Date.parse(created) + 90 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    updated_at: created,
    workflow_run: { id: a.runId, repository_id: 1, head_repository_id: 1, head_branch: 'main', head_sha: '0'.repeat(40) },
  };
}

/** Permission is a repository role as `GET .../collaborators/{username}/permission` reports it. */
export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

/** collaboratorPermission is GitHub's `repository-collaborator-permission` schema. */
export function collaboratorPermission(api: string, login: string, role: Permission): Record<string, unknown> {
  // The legacy `permission` field folds maintain into write and triage into read.
  const legacy = role === 'maintain' ? 'write' : role === 'triage' ? 'read' : role;
  const rank = ['none', 'read', 'triage', 'write', 'maintain', 'admin'].indexOf(role);
  return {
    permission: legacy,
    role_name: role,
    user: {
      ...simpleUser(api, { login, type: 'User' }),
      permissions: { pull: rank >= 1, triage: rank >= 2, push: rank >= 3, maintain: rank >= 4, admin: rank >= 5 },
      role_name: role,
    },
  };
}
