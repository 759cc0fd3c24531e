import type { GitHubClient } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';
import { upsertStickyComment, withMarker } from '../github/sticky-comment.ts';
import type { AppConfig } from './app-config.ts';
import { formatConfigProblems } from './app-config.ts';
import { ANSWER_PERIOD_MS, dispatchKey, replyKey, type AnswerKind, type BenchRequest } from './app-state.ts';
import { inertCode } from '../report/inert-markdown.ts';
import { BENCH_USAGE, findCommandLine, parseCommandLine, type BenchArguments } from './bench-command.ts';
import { renderBenchRunning } from './bench-report.ts';
import { cancelCheckRun, dispatchBench, openCheckRun, writeReportComment } from './bench-effects.ts';
import { REPLY_MARKER, repoOf, type HandlerDeps, type Repo } from './handler-deps.ts';
import { keyedQueue, type KeyedQueue } from './keyed-queue.ts';

/** IssueCommentPayload is the part of an `issue_comment` webhook this handler reads. */
export interface IssueCommentPayload {
  action?: string;
  issue?: { number?: number; pull_request?: unknown };
  comment?: { id?: number; body?: string | null; html_url?: string; created_at?: string; updated_at?: string; user?: { login?: string; type?: string } | null };
  repository?: { name?: string; owner?: { login?: string }; default_branch?: string };
}

/** CommentOutcome says what handleIssueCommentCreated did, for logs and tests. */
export type CommentOutcome = 'ignored' | 'duplicate-comment' | 'help' | 'refused' | 'invalid' | 'closed' | 'withdrawn' | 'head-changed' | 'dispatch-failed' | 'dispatched';

/** WRITE_PERMISSIONS are the collaborator permissions that may run `/bench`. */
const WRITE_ROLES = ['admin', 'maintain', 'write'];

/** CommandComment is the comment a command came from, as handleCommand needs it. */
interface CommandComment {
  id: number;
  login: string;
  /** line is the `/bench` line findCommandLine found (the body is parsed once). */
  line: string;
  createdAt: string;
  htmlUrl: string;
}

/**
 * CommentCommand is an `issue_comment.created` delivery that holds a
 * `/bench` line from a user on a pull request: what commentCommandOf found,
 * and all the handler needs of the payload besides the repository's
 * default branch.
 */
export interface CommentCommand {
  where: Repo;
  pr: number;
  comment: CommandComment;
  /** version is the comment's `updated_at` (its `created_at` when absent): the claim's key, so an edit is a new command. */
  version: string;
}

/**
 * commentCommandOf returns the command a comment delivery carries, or null
 * when the delivery does nothing: not a pull request, a bot, no command
 * (found with a CommonMark parser, once), or no `created_at` to pin the head
 * by (logged). It reads nothing but the payload, so the app decides before
 * touching its store that a plain comment, most of the traffic, costs no
 * write (create-app.ts).
 */
export function commentCommandOf(payload: IssueCommentPayload, log: HandlerDeps['log']): CommentCommand | null {
  if (payload.action !== 'created' || !payload.issue?.pull_request) return null;
  const where = repoOf(payload);
  const comment = payload.comment;
  const pr = payload.issue.number;
  if (where === null || !comment || typeof comment.id !== 'number' || typeof pr !== 'number' || !Number.isInteger(pr)) return null;
  const login = comment.user?.login;
  // Bots never run /bench: it keeps the app from answering itself or another bot in a loop.
  if (typeof login !== 'string' || comment.user?.type !== 'User') return null;
  const line = findCommandLine(typeof comment.body === 'string' ? comment.body : '');
  if (line === null) return null;
  // Without the comment's time the head it saw cannot be pinned: nothing runs.
  const createdAt = comment.created_at;
  if (typeof createdAt !== 'string' || !Number.isFinite(Date.parse(createdAt))) {
    log.warn({ owner: where.owner, repo: where.repo, pr, commentId: comment.id }, 'a /bench comment without created_at; ignored');
    return null;
  }
  const version = typeof comment.updated_at === 'string' ? comment.updated_at : createdAt;
  return { where, pr, version, comment: { id: comment.id, login, line, createdAt, htmlUrl: typeof comment.html_url === 'string' ? comment.html_url : '' } };
}

/**
 * handleIssueCommentCreated runs `/bench` on a pull request. Guards come
 * first and return early (commentCommandOf, unless the caller already ran
 * it and passes its `command`). Then the comment is claimed by its id and
 * `updated_at`: a delivery re-sent under a new delivery id (which the
 * signature does not cover) finds it claimed and changes nothing. Then, in
 * order: the repository's config from the default branch; `/bench help`
 * (answered for anyone); the commenter's permission (write, maintain or admin
 * from the collaborator permission API, or `bench.allow`), else a polite
 * refusal (help and refusals: once an hour per user and pull request); the
 * arguments, else the usage; the pull request's exact base and head SHAs,
 * refused when the comment is gone or the head moved after it was written; the
 * workflow_dispatch with those SHAs and the arguments as typed inputs; the
 * latest-`/bench` record, cancelling a still-running earlier one; a check
 * run in progress on the head; and the sticky comment saying so.
 */
export async function handleIssueCommentCreated(deps: HandlerDeps, client: GitHubClient, payload: IssueCommentPayload, command: CommentCommand | null = commentCommandOf(payload, deps.log)): Promise<CommentOutcome> {
  if (command === null) return 'ignored';
  const { where, pr, comment, version } = command;
  if (!(await deps.state.claimComment(where.owner, where.repo, comment.id, version, deps.delivery))) {
    deps.log.info({ owner: where.owner, repo: where.repo, pr, commentId: comment.id }, 'comment already handled (a delivery sent again); nothing to do');
    return 'duplicate-comment';
  }
  let outcome: CommentOutcome;
  try {
    outcome = await handleCommand(deps, client, payload, { ...where, pr }, comment, version);
  } catch (error) {
    await deps.state.releaseComment(where.owner, where.repo, comment.id, version).catch(() => undefined);
    throw error;
  }
  await deps.state.finishComment(where.owner, where.repo, comment.id, version);
  return outcome;
}

async function handleCommand(deps: HandlerDeps, client: GitHubClient, payload: IssueCommentPayload, target: Repo & { pr: number }, comment: CommandComment, version: string): Promise<CommentOutcome> {
  const where = { owner: target.owner, repo: target.repo };
  const { pr } = target;
  const { login } = comment;
  const first = parseCommandLine(comment.line);
  const defaultBranch = payload.repository?.default_branch || 'main';
  // The permission is asked alongside the config (it is needed unless the commenter is in bench.allow or asks for help).
  const permission = first.kind === 'help' ? null : hasWritePermission(deps, client, where, login);
  permission?.catch(() => undefined);
  const { config, problems } = await deps.loadConfig(client, where.owner, where.repo, defaultBranch);
  const configNote = formatConfigProblems(problems);

  if (first.kind === 'help' || permission === null) {
    if (!(await answerOnce(deps, target, 'help', login))) return 'help';
    await answering(deps, target, 'help', login, reply(deps, client, target, login, ['here is how to run benchmarks on this pull request:', '', BENCH_USAGE, '', `Only people with write access${config.bench.allow.length > 0 ? ' (or listed under `bench.allow`)' : ''} can start a run.`], configNote));
    return 'help';
  }

  const allowed = config.bench.allow.some((name) => name.toLowerCase() === login.toLowerCase());
  if (!allowed && !(await permission)) {
    if (!(await answerOnce(deps, target, 'refused', login))) return 'refused';
    await answering(deps, target, 'refused', login, reply(deps, client, target, login, [`thanks for your interest! \`/bench\` runs this pull request's code on the project's own benchmark machines, so only people with write access to the repository${config.bench.allow.length > 0 ? ' or listed under `bench.allow` in `.github/benchbot.yml`' : ''} can start it. A maintainer can comment \`/bench\` for you.`], configNote));
    return 'refused';
  }

  const command = parseCommandLine(comment.line, { maxRuns: config.bench.maxRuns, runners: config.bench.runners });
  if (command.kind === 'help') return 'ignored';
  if (command.kind === 'invalid') {
    await Promise.all([
      react(client, where, comment.id, 'confused'),
      reply(deps, client, target, login, [`I could not run that \`/bench\`:`, '', ...command.problems.map((p) => `- ${p}`), '', 'Usage:', '', BENCH_USAGE], configNote),
    ]);
    return 'invalid';
  }

  const [, pull] = await Promise.all([
    react(client, where, comment.id, 'eyes'),
    client.request<PullRequest>('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', { ...where, pull_number: pr }),
  ]);
  if (pull.state !== 'open') {
    await reply(deps, client, target, login, [`this pull request is ${pull.state === 'closed' ? 'closed' : `in state \`${pull.state}\``}, so there is nothing to benchmark.`], configNote);
    return 'closed';
  }
  // Read after the pull request: a push in between shows in the timeline, so the head read above is never newer than what is checked.
  const moved = await headMovedAfter(deps, client, target, comment, pull);
  if (moved === WITHDRAWN) {
    await reply(deps, client, target, login, [
      'your `/bench` comment is no longer on this pull request (it was deleted), so I did not start a run: without it I cannot tell which head you approved.',
      '',
      `Comment \`/bench\` again to measure \`${pull.head.sha.slice(0, 12)}\`.`,
    ], configNote);
    deps.log.info({ owner: where.owner, repo: where.repo, pr, commentId: comment.id }, 'the /bench comment is gone from the timeline; not run');
    return 'withdrawn';
  }
  if (moved !== null) {
    await Promise.all([
      react(client, where, comment.id, 'confused'),
      reply(deps, client, target, login, [
        `the head of this pull request changed after your comment, or may have (${moved}), so I did not start a run: \`/bench\` measures exactly the commit you saw when you wrote it.`,
        '',
        `Look at the new commits, then comment \`/bench\` again to measure \`${pull.head.sha.slice(0, 12)}\`.`,
      ], configNote),
    ]);
    deps.log.info({ owner: where.owner, repo: where.repo, pr, commentId: comment.id, head: pull.head.sha }, 'head moved after the /bench comment; not run');
    return 'head-changed';
  }

  const inputs = workflowInputs(pr, pull.base.sha, pull.head.sha, command, config);
  let run: { id: number | null; url: string | null };
  let dispatchedAt = deps.now().toISOString();
  try {
    const made = await dispatchBench(deps, client, where, config.bench.workflow, defaultBranch, inputs, dispatchKey(where.owner, where.repo, pr, comment.id, version), dispatchedAt);
    run = { id: made.id === 0 ? null : made.id, url: made.url };
    dispatchedAt = made.at;
  } catch (error) {
    if (!(error instanceof GitHubError) || error.status >= 500 || error.status === 0) throw error;
    const hint = error.status === 404
      ? `There is no workflow \`${config.bench.workflow}\` on \`${defaultBranch}\` (set \`bench.workflow\` in \`.github/benchbot.yml\`, see the app's docs), or the app may not run it.`
      : `GitHub answered ${error.status}${error.githubMessage ? `: ${oneLine(error.githubMessage)}` : ''}. If it names unexpected inputs, declare them under \`on.workflow_dispatch.inputs\` of \`${config.bench.workflow}\`.`;
    await Promise.all([react(client, where, comment.id, 'confused'), reply(deps, client, target, login, [`I could not start the benchmark workflow. ${hint}`], configNote)]);
    return 'dispatch-failed';
  }

  // A retry of this handler after its run was reported (the replica died after recording the check run): nothing to open again.
  if (run.id !== null && (await deps.state.getRun(where.owner, where.repo, run.id))?.value.status === 'reported') return 'dispatched';

  // The check run is opened alongside the state and the comment (one per head: a concurrent /bench on it shares it); its id joins the state when it comes back.
  const creatingCheck = openCheckRun(deps, client, where, pr, pull.head.sha, {
    detailsUrl: run.url,
    externalId: run.id === null ? null : String(run.id),
    startedAt: deps.now().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    title: 'Benchmarking',
    summary: `\`/bench\` by @${login}: measuring head \`${pull.head.sha.slice(0, 12)}\` against base \`${pull.base.sha.slice(0, 12)}\`.`,
  });

  const request: BenchRequest = {
    owner: where.owner,
    repo: where.repo,
    pr,
    base: pull.base.sha,
    head: pull.head.sha,
    requestedBy: login,
    commentId: comment.id,
    commentUrl: comment.htmlUrl,
    args: Object.fromEntries(Object.entries(inputs).filter(([k]) => !['pr-number', 'base', 'head'].includes(k))),
    workflow: config.bench.workflow,
    runId: run.id,
    runUrl: run.url,
    checkRunId: null,
    status: 'running',
    dispatchedAt,
    at: deps.now().toISOString(),
  };
  if (request.runId !== null) await deps.state.putRun({ ...request, runId: request.runId });
  else await deps.state.putUnnamed(request);
  const previous = await recordLatest(deps, request);
  const notes: string[] = [];
  const retiring = previous === null ? null : retire(deps, client, previous, request);
  if (previous !== null) {
    notes.push(`This \`/bench\` replaces the one by @${previous.requestedBy} at \`${previous.head.slice(0, 12)}\`${previous.runUrl ? ` ([run](${previous.runUrl}))` : ''}, which was cancelled: one \`/bench\` runs per pull request.`);
  }
  if (Object.keys(request.args).length > 0) notes.push(`Arguments: ${Object.entries(request.args).map(([k, v]) => `${inertCode(k)} = ${inertCode(v.replace(/\n/g, ', '))}`).join(', ')}.`);
  if (run.id === null) notes.push('GitHub did not name the dispatched run: its report is matched to this request by workflow, the app as its actor, and time.');
  notes.push(configNote);
  const [checkRunId] = await Promise.all([
    creatingCheck,
    retiring,
    writeReportComment(deps, client, where, pr, renderBenchRunning({ requestedBy: login, commentUrl: request.commentUrl, base: request.base, head: request.head, runUrl: run.url, notes })),
  ]);
  // The check run's id is recorded last: until then the run's completion waits (handleWorkflowRunCompleted), so that it is never
  // reported before this in-progress check run and comment are made (a completion that came while this handler's replica was dead).
  request.checkRunId = checkRunId;
  if (request.runId !== null) await deps.state.putRun({ ...request, runId: request.runId });
  const latest = await deps.state.getBench(request.owner, request.repo, request.pr);
  if (latest?.value.runId === request.runId && latest.value.at === request.at) await deps.state.setBench({ ...latest.value, checkRunId }, latest.version);
  // Replaced meanwhile by a /bench on another head, whose retire may have looked before this check run was open: it is closed here.
  else if (latest !== undefined && latest.value.head !== request.head) await cancelCheckRun(deps, client, request, checkRunId, latest.value);
  deps.log.info({ owner: where.owner, repo: where.repo, pr, head: request.head, runId: run.id }, 'dispatched /bench');
  return 'dispatched';
}

/** PullRequest is the part of a pull request handleCommand reads. */
interface PullRequest {
  state: string;
  head: { sha: string; repo: { full_name?: string; pushed_at?: string | null } | null };
  base: { sha: string };
}

/** TimelineItem is the part of an issue timeline item headMovedAfter reads. */
interface TimelineItem {
  event?: string;
  id?: number;
  sha?: string;
  commit_id?: string | null;
  created_at?: string;
  committer?: { date?: string };
}

/** HEAD_EVENTS are the timeline events (besides `committed`) that set a pull request's head. */
const HEAD_EVENTS = new Set(['head_ref_force_pushed', 'head_ref_restored']);

/** WITHDRAWN is headMovedAfter's answer when the command comment is gone: not in the timeline, and GitHub answers 404 for it. */
const WITHDRAWN = Symbol('withdrawn');

/**
 * headMovedAfter tells whether the pull request's head may have moved after
 * the comment was written (a reason, to show), whether the comment is gone
 * (WITHDRAWN), or neither (null). GitHub's REST API has no push time for a
 * commit: a `committed` timeline event carries the commit's own dates, which
 * the pusher chooses, and GitHub documents no order for the timeline (it
 * has shown pull request commits in commit-date order; its GraphQL
 * `pushedDate` was removed in 2023 as incorrect). So the one signal that
 * decides is a time GitHub's clock set:
 *
 * - the head repository's `pushed_at`, from the pull request read before the
 *   timeline: at or after the comment's `created_at`, something was pushed
 *   to the repository the head lives in after the comment, maybe this head
 *   (a push to another branch of it refuses an honest `/bench` too; the
 *   reply asks for a new one). No head repository (a deleted fork): refused.
 *
 * The timeline adds refusals, never removes one: a `committed` or
 * head-setting event listed after the comment; a force push or restore
 * whose `created_at` is after it; a commit whose committer date is after
 * it. A comment that is not in the timeline and that GitHub no longer has
 * (deleted seconds later) is WITHDRAWN: nothing runs without the approval
 * it was. One that GitHub has but does not list yet is judged by time.
 */
async function headMovedAfter(deps: HandlerDeps, client: GitHubClient, target: Repo & { pr: number }, comment: CommandComment, pull: PullRequest): Promise<string | typeof WITHDRAWN | null> {
  const items = await client.paginate<TimelineItem>('/repos/{owner}/{repo}/issues/{issue_number}/timeline', { owner: target.owner, repo: target.repo, issue_number: target.pr });
  const at = Date.parse(comment.createdAt);
  const index = items.findIndex((item) => item.event === 'commented' && item.id === comment.id);
  if (index === -1) {
    // Deleted, or not listed yet (GitHub's reads may lag its writes by a moment): the comment itself says which.
    if (!(await commentExists(client, target, comment.id))) return WITHDRAWN;
    deps.log.warn({ owner: target.owner, repo: target.repo, pr: target.pr, commentId: comment.id }, 'the /bench comment exists but the timeline does not list it yet; judging pushes by time alone');
  }
  const short = (sha: unknown) => (typeof sha === 'string' && /^[0-9a-f]{7,64}$/i.test(sha) ? `\`${sha.slice(0, 12)}\`` : 'a commit');
  for (const [i, item] of items.entries()) {
    const listedAfter = index !== -1 && i > index;
    if (item.event === 'committed') {
      if (listedAfter || Date.parse(item.committer?.date ?? '') > at) return `${short(item.sha)} was pushed`;
    } else if (HEAD_EVENTS.has(item.event ?? '')) {
      if (listedAfter || Date.parse(item.created_at ?? '') > at) return `the branch was ${item.event === 'head_ref_restored' ? 'restored' : 'force-pushed'} to ${short(item.commit_id)}`;
    }
  }
  const headRepo = pull.head.repo;
  if (headRepo === null) return 'the repository of its head branch is gone, so I cannot tell when the head was pushed';
  const pushedAt = Date.parse(headRepo.pushed_at ?? '');
  // Seconds on both sides: a push in the comment's second counts as after it.
  if (!(pushedAt < Math.floor(at / 1000) * 1000)) {
    deps.log.info({ owner: target.owner, repo: target.repo, pr: target.pr, commentId: comment.id, pushedAt: headRepo.pushed_at }, 'the head repository was pushed to at or after the /bench comment');
    return Number.isFinite(pushedAt) ? `its head repository was pushed to at ${new Date(pushedAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}, after the comment` : 'GitHub did not say when its head repository was last pushed to';
  }
  return null;
}

/** commentExists asks GitHub for the comment itself: false when it is gone (404). */
async function commentExists(client: GitHubClient, where: Repo, commentId: number): Promise<boolean> {
  try {
    await client.request('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: where.owner, repo: where.repo, comment_id: commentId });
    return true;
  } catch (error) {
    if (error instanceof GitHubError && error.status === 404) return false;
    throw error;
  }
}

/**
 * hasWritePermission asks GitHub for the commenter's permission on the
 * repository; `author_association` is not enough (an org MEMBER may have
 * read access only). A user GitHub does not know as a collaborator (404)
 * has none.
 */
function hasWritePermission(deps: HandlerDeps, client: GitHubClient, where: Repo, login: string): Promise<boolean> {
  // One at a time per user: a burst of comments asks GitHub once, the rest find the answer kept.
  return oneAtATime(deps.state, `permission:${where.owner}/${where.repo}:${login}`.toLowerCase(), () => askWritePermission(deps, client, where, login));
}

async function askWritePermission(deps: HandlerDeps, client: GitHubClient, where: Repo, login: string): Promise<boolean> {
  if (await deps.state.hasNoWriteAccess(where.owner, where.repo, login, deps.now())) return false;
  let canWrite: boolean;
  try {
    const answer = await client.request<{ permission?: string; role_name?: string; user?: { permissions?: { push?: boolean } } | null }>('GET', '/repos/{owner}/{repo}/collaborators/{username}/permission', { ...where, username: login });
    canWrite = answer.permission === 'admin' || answer.permission === 'write' || WRITE_ROLES.includes(answer.role_name ?? '') || answer.user?.permissions?.push === true;
  } catch (error) {
    if (!(error instanceof GitHubError && (error.status === 404 || error.status === 403))) throw error;
    canWrite = false;
  }
  // Only "no" is kept: it is what a flood of comments asks again and again, and a revoked grant is never reused.
  if (!canWrite) await deps.state.putNoWriteAccess(where.owner, where.repo, login, deps.now());
  return canWrite;
}

/** answering waits for an answer's reply; when it fails, the answer is forgotten, so GitHub's redelivery answers. */
async function answering(deps: HandlerDeps, target: Repo & { pr: number }, kind: AnswerKind, login: string, replied: Promise<void>): Promise<void> {
  try {
    await replied;
  } catch (error) {
    await deps.state.releaseAnswer(target.owner, target.repo, target.pr, kind, login).catch(() => undefined);
    throw error;
  }
}

/**
 * answerOnce tells whether `login` may be answered `kind` on this pull
 * request now: once per ANSWER_PERIOD_MS. A refusal costs a reply, so
 * without it every comment of an account without access would spend the
 * installation's API budget (5,000 requests an hour, shared by every
 * repository it covers); later ones are only logged.
 */
async function answerOnce(deps: HandlerDeps, target: Repo & { pr: number }, kind: AnswerKind, login: string): Promise<boolean> {
  if (await deps.state.claimAnswer(target.owner, target.repo, target.pr, kind, login, deps.now())) return true;
  deps.log.info({ owner: target.owner, repo: target.repo, pr: target.pr, login, kind }, `${kind === 'help' ? '/bench help' : 'a refused /bench'} from a user answered within the last ${ANSWER_PERIOD_MS / 60_000} minutes; not answered again`);
  return false;
}

/**
 * workflowInputs builds the typed workflow_dispatch inputs. Every value is a
 * string that GitHub hands to the workflow as `inputs.<name>`; none is
 * spliced into a script here, and the workflow passes them through `env:`.
 */
function workflowInputs(pr: number, base: string, head: string, args: BenchArguments, config: AppConfig): Record<string, string> {
  const inputs: Record<string, string> = { 'pr-number': String(pr), base, head };
  if (args.filter !== null) inputs.filter = args.filter;
  if (args.runs !== null) inputs.runs = String(args.runs);
  if (args.runner !== null) inputs.runner = args.runner;
  if (args.threshold !== null) inputs.threshold = args.threshold;
  // Only when asked: a /bench workflow written before the input existed still takes every other /bench.
  if (args.instructions) inputs.instructions = 'true';
  if (config.thresholds.length > 0) inputs.thresholds = config.thresholds.map((r) => `${r.glob}=${Number((r.threshold * 100).toFixed(3))}%`).join('\n');
  return inputs;
}

/**
 * recordLatest makes `request` the pull request's latest `/bench` with
 * compare-and-set (two replicas, two comments at once), and returns the
 * request it replaced if that one was still running.
 */
async function recordLatest(deps: HandlerDeps, request: BenchRequest): Promise<BenchRequest | null> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = await deps.state.getBench(request.owner, request.repo, request.pr);
    // The same command again (a retried handler, its dispatch reused) replaces nothing.
    const same = current !== undefined && current.value.commentId === request.commentId && current.value.runId === request.runId && current.value.dispatchedAt === request.dispatchedAt;
    if (await deps.state.setBench(request, current?.version ?? null)) return current?.value.status === 'running' && !same ? current.value : null;
  }
  throw new Error(`could not record the /bench on ${request.owner}/${request.repo}#${request.pr}: the state kept changing`);
}

/** retire cancels a replaced run and completes its check run as cancelled; both may already be over. */
async function retire(deps: HandlerDeps, client: GitHubClient, previous: BenchRequest, by: BenchRequest): Promise<void> {
  const where = { owner: previous.owner, repo: previous.repo };
  const cancel = async (runId: number) => {
    await deps.state.putRun({ ...previous, runId, status: 'replaced' });
    try {
      await client.request('POST', '/repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { ...where, run_id: runId });
    } catch (error) {
      // 409: it already finished; 404: it is gone. Either way it no longer runs.
      if (!(error instanceof GitHubError && (error.status === 409 || error.status === 404))) throw error;
    }
  };
  const cancelling = previous.runId === null ? null : cancel(previous.runId);
  cancelling?.catch(() => undefined);
  // On the same head the check run is shared (openCheckRun): the newer /bench carries it on.
  if (previous.head !== by.head) {
    // A /bench right after another may find the earlier check run id only in the run record (or, while it is being opened, only under its effect key).
    const checkRunId = previous.checkRunId ?? (previous.runId === null ? null : (await deps.state.getRun(previous.owner, previous.repo, previous.runId))?.value.checkRunId ?? null);
    await cancelCheckRun(deps, client, previous, checkRunId, by);
  }
  await cancelling;
}

async function react(client: GitHubClient, where: Repo, commentId: number, content: 'eyes' | 'confused'): Promise<void> {
  try {
    await client.request('POST', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', { ...where, comment_id: commentId, content });
  } catch (error) {
    // A reaction is a courtesy; a deleted comment must not stop the command.
    if (!(error instanceof GitHubError && error.status < 500)) throw error;
  }
}

/**
 * reply writes the app's one reply comment on the pull request, as an effect
 * (withEffect under `reply:`): replies at the same moment, in this process
 * or on two replicas, take turns, and each after the first PATCHes the
 * comment the first made; only the first reply on a pull request (or one
 * after the comment was deleted) lists the comments to find or create it.
 */
async function reply(deps: HandlerDeps, client: GitHubClient, target: Repo & { pr: number }, login: string, lines: string[], configNote: string): Promise<void> {
  const body = [`@${login}, ${lines[0]}`, ...lines.slice(1), ...(configNote ? ['', configNote] : [])].join('\n');
  await deps.state.withEffect(replyKey(target.owner, target.repo, target.pr), (last) => writeReply(deps, client, target, body, last?.id));
}

async function writeReply(deps: HandlerDeps, client: GitHubClient, target: Repo & { pr: number }, body: string, known: number | undefined): Promise<{ id: number } | null> {
  if (known !== undefined) {
    try {
      await client.request('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { owner: target.owner, repo: target.repo, comment_id: known, body: withMarker(REPLY_MARKER, body) });
      return { id: known };
    } catch (error) {
      // Deleted: found or created again below.
      if (!(error instanceof GitHubError && error.status === 404)) throw error;
    }
  }
  const written = await upsertStickyComment(client, { owner: target.owner, repo: target.repo, issueNumber: target.pr, marker: REPLY_MARKER, botLogin: await deps.botLogin(), body });
  return written.id === undefined ? null : { id: written.id };
}

/** queues holds, per app (its state), the queue oneAtATime runs tasks in. */
const queues = new WeakMap<object, KeyedQueue>();

/**
 * oneAtATime runs `task` after the tasks already queued under `key` for this
 * app have settled, whatever their outcome. Deliveries are handled
 * concurrently; this keeps a burst on one pull request or from one user to
 * one GitHub request at a time within a process (replicas still race, as
 * the state's compare-and-set and the sticky comment's reconciliation allow).
 */
function oneAtATime<T>(scope: object, key: string, task: () => Promise<T>): Promise<T> {
  let queue = queues.get(scope);
  if (queue === undefined) queues.set(scope, (queue = keyedQueue()));
  return queue(key, task);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/`/g, "'").slice(0, 300);
}
