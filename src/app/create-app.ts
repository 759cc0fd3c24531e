import type { ApplicationFunction, Context, Probot } from 'probot';
import type { Store } from '../store/store.ts';
import { createAppState, type AppState } from './app-state.ts';
import type { ClaimDelivery, HandlerDeps } from './handler-deps.ts';
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
 * the same guard (once), which drops a delivery that does nothing without a
 * store write and claims any other by its delivery id in the Store first, so
 * a delivery GitHub sends twice (or two replicas receive) is handled once. A
 * handler that throws releases its claim, answers 500, and GitHub's
 * redelivery runs it again.
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
      // A command is claimed before anything else: its first step already reads GitHub.
      return once(state, options, context, () => commentCommandOf(payload, deps.log), async (command, claim) => ((await claim()) ? handleIssueCommentCreated(deps, clientOf(context, options), payload, command) : 'duplicate'));
    });
    app.on('workflow_run.completed', (context) => {
      const payload = context.payload as WorkflowRunPayload;
      // A completion claims once it knows the run is one it acts on (most are other workflows: CI, releases).
      return once(state, options, context, () => completedRunOf(payload), (_, claim) => handleWorkflowRunCompleted(deps, clientOf(context, options), payload, claim));
    });
  };
}

/**
 * once runs a delivery's handler at most once. `triage` reads the payload
 * alone and returns null for a delivery that does nothing (a comment without
 * a command, most of the traffic): it is answered without touching the
 * store, since a redelivery of it does nothing either. Otherwise the handler
 * runs with `claim` (ClaimDelivery), which takes the delivery id in the
 * store with compare-and-set before the handler's first effect; a duplicate
 * is dropped there. A claimed delivery is marked done when the handler
 * returns and released when it throws; one the handler never claimed (it
 * found nothing to do after a read) leaves nothing behind.
 */
async function once<T>(state: AppState, options: CreateAppOptions, context: Context, triage: () => T | null, handle: (found: T, claim: ClaimDelivery) => Promise<string>): Promise<void> {
  const started = performance.now();
  const name = `${context.name}.${(context.payload as { action?: string }).action ?? ''}`;
  const found = triage();
  if (found === null) {
    options.onHandled?.({ id: context.id, name, outcome: 'ignored', ms: performance.now() - started });
    return;
  }
  let claimed = false;
  const claim: ClaimDelivery = async () => {
    if (claimed) return true;
    claimed = await state.claimDelivery(context.id, name);
    if (!claimed) context.log.info({ delivery: context.id }, 'delivery already handled; nothing to do');
    return claimed;
  };
  let outcome: string;
  try {
    outcome = await handle(found, claim);
  } catch (error) {
    if (claimed) await state.releaseDelivery(context.id).catch(() => undefined);
    options.onHandled?.({ id: context.id, name, outcome: 'error', ms: performance.now() - started });
    // Without a `status`, the webhook middleware answers 500: a GitHub API 404 must not read as "no such webhook endpoint".
    throw new Error(`${name} (delivery ${context.id}) failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  if (claimed) await state.finishDelivery(context.id, name);
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
