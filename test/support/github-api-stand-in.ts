import assert from 'node:assert/strict';
import { createVerify, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOpenApiDescription } from './github-api/openapi-description.ts';
import type { OperationMatch } from './github-api/openapi-description.ts';
import { artifact, checkRun, collaboratorPermission, commitComment, contentFile, installationToken, integration, issue, issueComment, job, publicUser, pullRequest, reaction, timelineComment, timelineEvent, workflowRun } from './github-api/github-objects.ts';
import type { Account, AppRecord, ArtifactRecord, CheckRunRecord, CommitCommentRecord, FileRecord, IssueCommentRecord, IssueRecord, JobRecord, Permission, PullRecord, ReactionRecord, TimelineRecord } from './github-api/github-objects.ts';

export type { Account, AppRecord, ArtifactRecord, CheckRunRecord, CommitCommentRecord, FileRecord, IssueCommentRecord, IssueRecord, JobRecord, Permission, PullRecord, ReactionRecord, TimelineRecord } from './github-api/github-objects.ts';

/**
 * A local stand-in for api.github.com. Every request is matched against the
 * path templates of GitHub's published OpenAPI description and validated
 * (path and query parameters, JSON body); unknown paths get 404, invalid
 * requests 422 with the errors, and both are recorded as validation failures
 * that assertAllValid reports. The endpoints benchbot uses have in-memory
 * behaviour; every response is itself checked against the documented
 * response schema, so the stand-in cannot drift from GitHub's shapes unnoticed.
 *
 * Usable across processes: `url` is `http://127.0.0.1:PORT`, to be passed as
 * GITHUB_API_URL; `GET /__stand-in/requests` returns the recorded requests.
 * Run this file directly to serve one on PORT (default: any free port).
 */

/** DispatchRecord is one accepted workflow_dispatch. */
export interface DispatchRecord {
  owner: string;
  repo: string;
  workflowId: string;
  ref: string;
  inputs: Record<string, unknown>;
}

/** DispatchedRunRecord is the workflow run a dispatch created, as its workflow_run webhook would name it. */
export interface DispatchedRunRecord {
  id: number;
  owner: string;
  repo: string;
  workflowId: string;
  /** actor is who dispatched it (the token's actor). */
  actor: Account;
  createdAt: string;
  /** displayTitle is the run's name: the workflow's run-name (runNames) with the dispatch's inputs, or the workflow id. */
  displayTitle: string;
  /** ref is the branch the dispatch ran on. */
  ref: string;
}

/** StandInState is the stand-in's mutable world; tests may read and seed it directly. */
export interface StandInState {
  /**
   * actor authors what the token creates. A `Bot` actor (the default,
   * `github-actions[bot]`, i.e. a GITHUB_TOKEN) gets 403 from `GET /user`, as
   * installation tokens do; a `User` actor gets its public profile.
   */
  actor: Account;
  /** token, when set, must be presented as `Bearer <token>` or `token <token>`, else 401. */
  token: string | null;
  comments: IssueCommentRecord[];
  /** commitComments are comments on commits (POST .../commits/{sha}/comments). */
  commitComments: CommitCommentRecord[];
  /** issues are issues (not pull requests) created through the API or seeded with addIssue. */
  issues: IssueRecord[];
  reactions: ReactionRecord[];
  checkRuns: CheckRunRecord[];
  dispatches: DispatchRecord[];
  /** runs are the workflow runs dispatches created, in order (also when the answer did not name them). */
  runs: DispatchedRunRecord[];
  /**
   * returnRunDetails false answers every dispatch with 204 and no run id,
   * as GitHub Enterprise Server does (it has no `return_run_details`).
   */
  returnRunDetails: boolean;
  /** workflows lists the workflow ids or file names that exist; null accepts any. */
  workflows: string[] | null;
  /**
   * runNames are workflows' `run-name` templates by workflow id: a
   * dispatched run's display_title is the template with each
   * `${{ inputs.NAME }}` replaced by the input (GitHub evaluates any
   * expression; the starter workflows use only these). A workflow without
   * one is titled by its id.
   */
  runNames: Record<string, string>;
  /**
   * declaredInputs are the workflow_dispatch inputs a workflow declares, by
   * workflow id: a dispatch with any other input is refused with 422, as
   * GitHub does. A workflow not listed accepts any.
   */
  declaredInputs: Record<string, string[]>;
  /** permissions by `owner/repo:login` or by `login`; others get defaultPermission. */
  permissions: Record<string, Permission>;
  /** defaultPermission is what a user not listed has; `read`, as on a public repository. */
  defaultPermission: Permission;
  artifacts: ArtifactRecord[];
  /** pulls are pull requests, seeded by tests (GET .../pulls/{n}). */
  pulls: PullRecord[];
  /** files are repository contents at a ref (GET .../contents/{path}). */
  files: FileRecord[];
  /** jobs are workflow run jobs (GET .../actions/runs/{id}/jobs). */
  jobs: JobRecord[];
  /**
   * timeline holds pushes to pull requests (committed, head_ref_force_pushed);
   * GET .../issues/{n}/timeline lists them with the comments, in the order
   * GitHub recorded them (createdAt, then id).
   */
  timeline: TimelineRecord[];
  /**
   * timelineOrder is where the timeline lists `committed` events: `recorded`
   * (the default) when GitHub recorded the push, `commit-date` by the
   * commit's own date, which the pusher chooses. GitHub documents neither;
   * its pull request views have sorted commits by date, so the app must be
   * right under both.
   */
  timelineOrder: 'recorded' | 'commit-date';
  /** cancelled lists the workflow runs cancelled through the API, as `owner/repo/run id`. */
  cancelled: string[];
  /**
   * app, when set, makes the stand-in a GitHub App's world: `/app...`
   * endpoints need a JWT signed by the app's key, everything else one of
   * the installation tokens it issued (or `token`).
   */
  app: AppRecord | null;
  /** installationTokens are the tokens issued by POST /app/installations/{id}/access_tokens. */
  installationTokens: string[];
  nextId: number;
}

/** RecordedRequest is one request as the stand-in saw and answered it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
  operationId: string | null;
  template: string | null;
  status: number;
  /** errors are request validation failures: unknown path, bad parameter, bad body. */
  errors: string[];
  /** responseErrors are the stand-in's own responses failing the documented schema. */
  responseErrors: string[];
}

/** Fault is an injected failure answered instead of the normal response. */
export interface Fault {
  method?: string;
  /** path matches the concrete path, the template, or a RegExp over the path. */
  path?: string | RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** times the fault fires; default 1. */
  times?: number;
  /**
   * after answers the fault after doing what the request asks (GitHub made
   * the comment or started the run, and the answer was lost on the way):
   * what a retry must not do twice.
   */
  after?: boolean;
}

/** StandInOptions configure startGitHubApiStandIn. */
export interface StandInOptions {
  state?: Partial<StandInState>;
  host?: string;
  port?: number;
  /** validateResponses checks the stand-in's own responses; default true. */
  validateResponses?: boolean;
}

/** GitHubApiStandIn is a running stand-in. */
export interface GitHubApiStandIn {
  url: string;
  requests: RecordedRequest[];
  /** blobRequests are fetches of redirect targets (artifact archives), with their headers and how many body bytes the socket took. */
  blobRequests: BlobRequest[];
  state: StandInState;
  /**
   * jitterMs delays every API answer by a random 0..jitterMs ms (default 0),
   * as GitHub's round trips vary: concurrent handlers then interleave in
   * every order, which races need.
   */
  jitterMs: number;
  /** failNext queues a fault for the next matching request(s). */
  failNext(fault: Fault): void;
  /**
   * holdNext does the next matching request and holds its answer back for
   * `ms`: an answer still on its way when the client's process dies.
   */
  holdNext(hold: { method?: string; path?: string | RegExp; ms: number }): void;
  /** addComment seeds a comment as if `user` had written it; returns its record. */
  addComment(comment: { owner: string; repo: string; issueNumber: number; body: string; user: Account }): IssueCommentRecord;
  /** addIssue seeds an issue as if `user` had filed it; returns its record. */
  addIssue(i: { owner: string; repo: string; title: string; body?: string | null; labels?: string[]; state?: 'open' | 'closed'; user: Account; number?: number }): IssueRecord;
  /** addTimelineEvent records a push to a pull request (a commit added, or a force push) at `createdAt` (default now). */
  addTimelineEvent(t: Omit<TimelineRecord, 'id' | 'createdAt' | 'actor'> & { createdAt?: string; actor?: Account }): TimelineRecord;
  /** addArtifact seeds a workflow run artifact. */
  addArtifact(a: Omit<ArtifactRecord, 'id'> & { id?: number }): ArtifactRecord;
  /** reset forgets requests, pending faults and all created objects; configuration (actor, token, permissions, workflows) stays. */
  reset(): void;
  close(): Promise<void>;
}

/** BlobRequest is one fetch of a redirect target; bytesSent grows while a streamed body is written. */
export interface BlobRequest {
  path: string;
  headers: Record<string, string>;
  bytesSent: number;
}

interface Reply {
  status: number;
  /** stream is a body written a chunk at a time as the socket drains, without a Content-Length; `sent` counts what it took. */
  stream?: { chunks: () => Iterable<Uint8Array>; sent: (bytes: number) => void };
  body?: unknown;
  headers?: Record<string, string>;
  /** raw skips JSON encoding and response validation (redirect targets). */
  raw?: Uint8Array;
}

interface Context {
  match: OperationMatch;
  p: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  path: string;
}

const DOCS = 'https://docs.github.com/rest';

/** startGitHubApiStandIn starts a stand-in on a free port of 127.0.0.1 (or options.host/port). */
export async function startGitHubApiStandIn(options: StandInOptions = {}): Promise<GitHubApiStandIn> {
  const description = loadOpenApiDescription();
  const state: StandInState = {
    actor: { login: 'github-actions[bot]', type: 'Bot', id: 41898282 },
    token: null,
    comments: [],
    commitComments: [],
    issues: [],
    reactions: [],
    checkRuns: [],
    dispatches: [],
    runs: [],
    returnRunDetails: true,
    workflows: null,
    runNames: {},
    declaredInputs: {},
    permissions: {},
    defaultPermission: 'read',
    artifacts: [],
    pulls: [],
    files: [],
    jobs: [],
    timeline: [],
    timelineOrder: 'recorded',
    cancelled: [],
    app: null,
    installationTokens: [],
    nextId: 1_000_001,
    ...options.state,
  };
  const requests: RecordedRequest[] = [];
  const blobRequests: BlobRequest[] = [];
  const faults: Fault[] = [];
  const holds: { method?: string; path?: string | RegExp; ms: number }[] = [];
  const validateResponses = options.validateResponses ?? true;
  let url = '';

  const nextId = () => state.nextId++;
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const inRepo = (r: { owner: string; repo: string }, p: Record<string, string>) => same(r.owner, p.owner) && same(r.repo, p.repo);
  const notFound = (): Reply => ({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });

  function page(items: unknown[], ctx: Context, wrap?: (pageItems: unknown[]) => unknown): Reply {
    const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 30)));
    const pageNo = Math.max(1, Number(ctx.query.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const slice = items.slice((pageNo - 1) * perPage, pageNo * perPage);
    const link = (n: number, rel: string) => {
      const q = new URLSearchParams(ctx.query);
      q.set('page', String(n));
      return `<${url}${ctx.path}?${q}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (pageNo > 1) links.push(link(pageNo - 1, 'prev'));
    if (pageNo < last) links.push(link(pageNo + 1, 'next'), link(last, 'last'));
    if (pageNo > 1) links.push(link(1, 'first'));
    return { status: 200, body: wrap ? wrap(slice) : slice, headers: links.length > 0 ? { link: links.join(', ') } : {} };
  }

  // GitHub's limit on comment bodies, which the schema does not state.
  const tooLong = (body: unknown) => [...String(body)].length > 65536;
  const bodyTooLong = (): Reply => ({ status: 422, body: { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'unprocessable', field: 'data', message: 'Body is too long (maximum is 65536 characters)' }], documentation_url: `${DOCS}/issues/comments#create-an-issue-comment`, status: '422' } });
  const comment = (c: IssueCommentRecord) => issueComment(url, c, state.reactions);
  const findComment = (p: Record<string, string>) => state.comments.find((c) => c.id === Number(p.comment_id) && inRepo(c, p));
  const findIssue = (p: Record<string, string>) => state.issues.find((i) => i.number === Number(p.issue_number) && inRepo(i, p));
  const issueObject = (i: IssueRecord) => issue(url, i, state.comments.filter((c) => same(c.owner, i.owner) && same(c.repo, i.repo) && c.issueNumber === i.number).length);
  const labelNames = (labels: (string | { name?: string })[] | undefined) => [...new Set((labels ?? []).map((l) => (typeof l === 'string' ? l : (l.name ?? ''))).filter((l) => l !== ''))];

  const handlers: Record<string, (ctx: Context) => Reply> = {
    'users/get-authenticated': () => state.actor.type === 'User'
      ? { status: 200, body: publicUser(url, state.actor, '2020-01-01T00:00:00Z') }
      : { status: 403, body: { message: 'Resource not accessible by integration', documentation_url: `${DOCS}/users/users#get-the-authenticated-user`, status: '403' } },

    'issues/list-comments': (ctx) => {
      const since = ctx.query.get('since');
      const list = state.comments
        .filter((c) => inRepo(c, ctx.p) && c.issueNumber === Number(ctx.p.issue_number) && (since === null || c.updatedAt >= since))
        .sort((a, b) => a.id - b.id);
      return page(list.map(comment), ctx);
    },
    'issues/create-comment': (ctx) => {
      if (tooLong(ctx.body.body)) return bodyTooLong();
      const c = stand.addComment({ owner: ctx.p.owner, repo: ctx.p.repo, issueNumber: Number(ctx.p.issue_number), body: String(ctx.body.body), user: state.actor });
      return { status: 201, body: comment(c), headers: { location: `${url}/repos/${c.owner}/${c.repo}/issues/comments/${c.id}` } };
    },
    'issues/get-comment': (ctx) => {
      const c = findComment(ctx.p);
      return c ? { status: 200, body: comment(c) } : notFound();
    },
    'issues/update-comment': (ctx) => {
      const c = findComment(ctx.p);
      if (!c) return notFound();
      if (tooLong(ctx.body.body)) return bodyTooLong();
      c.body = String(ctx.body.body);
      c.updatedAt = now();
      return { status: 200, body: comment(c) };
    },
    'issues/delete-comment': (ctx) => {
      const c = findComment(ctx.p);
      if (!c) return notFound();
      state.comments.splice(state.comments.indexOf(c), 1);
      return { status: 204 };
    },

    'repos/list-comments-for-commit': (ctx) => {
      const list = state.commitComments.filter((c) => inRepo(c, ctx.p) && c.commitId === ctx.p.commit_sha).sort((a, b) => a.id - b.id);
      return page(list.map((c) => commitComment(url, c)), ctx);
    },
    'repos/create-commit-comment': (ctx) => {
      if (tooLong(ctx.body.body)) return bodyTooLong();
      const at = now();
      const c: CommitCommentRecord = { id: nextId(), owner: ctx.p.owner, repo: ctx.p.repo, commitId: ctx.p.commit_sha, body: String(ctx.body.body), user: state.actor, createdAt: at, updatedAt: at };
      state.commitComments.push(c);
      return { status: 201, body: commitComment(url, c), headers: { location: `${url}/repos/${c.owner}/${c.repo}/comments/${c.id}` } };
    },
    'repos/update-commit-comment': (ctx) => {
      const c = state.commitComments.find((x) => x.id === Number(ctx.p.comment_id) && inRepo(x, ctx.p));
      if (!c) return notFound();
      if (tooLong(ctx.body.body)) return bodyTooLong();
      c.body = String(ctx.body.body);
      c.updatedAt = now();
      return { status: 200, body: commitComment(url, c) };
    },

    'issues/list-for-repo': (ctx) => {
      const wanted = ctx.query.get('state') ?? 'open';
      const labels = (ctx.query.get('labels') ?? '').split(',').map((l) => l.trim()).filter((l) => l !== '');
      const list = state.issues
        .filter((i) => inRepo(i, ctx.p) && (wanted === 'all' || i.state === wanted) && labels.every((l) => i.labels.some((x) => same(x, l))))
        .sort((a, b) => (ctx.query.get('direction') === 'asc' ? a.number - b.number : b.number - a.number));
      return page(list.map(issueObject), ctx);
    },
    'issues/create': (ctx) => {
      const b = ctx.body as { title: string | number; body?: string | null; labels?: (string | { name?: string })[]; assignees?: string[]; assignee?: string | null };
      if (tooLong(b.body ?? '')) return bodyTooLong();
      const i = stand.addIssue({ owner: ctx.p.owner, repo: ctx.p.repo, title: String(b.title), body: b.body ?? null, labels: labelNames(b.labels), user: state.actor });
      i.assignees = b.assignees ?? (b.assignee ? [b.assignee] : []);
      i.history.push(ctx.body);
      return { status: 201, body: issueObject(i), headers: { location: `${url}/repos/${i.owner}/${i.repo}/issues/${i.number}` } };
    },
    'issues/get': (ctx) => {
      const i = findIssue(ctx.p);
      return i ? { status: 200, body: issueObject(i) } : notFound();
    },
    'issues/update': (ctx) => {
      const i = findIssue(ctx.p);
      if (!i) return notFound();
      const b = ctx.body as { title?: string | number | null; body?: string | null; state?: 'open' | 'closed'; state_reason?: IssueRecord['stateReason']; labels?: (string | { name?: string })[]; assignees?: string[] };
      if (b.body !== undefined && tooLong(b.body ?? '')) return bodyTooLong();
      if (b.title !== undefined && b.title !== null) i.title = String(b.title);
      if (b.body !== undefined) i.body = b.body;
      if (b.labels !== undefined) i.labels = labelNames(b.labels);
      if (b.assignees !== undefined) i.assignees = b.assignees;
      if (b.state !== undefined && b.state !== i.state) {
        i.state = b.state;
        i.closedAt = b.state === 'closed' ? now() : null;
        i.stateReason = b.state === 'closed' ? (b.state_reason ?? 'completed') : 'reopened';
      }
      i.updatedAt = now();
      i.history.push(ctx.body);
      return { status: 200, body: issueObject(i) };
    },

    'issues/list-events-for-timeline': (ctx) => {
      const number = Number(ctx.p.issue_number);
      const exclude = new Set((ctx.query.get('exclude') ?? '').split(',').map((e) => e.trim()).filter((e) => e !== ''));
      const items = [
        ...state.comments.filter((c) => inRepo(c, ctx.p) && c.issueNumber === number).map((c) => ({ at: c.createdAt, id: c.id, event: 'commented', body: () => timelineComment(url, c, state.reactions) })),
        ...state.timeline.filter((t) => inRepo(t, ctx.p) && t.issueNumber === number).map((t) => ({ at: state.timelineOrder === 'commit-date' && t.event === 'committed' ? (t.date ?? t.createdAt) : t.createdAt, id: t.id, event: t.event as string, body: () => timelineEvent(url, t) })),
      ].filter((i) => !exclude.has(i.event));
      if (items.length === 0 && !state.pulls.some((x) => x.number === number && inRepo(x, ctx.p)) && !findIssue(ctx.p)) return notFound();
      items.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id - b.id));
      return page(items.map((i) => i.body()), ctx);
    },

    'reactions/list-for-issue-comment': (ctx) => {
      if (!findComment(ctx.p)) return notFound();
      const content = ctx.query.get('content');
      const list = state.reactions.filter((r) => r.commentId === Number(ctx.p.comment_id) && (content === null || r.content === content));
      return page(list.map((r) => reaction(url, r)), ctx);
    },
    'reactions/create-for-issue-comment': (ctx) => {
      if (!findComment(ctx.p)) return notFound();
      const commentId = Number(ctx.p.comment_id);
      const content = String(ctx.body.content);
      const existing = state.reactions.find((r) => r.commentId === commentId && r.content === content && same(r.user.login, state.actor.login));
      if (existing) return { status: 200, body: reaction(url, existing) };
      const r: ReactionRecord = { id: nextId(), commentId, content, user: state.actor, createdAt: now() };
      state.reactions.push(r);
      return { status: 201, body: reaction(url, r) };
    },

    'checks/create': (ctx) => {
      const b = ctx.body as { name: string; head_sha: string; status?: string; conclusion?: string; details_url?: string; external_id?: string; started_at?: string; completed_at?: string; output?: { title?: string; summary?: string; text?: string } };
      const status = b.conclusion !== undefined ? 'completed' : (b.status ?? 'queued');
      // The schema cannot express this rule; GitHub enforces it.
      if (status === 'completed' && b.conclusion === undefined) return { status: 422, body: { message: 'Invalid request.\n\nconclusion is required when status is completed.', documentation_url: `${DOCS}/checks/runs#create-a-check-run`, status: '422' } };
      const r: CheckRunRecord = {
        id: nextId(),
        owner: ctx.p.owner,
        repo: ctx.p.repo,
        headSha: b.head_sha,
        name: b.name,
        status,
        conclusion: b.conclusion ?? null,
        detailsUrl: b.details_url ?? null,
        externalId: b.external_id ?? null,
        startedAt: b.started_at ?? now(),
        completedAt: status === 'completed' ? (b.completed_at ?? now()) : null,
        output: { title: b.output?.title ?? null, summary: b.output?.summary ?? null, text: b.output?.text ?? null },
        history: [ctx.body],
      };
      state.checkRuns.push(r);
      return { status: 201, body: checkRun(url, r) };
    },
    'checks/update': (ctx) => {
      const r = state.checkRuns.find((x) => x.id === Number(ctx.p.check_run_id) && inRepo(x, ctx.p));
      if (!r) return notFound();
      const b = ctx.body as { name?: string; status?: string; conclusion?: string; details_url?: string; external_id?: string; completed_at?: string; output?: { title?: string; summary?: string; text?: string } };
      if (b.name !== undefined) r.name = b.name;
      if (b.details_url !== undefined) r.detailsUrl = b.details_url;
      if (b.external_id !== undefined) r.externalId = b.external_id;
      if (b.conclusion !== undefined) r.conclusion = b.conclusion;
      r.status = b.conclusion !== undefined ? 'completed' : (b.status ?? r.status);
      if (r.status === 'completed' && r.conclusion === null) return { status: 422, body: { message: 'Invalid request.\n\nconclusion is required when status is completed.', documentation_url: `${DOCS}/checks/runs#update-a-check-run`, status: '422' } };
      if (r.status === 'completed') r.completedAt = b.completed_at ?? r.completedAt ?? now();
      if (b.output !== undefined) r.output = { title: b.output.title ?? r.output.title, summary: b.output.summary ?? r.output.summary, text: b.output.text ?? r.output.text };
      r.history.push(ctx.body);
      return { status: 200, body: checkRun(url, r) };
    },
    'checks/get': (ctx) => {
      const r = state.checkRuns.find((x) => x.id === Number(ctx.p.check_run_id) && inRepo(x, ctx.p));
      return r ? { status: 200, body: checkRun(url, r) } : notFound();
    },

    'actions/create-workflow-dispatch': (ctx) => {
      const workflowId = ctx.p.workflow_id;
      if (state.workflows !== null && !state.workflows.includes(workflowId)) return notFound();
      const b = ctx.body as { ref: string; inputs?: Record<string, unknown>; return_run_details?: boolean };
      const inputs = b.inputs ?? {};
      const declared = state.declaredInputs[workflowId];
      const unexpected = declared === undefined ? [] : Object.keys(inputs).filter((name) => !declared.includes(name));
      if (unexpected.length > 0) return { status: 422, body: { message: `Unexpected inputs provided: ${JSON.stringify(unexpected)}`, documentation_url: `${DOCS}/actions/workflows#create-a-workflow-dispatch-event`, status: '422' } };
      state.dispatches.push({ owner: ctx.p.owner, repo: ctx.p.repo, workflowId, ref: b.ref, inputs });
      const runId = nextId();
      const template = state.runNames[workflowId];
      const displayTitle = template === undefined ? workflowId : template.replace(/\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g, (_, name: string) => String(inputs[name] ?? ''));
      state.runs.push({ id: runId, owner: ctx.p.owner, repo: ctx.p.repo, workflowId, actor: state.actor, createdAt: now(), displayTitle, ref: b.ref });
      if (!b.return_run_details || !state.returnRunDetails) return { status: 204 };
      return { status: 200, body: { workflow_run_id: runId, run_url: `${url}/repos/${ctx.p.owner}/${ctx.p.repo}/actions/runs/${runId}`, html_url: `https://github.com/${ctx.p.owner}/${ctx.p.repo}/actions/runs/${runId}` } };
    },

    'actions/list-workflow-runs': (ctx) => {
      const event = ctx.query.get('event');
      const created = /^>=(.+)$/.exec(ctx.query.get('created') ?? '');
      const since = created === null ? null : Date.parse(created[1]);
      const list = state.runs
        .filter((r) => inRepo(r, ctx.p) && r.workflowId === ctx.p.workflow_id && (event === null || event === 'workflow_dispatch') && (since === null || Date.parse(r.createdAt) >= since))
        .sort((a, b) => b.id - a.id)
        .map((r) => workflowRun(url, { ...r, event: 'workflow_dispatch', headSha: '0'.repeat(40), headBranch: r.ref }));
      return page(list, ctx, (items) => ({ total_count: list.length, workflow_runs: items }));
    },
    'checks/list-for-ref': (ctx) => {
      const name = ctx.query.get('check_name');
      const status = ctx.query.get('status');
      const list = state.checkRuns.filter((r) => inRepo(r, ctx.p) && r.headSha === ctx.p.ref && (name === null || r.name === name) && (status === null || r.status === status)).map((r) => checkRun(url, r));
      return page(list, ctx, (items) => ({ total_count: list.length, check_runs: items }));
    },

    'pulls/get': (ctx) => {
      const p = state.pulls.find((x) => x.number === Number(ctx.p.pull_number) && inRepo(x, ctx.p));
      return p ? { status: 200, body: pullRequest(url, p) } : notFound();
    },
    'repos/get-content': (ctx) => {
      const ref = ctx.query.get('ref') ?? 'main';
      const f = state.files.find((x) => inRepo(x, ctx.p) && x.path === ctx.p.path && x.ref === ref);
      return f ? { status: 200, body: contentFile(url, f) } : notFound();
    },
    'apps/get-authenticated': () => (state.app ? { status: 200, body: integration(url, state.app) } : notFound()),
    'apps/create-installation-access-token': (ctx) => {
      if (!state.app || !state.app.installations.includes(Number(ctx.p.installation_id))) return notFound();
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      state.installationTokens.push(token);
      return { status: 201, body: installationToken(token, new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z')) };
    },
    'actions/cancel-workflow-run': (ctx) => {
      const key = `${ctx.p.owner}/${ctx.p.repo}/${ctx.p.run_id}`;
      if (state.cancelled.includes(key)) return { status: 409, body: { message: 'Cannot cancel a workflow run that is completed.', documentation_url: `${DOCS}/actions/workflow-runs#cancel-a-workflow-run`, status: '409' } };
      state.cancelled.push(key);
      return { status: 202, body: {} };
    },
    'actions/list-jobs-for-workflow-run': (ctx) => {
      const list = state.jobs.filter((j) => inRepo(j, ctx.p) && j.runId === Number(ctx.p.run_id)).map((j) => job(url, { ...j, id: j.id ?? j.runId * 10 + state.jobs.indexOf(j) }));
      return page(list, ctx, (items) => ({ total_count: list.length, jobs: items }));
    },

    'repos/get-collaborator-permission-level': (ctx) => {
      const login = ctx.p.username;
      const role = state.permissions[`${ctx.p.owner}/${ctx.p.repo}:${login}`] ?? state.permissions[login] ?? state.defaultPermission;
      return { status: 200, body: collaboratorPermission(url, login, role) };
    },

    'actions/list-artifacts-for-repo': (ctx) => {
      const name = ctx.query.get('name');
      const list = state.artifacts.filter((a) => inRepo(a, ctx.p) && (name === null || a.name === name)).sort((a, b) => b.id - a.id);
      return page(list.map((a) => artifact(url, a)), ctx, (items) => ({ total_count: list.length, artifacts: items }));
    },
    'actions/list-workflow-run-artifacts': (ctx) => {
      const name = ctx.query.get('name');
      const list = state.artifacts.filter((a) => inRepo(a, ctx.p) && a.runId === Number(ctx.p.run_id) && (name === null || a.name === name));
      if (ctx.query.get('direction') !== 'asc') list.sort((a, b) => b.id - a.id);
      else list.sort((a, b) => a.id - b.id);
      return page(list.map((a) => artifact(url, a)), ctx, (items) => ({ total_count: list.length, artifacts: items }));
    },
    'actions/get-artifact': (ctx) => {
      const a = state.artifacts.find((x) => x.id === Number(ctx.p.artifact_id) && inRepo(x, ctx.p));
      return a ? { status: 200, body: artifact(url, a) } : notFound();
    },
    'actions/download-artifact': (ctx) => {
      const a = state.artifacts.find((x) => x.id === Number(ctx.p.artifact_id) && inRepo(x, ctx.p));
      if (!a || ctx.p.archive_format !== 'zip') return notFound();
      if (a.expired) return { status: 410, body: { message: 'Artifact has expired', documentation_url: `${DOCS}/actions/artifacts#download-an-artifact`, status: '410' } };
      return { status: 302, headers: { location: `${url}/__stand-in/blobs/artifacts/${a.id}.zip` } };
    },
  };

  function blob(path: string, req: IncomingMessage): Reply {
    const record: BlobRequest = { path, headers: headerRecord(req), bytesSent: 0 };
    if (path.startsWith('/__stand-in/blobs/')) blobRequests.push(record);
    const artifactMatch = /^\/__stand-in\/blobs\/artifacts\/(\d+)\.zip$/.exec(path);
    if (artifactMatch) {
      const a = state.artifacts.find((x) => x.id === Number(artifactMatch[1]));
      if (a && a.servedBytes !== undefined) return { status: 200, stream: { chunks: () => paddedBody(a.data, a.servedBytes ?? 0), sent: (n) => (record.bytesSent += n) }, headers: { 'content-type': 'application/zip' } };
      if (a) {
        record.bytesSent = a.data.length;
        return { status: 200, raw: a.data, headers: { 'content-type': 'application/zip', 'content-length': String(a.data.length) } };
      }
    }
    if (path === '/__stand-in/requests') return { status: 200, raw: Buffer.from(JSON.stringify(requests)), headers: { 'content-type': 'application/json' } };
    if (path === '/__stand-in/state') return { status: 200, raw: Buffer.from(JSON.stringify(state, (_, v) => (v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v))), headers: { 'content-type': 'application/json' } };
    return { status: 404, raw: Buffer.from('no such stand-in blob') };
  }

  function takeFault(method: string, path: string, template: string | null): Fault | null {
    const i = faults.findIndex((f) => (f.method === undefined || f.method.toUpperCase() === method)
      && (f.path === undefined || (f.path instanceof RegExp ? f.path.test(path) : f.path === path || f.path === template)));
    if (i === -1) return null;
    const fault = faults[i];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) faults.splice(i, 1);
    return fault;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const parsed = new URL(req.url ?? '/', 'http://stand-in');
    const path = parsed.pathname;
    const text = await readBody(req);
    if (path.startsWith('/__stand-in/')) return send(res, method, blob(path, req));

    const record: RecordedRequest = {
      method,
      path,
      query: Object.fromEntries(parsed.searchParams),
      headers: headerRecord(req),
      body: undefined,
      operationId: null,
      template: null,
      status: 0,
      errors: [],
      responseErrors: [],
    };
    requests.push(record);
    const reply = (r: Reply) => {
      record.status = r.status;
      send(res, method, r);
    };

    const match = description.match(method, path);
    if (match === null) {
      record.errors.push(description.pathExists(path)
        ? `${method} is not an operation of ${path} in GitHub's OpenAPI description`
        : `no path template in GitHub's OpenAPI description matches ${method} ${path}`);
      return reply({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
    }
    record.operationId = match.operationId;
    record.template = match.template;

    const hasBody = text.length > 0;
    if (hasBody) {
      try {
        record.body = JSON.parse(text);
      } catch {
        record.errors.push('request body is not valid JSON');
        return reply({ status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' } });
      }
    }
    const version = req.headers['x-github-api-version'];
    if (version !== undefined && version !== '2022-11-28') record.errors.push(`X-GitHub-Api-Version ${String(version)} is not supported`);
    const auth = req.headers.authorization ?? '';
    if (state.app !== null && (match.template === '/app' || match.template.startsWith('/app/'))) {
      const problem = appJwtProblem(auth, state.app);
      if (problem !== null) return reply({ status: 401, body: { message: problem, documentation_url: DOCS, status: '401' } });
    } else if (state.token !== null || state.app !== null) {
      const tokens = [state.token, ...state.installationTokens].filter((t) => t !== null);
      if (!tokens.some((t) => new RegExp(`^(bearer|token) ${t}$`, 'i').test(auth))) return reply({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } });
    }
    record.errors.push(...description.validateRequest(match, parsed.searchParams, record.body, hasBody));
    if (record.errors.length > 0) {
      return reply({ status: 422, body: { message: `Invalid request.\n\n${record.errors.join('\n')}`, documentation_url: DOCS, status: '422' } });
    }

    if (stand.jitterMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * stand.jitterMs));
    const fault = takeFault(method, path, match.template);
    const faultReply = (f: Fault): Reply => ({ status: f.status, headers: f.headers, body: f.body ?? { message: `injected ${f.status}`, documentation_url: DOCS } });
    if (fault && !fault.after) return reply(faultReply(fault));

    const handler = handlers[match.operationId];
    if (handler === undefined) {
      return reply({ status: 501, body: { message: `the GitHub API stand-in does not implement ${match.operationId} (${method} ${match.template})` } });
    }
    const body = record.body !== null && typeof record.body === 'object' ? (record.body as Record<string, unknown>) : {};
    const result = handler({ match, p: match.pathParams, query: parsed.searchParams, body, path });
    // Done, and the answer lost on the way: the client sees only the fault.
    if (fault) return reply(faultReply(fault));
    const held = holds.findIndex((x) => (x.method === undefined || x.method.toUpperCase() === method) && (x.path === undefined || (x.path instanceof RegExp ? x.path.test(path) : x.path === path || x.path === match.template)));
    if (held !== -1) await new Promise((resolve) => setTimeout(resolve, holds.splice(held, 1)[0].ms));
    if (validateResponses && result.raw === undefined) record.responseErrors.push(...description.validateResponse(match, result.status, result.body));
    return reply(result);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 'GET', { status: 500, body: { message: `stand-in crashed: ${String((error as Error)?.stack ?? error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;

  const stand: GitHubApiStandIn = {
    url,
    requests,
    blobRequests,
    state,
    jitterMs: 0,
    failNext(fault) {
      faults.push({ ...fault });
    },
    holdNext(hold) {
      holds.push({ ...hold });
    },
    addComment(c) {
      const at = now();
      const record: IssueCommentRecord = { id: nextId(), owner: c.owner, repo: c.repo, issueNumber: c.issueNumber, body: c.body, user: c.user, createdAt: at, updatedAt: at };
      state.comments.push(record);
      return record;
    },
    addIssue(i) {
      const at = now();
      const number = i.number ?? Math.max(0, ...state.issues.filter((x) => same(x.owner, i.owner) && same(x.repo, i.repo)).map((x) => x.number)) + 1;
      const state_ = i.state ?? 'open';
      const record: IssueRecord = {
        id: nextId(), owner: i.owner, repo: i.repo, number, title: i.title, body: i.body ?? null, state: state_,
        stateReason: state_ === 'closed' ? 'completed' : null, labels: i.labels ?? [], assignees: [], user: i.user,
        createdAt: at, updatedAt: at, closedAt: state_ === 'closed' ? at : null, history: [],
      };
      state.issues.push(record);
      return record;
    },
    addTimelineEvent(t) {
      const record: TimelineRecord = { ...t, id: nextId(), createdAt: t.createdAt ?? now(), actor: t.actor ?? { login: 'outside-contributor', type: 'User' } };
      state.timeline.push(record);
      return record;
    },
    addArtifact(a) {
      const record: ArtifactRecord = { ...a, id: a.id ?? nextId() };
      state.artifacts.push(record);
      return record;
    },
    reset() {
      requests.length = 0;
      blobRequests.length = 0;
      faults.length = 0;
      holds.length = 0;
      for (const list of [state.comments, state.commitComments, state.issues, state.reactions, state.checkRuns, state.dispatches, state.runs, state.artifacts]) list.length = 0;
      for (const list of [state.pulls, state.files, state.jobs, state.timeline, state.cancelled]) list.length = 0;
    },
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
  return stand;
}

/**
 * assertAllValid fails when any request the stand-in saw failed validation
 * against GitHub's OpenAPI description, or when one of its own responses did.
 */
export function assertAllValid(standIn: Pick<GitHubApiStandIn, 'requests'>): void {
  const bad = standIn.requests.filter((r) => r.errors.length > 0 || r.responseErrors.length > 0);
  assert.equal(bad.length, 0, `requests that fail GitHub's OpenAPI description:\n${bad.map((r) => `  ${r.method} ${r.path} -> ${r.status}\n${[...r.errors, ...r.responseErrors.map((e) => `(stand-in response) ${e}`)].map((e) => `    ${e}`).join('\n')}`).join('\n')}`);
}

/**
 * appJwtProblem checks a GitHub App JWT as GitHub does: RS256, signed by the
 * app's key, `iss` the app id, `iat` not in the future (60 s of skew), `exp`
 * not past and at most 10 minutes after `iat`. Null when it is good.
 */
function appJwtProblem(authorization: string, app: AppRecord): string | null {
  const jwt = /^bearer ([\w-]+)\.([\w-]+)\.([\w-]+)$/i.exec(authorization);
  if (!jwt) return 'A JSON web token could not be decoded';
  const [, header, payload, signature] = jwt;
  const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
  let head: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    head = decode(header);
    claims = decode(payload);
  } catch {
    return 'A JSON web token could not be decoded';
  }
  if (head.alg !== 'RS256') return "'alg' must be RS256";
  const verifier = createVerify('RSA-SHA256');
  verifier.update(`${header}.${payload}`);
  if (!verifier.verify(app.publicKey, Buffer.from(signature, 'base64url'))) return 'A JSON web token could not be decoded';
  const now = Math.floor(Date.now() / 1000);
  if (String(claims.iss) !== String(app.id)) return "'Issuer' claim ('iss') must be an Integer";
  if (typeof claims.iat !== 'number' || claims.iat > now + 60) return "'Issued at' claim ('iat') must be an Integer representing a time in the past.";
  if (typeof claims.exp !== 'number' || claims.exp < now || claims.exp - claims.iat > 600) return "'Expiration time' claim ('exp') is too far in the future";
  return null;
}

function headerRecord(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, method: string, reply: Reply): void {
  const headers: Record<string, string> = {
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    ...reply.headers,
  };
  let payload: Uint8Array | undefined = reply.raw;
  if (payload === undefined && reply.body !== undefined && reply.status !== 204) {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  res.writeHead(reply.status, headers);
  if (reply.stream !== undefined && method !== 'HEAD') return void writeStream(res, reply.stream);
  res.end(method === 'HEAD' ? undefined : payload);
}

/** writeStream writes each chunk once the socket has taken the one before, so a reader that stops reading stops the writer. */
async function writeStream(res: ServerResponse, stream: NonNullable<Reply['stream']>): Promise<void> {
  for (const chunk of stream.chunks()) {
    if (res.destroyed) return;
    const flushed = res.write(chunk);
    stream.sent(chunk.length);
    if (!flushed) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
  }
  res.end();
}

/** paddedBody yields data and then zeros up to `total` bytes, 1 MiB at a time (one buffer reused: the stand-in's memory stays flat). */
function* paddedBody(data: Uint8Array, total: number): Iterable<Uint8Array> {
  yield data;
  const zeros = new Uint8Array(1024 * 1024);
  for (let left = total - data.length; left > 0; left -= zeros.length) yield left >= zeros.length ? zeros : zeros.subarray(0, left);
}

if (import.meta.main) {
  const standIn = await startGitHubApiStandIn({ port: Number(process.env.PORT ?? 0), host: process.env.HOST });
  process.stdout.write(`${JSON.stringify({ url: standIn.url })}\n`);
  const stop = () => void standIn.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
