import type { ApplicationFunction, Context, Probot } from 'probot';
import type { Store } from '../store/store.ts';
import { createAppState } from './app-state.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { createRecomputer, type RecomputeLimits } from './bench-recompute.ts';
import { commentCommandOf, handleIssueCommentCreated, type IssueCommentPayload } from './issue-comment-created.ts';
import { loadRepoConfig } from './load-repo-config.ts';
import { octokitGitHubClient, type GitHubClient, type OctokitLike } from '../github/github-client.ts';
import type { ParsedConfig } from './app-config.ts';
import { completedRunOf, handleWorkflowRunCompleted, type WorkflowRunPayload } from './workflow-run-completed.ts';

/** CreateAppOptions configure createApp. */
export interface CreateAppOptions {
  store: Store;
  /** apiUrl is the REST API root the Octokit instances talk to (GitHub, GHES, or a test stand-in). */
  apiUrl: string;
  /**
   * botLogin is the app's own login (`<slug>[bot]`), the author of the
   * comments it reconciles. Undefined asks `GET /app` once; null accepts any
   * Bot author (for a token without an app, as in some tests).
   */
  botLogin?: string | null;
  now?: () => Date;
  /**
   * configTtlMs keeps a repository's `.github/benchbot.yml` for this long
   * (default 60000): a busy pull request does not read it per comment, and
   * an edit takes effect within a minute. 0 reads it every time.
   */
  configTtlMs?: number;
  /** recompute lowers the `/bench` recompute's series cap and time budget (defaults in bench-recompute.ts and bench-report.ts). */
  recompute?: RecomputeLimits;
  /** onHandled is called after each delivery with its outcome and duration in ms (the load bench listens). */
  onHandled?: (event: { id: string; name: string; outcome: string; ms: number }) => void;
}

/**
 * createApp wires benchbot's handlers into Probot: one per event, each behind
 * the same guard (runHandler). They run in the job workers (job-workers.ts), after
 * the delivery was stored and answered; the job, keyed by the delivery id, is
 * what makes a delivery GitHub sends twice (or two replicas receive) run
 * once. A handler that throws fails the job, which is retried.
 */
export function createApp(options: CreateAppOptions): ApplicationFunction {
  const state = createAppState(options.store);
  return (app: Probot) => {
    let login: string | null | undefined = options.botLogin;
    const deps: HandlerDeps = {
      state,
      botLogin: async () => (login === undefined ? (login = await resolveBotLogin(app)) : login),
      log: {
        info: (fields, message) => app.log.info(fields, message),
        warn: (fields, message) => app.log.warn(fields, message),
      },
      now: options.now ?? (() => new Date()),
      loadConfig: cachedConfigLoader(options.configTtlMs ?? 60_000),
      recompute: createRecomputer(options.recompute, (missing) => app.log.warn({ missing }, '/bench recompute worker not found; recomputing on the main thread (capped, but other deliveries wait meanwhile)')),
    };

    app.on('issue_comment.created', (context) => {
      const payload = context.payload as IssueCommentPayload;
      return runHandler(options, context, () => commandOnce(payload, deps.log), (command) => handleIssueCommentCreated({ ...deps, delivery: context.id }, clientOf(context, options), payload, command));
    });
    app.on('workflow_run.completed', (context) => {
      const payload = context.payload as WorkflowRunPayload;
      return runHandler(options, context, () => completedRunOf(payload), () => handleWorkflowRunCompleted(deps, clientOf(context, options), payload));
    });
  };
}

/** commands keeps each payload's `/bench` line, found once whether the server's triage or the handler asks first. */
const commands = new WeakMap<object, ReturnType<typeof commentCommandOf>>();
function commandOnce(payload: IssueCommentPayload, log: HandlerDeps['log']): ReturnType<typeof commentCommandOf> {
  if (commands.has(payload)) return commands.get(payload) ?? null;
  const command = commentCommandOf(payload, log);
  commands.set(payload, command);
  return command;
}

/**
 * deliveryIsWork tells from a delivery's event and payload alone whether a
 * handler may act on it: a comment with a `/bench` line from a user on a
 * pull request, or a completed workflow run. Anything else (a plain comment,
 * most of the traffic) is answered without a store write and never queued,
 * since a redelivery of it does nothing either.
 */
export function deliveryIsWork(event: string, payload: unknown, log: HandlerDeps['log']): boolean {
  if (payload === null || typeof payload !== 'object') return false;
  if (event === 'issue_comment') return commandOnce(payload as IssueCommentPayload, log) !== null;
  if (event === 'workflow_run') return completedRunOf(payload as WorkflowRunPayload) !== null;
  return false;
}

/**
 * runHandler runs a delivery's handler and reports its outcome (onHandled). `triage` reads
 * the payload alone and returns null for a delivery that does nothing; the
 * server never queues those (deliveryIsWork), but a handler called another
 * way still answers them without a store write.
 */
async function runHandler<T>(options: CreateAppOptions, context: Context, triage: () => T | null, handle: (found: T) => Promise<string>): Promise<void> {
  const started = performance.now();
  const name = `${context.name}.${(context.payload as { action?: string }).action ?? ''}`;
  const found = triage();
  if (found === null) {
    options.onHandled?.({ id: context.id, name, outcome: 'ignored', ms: performance.now() - started });
    return;
  }
  let outcome: string;
  try {
    outcome = await handle(found);
  } catch (error) {
    options.onHandled?.({ id: context.id, name, outcome: 'error', ms: performance.now() - started });
    throw new Error(`${name} (delivery ${context.id}) failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  options.onHandled?.({ id: context.id, name, outcome, ms: performance.now() - started });
}

function clientOf(context: Context, options: CreateAppOptions) {
  // Effects are retried by looking first (AppState.withEffect), never by re-sending a POST blind.
  return octokitGitHubClient(context.octokit as unknown as OctokitLike, { apiUrl: options.apiUrl, retryWrites: false });
}

/** cachedConfigLoader wraps loadRepoConfig with a per-repository, per-ref cache of `ttlMs` (bounded to 1000 entries). */
function cachedConfigLoader(ttlMs: number): HandlerDeps['loadConfig'] {
  const cache = new Map<string, { at: number; config: Promise<ParsedConfig> }>();
  return (client: GitHubClient, owner: string, repo: string, ref: string) => {
    if (ttlMs <= 0) return loadRepoConfig(client, owner, repo, ref);
    const key = `${owner.toLowerCase()}/${repo.toLowerCase()}@${ref}`;
    const now = Date.now();
    const hit = cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.config;
    if (cache.size >= 1000) cache.delete(cache.keys().next().value as string);
    const config = loadRepoConfig(client, owner, repo, ref);
    cache.set(key, { at: now, config });
    // A failed read is not cached: the next delivery asks again.
    config.catch(() => cache.delete(key));
    return config;
  };
}

/**
 * resolveBotLogin asks GitHub for the app's slug with the app's JWT. A
 * failure throws (and is asked again on the next delivery): guessing could
 * make the app take over another bot's comment.
 */
async function resolveBotLogin(app: Probot): Promise<string> {
  const octokit = (await app.auth()) as unknown as OctokitLike;
  const { data } = await octokit.request('GET /app');
  const slug = (data as { slug?: unknown } | null)?.slug;
  if (typeof slug !== 'string' || slug === '') throw new Error('GET /app returned no slug; set BOT_LOGIN to the app\'s <slug>[bot] login');
  return `${slug}[bot]`;
}
