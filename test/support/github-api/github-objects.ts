import { createHash } from 'node:crypto';

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

/** CommitCommentRecord is a comment on a commit (not on a line of it). */
export interface CommitCommentRecord {
  id: number;
  owner: string;
  repo: string;
  commitId: string;
  body: string;
  user: Account;
  createdAt: string;
  updatedAt: string;
}

/** commitComment is GitHub's `commit-comment` schema. */
export function commitComment(api: string, c: CommitCommentRecord): Record<string, unknown> {
  return {
    id: c.id,
    node_id: nodeId('CommitComment', c.id),
    url: `${api}/repos/${c.owner}/${c.repo}/comments/${c.id}`,
    html_url: `${HTML_URL}/${c.owner}/${c.repo}/commit/${c.commitId}#commitcomment-${c.id}`,
    body: c.body,
    path: null,
    position: null,
    line: null,
    commit_id: c.commitId,
    user: simpleUser(api, c.user),
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    author_association: c.user.type === 'Bot' ? 'NONE' : 'MEMBER',
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
  /** listedSize is the size_in_bytes the listing claims (an uploader that lies); default data.length. */
  listedSize?: number;
  /** servedBytes pads the download with zeros to this many bytes, streamed without a Content-Length (a body larger than listed). */
  servedBytes?: number;
}

/** artifact is GitHub's `artifact` schema. */
export function artifact(api: string, a: ArtifactRecord): Record<string, unknown> {
  const url = `${api}/repos/${a.owner}/${a.repo}/actions/artifacts/${a.id}`;
  const created = a.createdAt ?? '2025-01-01T00:00:00Z';
  return {
    id: a.id,
    node_id: nodeId('Artifact', a.id),
    name: a.name,
    size_in_bytes: a.listedSize ?? a.data.length,
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

/** IssueRecord is an issue in the stand-in's state; `labels` are names (their objects are derived). */
export interface IssueRecord {
  id: number;
  owner: string;
  repo: string;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'reopened' | 'not_planned' | 'duplicate' | null;
  labels: string[];
  assignees: string[];
  user: Account;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** history keeps every create/update body in order, as sent. */
  history: unknown[];
}

/** label is GitHub's `label` schema for a label name; the id and color are derived from the name. */
export function label(api: string, owner: string, repo: string, name: string): Record<string, unknown> {
  const id = accountId({ login: `label:${name}`, type: 'User' });
  return { id, node_id: nodeId('Label', id), url: `${api}/repos/${owner}/${repo}/labels/${encodeURIComponent(name)}`, name, description: null, color: 'ededed', default: false };
}

/** issue is GitHub's `issue` schema; `comments` is the number of comments on it. */
export function issue(api: string, i: IssueRecord, comments: number): Record<string, unknown> {
  const repoApi = `${api}/repos/${i.owner}/${i.repo}`;
  const url = `${repoApi}/issues/${i.number}`;
  const assignees = i.assignees.map((login) => simpleUser(api, { login, type: 'User' }));
  return {
    id: i.id,
    node_id: nodeId('Issue', i.id),
    url,
    repository_url: repoApi,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${HTML_URL}/${i.owner}/${i.repo}/issues/${i.number}`,
    number: i.number,
    state: i.state,
    state_reason: i.stateReason,
    title: i.title,
    body: i.body,
    user: simpleUser(api, i.user),
    labels: i.labels.map((name) => label(api, i.owner, i.repo, name)),
    assignee: assignees[0] ?? null,
    assignees,
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments,
    closed_at: i.closedAt,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
    author_association: i.user.type === 'Bot' ? 'NONE' : 'MEMBER',
  };
}

/** repository is GitHub's `repository` schema (also what a pull request's head and base carry). */
export function repository(api: string, owner: Account, name: string, options: { fork?: boolean; defaultBranch?: string; private?: boolean; pushedAt?: string } = {}): Record<string, unknown> {
  const full = `${owner.login}/${name}`;
  const url = `${api}/repos/${full}`;
  const id = accountId({ login: full, type: 'User' });
  const templated: Record<string, string> = {
    archive_url: `${url}/{archive_format}{/ref}`, assignees_url: `${url}/assignees{/user}`, blobs_url: `${url}/git/blobs{/sha}`,
    branches_url: `${url}/branches{/branch}`, collaborators_url: `${url}/collaborators{/collaborator}`, comments_url: `${url}/comments{/number}`,
    commits_url: `${url}/commits{/sha}`, compare_url: `${url}/compare/{base}...{head}`, contents_url: `${url}/contents/{+path}`,
    git_commits_url: `${url}/git/commits{/sha}`, git_refs_url: `${url}/git/refs{/sha}`, git_tags_url: `${url}/git/tags{/sha}`,
    issue_comment_url: `${url}/issues/comments{/number}`, issue_events_url: `${url}/issues/events{/number}`, issues_url: `${url}/issues{/number}`,
    keys_url: `${url}/keys{/key_id}`, labels_url: `${url}/labels{/name}`, milestones_url: `${url}/milestones{/number}`,
    notifications_url: `${url}/notifications{?since,all,participating}`, pulls_url: `${url}/pulls{/number}`, releases_url: `${url}/releases{/id}`,
    statuses_url: `${url}/statuses/{sha}`, trees_url: `${url}/git/trees{/sha}`,
  };
  const plain = ['contributors', 'deployments', 'downloads', 'events', 'forks', 'hooks', 'languages', 'merges', 'stargazers', 'subscribers', 'subscription', 'tags', 'teams'];
  return {
    id, node_id: nodeId('Repository', id), name, full_name: full, owner: simpleUser(api, owner), private: options.private ?? false,
    html_url: `${HTML_URL}/${full}`, description: null, fork: options.fork ?? false, url, ...templated,
    ...Object.fromEntries(plain.map((p) => [`${p}_url`, `${url}/${p}`])),
    git_url: `git://github.com/${full}.git`, ssh_url: `git@github.com:${full}.git`, clone_url: `${HTML_URL}/${full}.git`, svn_url: `${HTML_URL}/${full}`,
    mirror_url: null, homepage: null, language: null, forks: 0, forks_count: 0, stargazers_count: 0, watchers_count: 0, watchers: 0, size: 0,
    default_branch: options.defaultBranch ?? 'main', open_issues: 0, open_issues_count: 0, has_issues: true, has_projects: false, has_wiki: false,
    has_pages: false, has_downloads: true, archived: false, disabled: false, license: null,
    pushed_at: options.pushedAt ?? '2025-01-01T00:00:00Z', created_at: '2020-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z',
  };
}

/** PullRecord is a pull request in the stand-in's state; a fork's head lives in `headOwner/headRepo`. */
export interface PullRecord {
  owner: string;
  repo: string;
  number: number;
  title: string;
  state: 'open' | 'closed';
  user: Account;
  headSha: string;
  headRef: string;
  /** headOwner differs from owner for a pull request from a fork. */
  headOwner: string;
  headRepo: string;
  baseSha: string;
  baseRef: string;
  createdAt?: string;
  updatedAt?: string;
  /** headPushedAt is when the head repository was last pushed to, by GitHub's clock: its `pushed_at` (seedPush sets it). */
  headPushedAt?: string;
}

/** pullRequest is GitHub's `pull-request` schema. */
export function pullRequest(api: string, p: PullRecord): Record<string, unknown> {
  const repoApi = `${api}/repos/${p.owner}/${p.repo}`;
  const html = `${HTML_URL}/${p.owner}/${p.repo}/pull/${p.number}`;
  const id = 2_000_000 + accountId({ login: `${p.owner}/${p.repo}#${p.number}`, type: 'User' });
  const link = (href: string) => ({ href });
  const fork = p.headOwner.toLowerCase() !== p.owner.toLowerCase() || p.headRepo.toLowerCase() !== p.repo.toLowerCase();
  const headOwner: Account = { login: p.headOwner, type: 'User' };
  const baseOwner: Account = { login: p.owner, type: 'Organization' };
  const at = p.createdAt ?? '2025-01-01T00:00:00Z';
  return {
    url: `${repoApi}/pulls/${p.number}`, id, node_id: nodeId('PullRequest', id), html_url: html, diff_url: `${html}.diff`, patch_url: `${html}.patch`,
    issue_url: `${repoApi}/issues/${p.number}`, commits_url: `${repoApi}/pulls/${p.number}/commits`, review_comments_url: `${repoApi}/pulls/${p.number}/comments`,
    review_comment_url: `${repoApi}/pulls/comments{/number}`, comments_url: `${repoApi}/issues/${p.number}/comments`, statuses_url: `${repoApi}/statuses/${p.headSha}`,
    number: p.number, state: p.state, locked: false, title: p.title, user: simpleUser(api, p.user), body: null, labels: [], milestone: null,
    created_at: at, updated_at: p.updatedAt ?? at, closed_at: p.state === 'closed' ? (p.updatedAt ?? at) : null, merged_at: null, merge_commit_sha: null,
    assignee: null, assignees: [], requested_reviewers: [], requested_teams: [],
    head: { label: `${p.headOwner}:${p.headRef}`, ref: p.headRef, sha: p.headSha, user: simpleUser(api, headOwner), repo: repository(api, headOwner, p.headRepo, { fork, pushedAt: p.headPushedAt }) },
    base: { label: `${p.owner}:${p.baseRef}`, ref: p.baseRef, sha: p.baseSha, user: simpleUser(api, baseOwner), repo: repository(api, baseOwner, p.repo, { pushedAt: fork ? undefined : p.headPushedAt }) },
    _links: {
      self: link(`${repoApi}/pulls/${p.number}`), html: link(html), issue: link(`${repoApi}/issues/${p.number}`), comments: link(`${repoApi}/issues/${p.number}/comments`),
      review_comments: link(`${repoApi}/pulls/${p.number}/comments`), review_comment: link(`${repoApi}/pulls/comments{/number}`),
      commits: link(`${repoApi}/pulls/${p.number}/commits`), statuses: link(`${repoApi}/statuses/${p.headSha}`),
    },
    author_association: fork ? 'CONTRIBUTOR' : 'MEMBER', auto_merge: null, draft: false, merged: false, mergeable: true, rebaseable: true,
    mergeable_state: 'clean', merged_by: null, comments: 0, review_comments: 0, maintainer_can_modify: false, commits: 1, additions: 1, deletions: 0, changed_files: 1,
  };
}

/** FileRecord is a file in a repository at a ref (a branch name or SHA), for `GET .../contents/{path}`. */
export interface FileRecord {
  owner: string;
  repo: string;
  path: string;
  /** ref is where the file exists; `GET` without `ref` reads the default branch, `main`. */
  ref: string;
  content: string;
}

/** contentFile is GitHub's `content-file` schema, content base64-encoded in 60-character lines as GitHub sends it. */
export function contentFile(api: string, f: FileRecord): Record<string, unknown> {
  const bytes = Buffer.from(f.content, 'utf8');
  const sha = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
  const url = `${api}/repos/${f.owner}/${f.repo}/contents/${f.path}?ref=${encodeURIComponent(f.ref)}`;
  const html = `${HTML_URL}/${f.owner}/${f.repo}/blob/${f.ref}/${f.path}`;
  const git = `${api}/repos/${f.owner}/${f.repo}/git/blobs/${sha}`;
  return {
    type: 'file', encoding: 'base64', size: bytes.length, name: f.path.split('/').pop(), path: f.path,
    content: (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n', sha, url, git_url: git, html_url: html,
    download_url: `https://raw.githubusercontent.com/${f.owner}/${f.repo}/${f.ref}/${f.path}`, _links: { self: url, git, html },
  };
}

/** AppRecord is the GitHub App the stand-in knows: JWTs must be RS256-signed by `publicKey`'s private half with `iss` = id. */
export interface AppRecord {
  id: number;
  slug: string;
  owner: Account;
  /** publicKey is PEM (SPKI). */
  publicKey: string;
  /** installations the app may get tokens for. */
  installations: number[];
}

/** integration is GitHub's `integration` schema, what `GET /app` returns. */
export function integration(api: string, app: AppRecord): Record<string, unknown> {
  return {
    id: app.id, slug: app.slug, node_id: nodeId('Integration', app.id), client_id: `Iv1.${app.slug}`, owner: simpleUser(api, app.owner), name: app.slug,
    description: null, external_url: `${HTML_URL}/apps/${app.slug}`, html_url: `${HTML_URL}/apps/${app.slug}`,
    created_at: '2024-01-01T00:00:00Z', updated_at: '2024-01-01T00:00:00Z',
    permissions: { actions: 'write', checks: 'write', contents: 'read', issues: 'write', metadata: 'read', pull_requests: 'write' },
    events: ['issue_comment', 'workflow_run'],
  };
}

/** installationToken is GitHub's `installation-token` schema. */
export function installationToken(token: string, expiresAt: string): Record<string, unknown> {
  return { token, expires_at: expiresAt, permissions: { actions: 'write', checks: 'write', contents: 'read', issues: 'write', metadata: 'read', pull_requests: 'write' }, repository_selection: 'all' };
}

/** JobRecord is a workflow run's job in the stand-in's state. */
export interface JobRecord {
  id?: number;
  owner: string;
  repo: string;
  runId: number;
  name: string;
  conclusion: 'success' | 'failure' | 'cancelled' | 'skipped' | 'timed_out' | null;
  steps: { name: string; conclusion: string | null }[];
}

/** job is GitHub's `job` schema. */
export function job(api: string, j: JobRecord & { id: number }): Record<string, unknown> {
  const runUrl = `${api}/repos/${j.owner}/${j.repo}/actions/runs/${j.runId}`;
  return {
    id: j.id, run_id: j.runId, run_url: runUrl, node_id: nodeId('Job', j.id), head_sha: '0'.repeat(40), url: `${api}/repos/${j.owner}/${j.repo}/actions/jobs/${j.id}`,
    html_url: `${HTML_URL}/${j.owner}/${j.repo}/actions/runs/${j.runId}/job/${j.id}`, status: 'completed', conclusion: j.conclusion,
    created_at: '2025-01-01T00:00:00Z', started_at: '2025-01-01T00:00:00Z', completed_at: '2025-01-01T00:05:00Z', name: j.name,
    steps: j.steps.map((s, i) => ({ name: s.name, status: 'completed', conclusion: s.conclusion, number: i + 1, started_at: '2025-01-01T00:00:00Z', completed_at: '2025-01-01T00:01:00Z' })),
    check_run_url: `${api}/repos/${j.owner}/${j.repo}/check-runs/${j.id}`, labels: ['self-hosted'], runner_id: 1, runner_name: 'bench-1',
    runner_group_id: 1, runner_group_name: 'Default', workflow_name: 'benchbot /bench', head_branch: 'main',
  };
}

/**
 * TimelineRecord is a pull request's head moving, as the issue timeline
 * (`GET .../issues/{n}/timeline`) shows it: `committed` (a commit added to
 * the pull request; `date` is the commit's own git date, which its author
 * chooses) or `head_ref_force_pushed` (the head branch force-pushed to
 * `sha`). `createdAt` is when GitHub recorded it; the timeline lists items
 * in that order, comments included.
 */
export interface TimelineRecord {
  id: number;
  owner: string;
  repo: string;
  issueNumber: number;
  event: 'committed' | 'head_ref_force_pushed';
  sha: string;
  /** date is the git author and committer date of a `committed` commit (defaults to createdAt). */
  date?: string;
  createdAt: string;
  actor: Account;
}

/** timelineEvent is one item of GitHub's `timeline-issue-events`: a committed or an issue event. */
export function timelineEvent(api: string, t: TimelineRecord): Record<string, unknown> {
  const repoApi = `${api}/repos/${t.owner}/${t.repo}`;
  if (t.event === 'committed') {
    const person = { name: t.actor.login, email: `${t.actor.login}@users.noreply.github.com`, date: t.date ?? t.createdAt };
    return {
      event: 'committed', sha: t.sha, node_id: nodeId('Commit', t.id), url: `${repoApi}/git/commits/${t.sha}`, html_url: `${HTML_URL}/${t.owner}/${t.repo}/commit/${t.sha}`,
      author: person, committer: person, message: `commit ${t.sha.slice(0, 7)}`,
      tree: { sha: t.sha.split('').reverse().join(''), url: `${repoApi}/git/trees/${t.sha.split('').reverse().join('')}` },
      parents: [], verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    };
  }
  return {
    id: t.id, node_id: nodeId('HeadRefForcePushedEvent', t.id), url: `${repoApi}/issues/events/${t.id}`, actor: simpleUser(api, t.actor), event: t.event,
    commit_id: t.sha, commit_url: `${repoApi}/commits/${t.sha}`, created_at: t.createdAt, performed_via_github_app: null,
  };
}

/** timelineComment is GitHub's `timeline-comment-event`: an issue comment as the timeline lists it. */
export function timelineComment(api: string, c: IssueCommentRecord, reactions: readonly ReactionRecord[]): Record<string, unknown> {
  const plain = issueComment(api, c, reactions);
  return { ...plain, event: 'commented', actor: plain.user, body_text: c.body, body_html: `<p>${c.body.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`)}</p>`, pin: null, minimized: null };
}

/** WorkflowRunRecord is a workflow run a dispatch started, as the runs list shows it. */
export interface WorkflowRunRecord {
  id: number;
  owner: string;
  repo: string;
  workflowId: string;
  /** displayTitle is the workflow's run-name as GitHub evaluated it, or the workflow's name. */
  displayTitle: string;
  event: string;
  actor: Account;
  createdAt: string;
  headSha: string;
  headBranch: string;
}

/** workflowId is a workflow file's numeric id (stable per file name). */
export function workflowNumber(workflowId: string): number {
  return /^\d+$/.test(workflowId) ? Number(workflowId) : accountId({ login: `workflow:${workflowId}`, type: 'User' });
}

/** workflowRun is GitHub's `workflow-run` schema. */
export function workflowRun(api: string, r: WorkflowRunRecord): Record<string, unknown> {
  const url = `${api}/repos/${r.owner}/${r.repo}/actions/runs/${r.id}`;
  const path = /^\d+$/.test(r.workflowId) ? `.github/workflows/workflow-${r.workflowId}.yml` : `.github/workflows/${r.workflowId}`;
  const repo = repository(api, { login: r.owner, type: 'Organization' }, r.repo);
  // minimal-repository: the repository schema's fields, as GitHub lists them in a run.
  return {
    id: r.id, name: r.displayTitle, node_id: nodeId('WorkflowRun', r.id), check_suite_id: r.id + 700_000, check_suite_node_id: nodeId('CheckSuite', r.id + 700_000),
    head_branch: r.headBranch, head_sha: r.headSha, path, display_title: r.displayTitle, run_number: r.id % 100_000, event: r.event, status: 'queued', conclusion: null,
    workflow_id: workflowNumber(r.workflowId), url, html_url: `${HTML_URL}/${r.owner}/${r.repo}/actions/runs/${r.id}`, pull_requests: [],
    created_at: r.createdAt, updated_at: r.createdAt, actor: simpleUser(api, r.actor), triggering_actor: simpleUser(api, r.actor), run_attempt: 1, run_started_at: r.createdAt,
    jobs_url: `${url}/jobs`, logs_url: `${url}/logs`, check_suite_url: `${api}/repos/${r.owner}/${r.repo}/check-suites/${r.id + 700_000}`, artifacts_url: `${url}/artifacts`,
    cancel_url: `${url}/cancel`, rerun_url: `${url}/rerun`, previous_attempt_url: null, workflow_url: `${api}/repos/${r.owner}/${r.repo}/actions/workflows/${workflowNumber(r.workflowId)}`,
    head_commit: null, repository: repo, head_repository: repo,
  };
}
