import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Probot, ProbotOctokit } from 'probot';
import type { JobStats, LeasedJob, Store } from '../store/store.ts';
import { createApp, deliveryIsWork, type CreateAppOptions } from './create-app.ts';
import { DO_NOT_RETRY, throttleOptions } from '../github/github-client.ts';
import { JOB_DEFAULTS, startJobWorkers, type JobLog, type JobSettings } from './job-workers.ts';
import { createWebhookBodyReader, WEBHOOK_BODY_TIMEOUT_MS, type WebhookBodyLimits } from './webhook-body.ts';
import { createWritePacing, NOTIFYING_WRITE_SPACING_MS, WRITE_SPACING_MS, type WritePacing } from './write-pacing.ts';

/** WEBHOOK_PATH is where GitHub delivers webhooks (Probot's default). */
export const WEBHOOK_PATH = '/api/github/webhooks';

/** HEALTH_PATH answers 200 when the app can reach its store, 503 otherwise. */
export const HEALTH_PATH = '/healthz';

/**
 * HEADERS_TIMEOUT_MS is how long a client may take to send a request's
 * headers, 10 s (Node's default is 60 s): GitHub sends them at once, and a
 * connection trickling them only holds a socket.
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/**
 * REQUEST_TIMEOUT_MS is how long a whole request (headers and body) may take
 * to arrive, 25 s (Node's default is 300 s): the headers' time and the
 * webhook body deadline (webhook-body.ts), which answers first with a clearer
 * 408; this backstop covers a body nobody reads (a request to another path).
 */
export const REQUEST_TIMEOUT_MS = HEADERS_TIMEOUT_MS + WEBHOOK_BODY_TIMEOUT_MS;

/** STATUS_LOG_MS is how often a replica logs its queue and pacing backlog while there is one. */
const STATUS_LOG_MS = 30_000;

/** HANDOFF_MAX bounds the parsed payloads kept for this replica's own workers (a job another replica takes is parsed there from the store). */
const HANDOFF_MAX = 1000;

/** TIMEOUT_CHECK_INTERVAL_MS is how often Node looks for requests past those timeouts (its default, 30 s, would let one run 30 s over). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * AppServerOptions configure startAppServer. Give either `appId` and
 * `privateKey` (a GitHub App: JWT, then installation tokens per event) or
 * `githubToken` (one token for everything; for tests and single-repository
 * setups). `secret` verifies every delivery's X-Hub-Signature-256.
 */
export interface AppServerOptions {
  appId?: string | number;
  privateKey?: string;
  githubToken?: string;
  secret: string;
  /**
   * previousSecrets also verify deliveries, while a webhook secret is being
   * rotated (WEBHOOK_SECRET_PREVIOUS): GitHub signs with whichever secret its
   * settings hold at the moment, so during the change both must be accepted
   * or deliveries are lost (docs/app.md, Deployment).
   */
  previousSecrets?: string[];
  /** apiUrl is the REST API root: https://api.github.com, GHES's https://HOST/api/v3, or a stand-in. */
  apiUrl: string;
  store: Store;
  port?: number;
  host?: string;
  botLogin?: string | null;
  /**
   * writeIntervalMs spaces writes (POST, PATCH, PUT, DELETE) per installation.
   * Undefined keeps GitHub's guidance as Probot's throttling plugin applies it
   * (one write per second, three seconds between content-creating writes);
   * a number (0 on a loopback stand-in) replaces both spacings.
   */
  writeIntervalMs?: number;
  /**
   * throttle turns Probot's throttling plugin off with false (default true).
   * Off, rate-limit answers are not waited out; only the retry plugin (5xx,
   * network) remains. For loopback tests and the load bench, where the
   * plugin's queues cost more than the stand-in itself.
   */
  throttle?: boolean;
  configTtlMs?: CreateAppOptions['configTtlMs'];
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  logFormat?: 'json' | 'pretty';
  now?: CreateAppOptions['now'];
  onHandled?: CreateAppOptions['onHandled'];
  /** recompute lowers the `/bench` recompute's series cap and time budget (default 10,000 series, 60 s; bench-recompute.ts). */
  recompute?: CreateAppOptions['recompute'];
  /** webhookBodyLimits lower the delivery body bounds (default 25 MiB each, 25 MiB in flight per client and 100 MiB in all, 15 s to arrive; see webhook-body.ts). */
  webhookBodyLimits?: WebhookBodyLimits;
  /** jobs tune the workers (lease, poll, concurrency, attempts, backoff, retention); defaults in JOB_DEFAULTS (job-workers.ts). */
  jobs?: Partial<JobSettings>;
  /** dashboard answers the GET and HEAD requests it claims (true): `benchbot serve --dashboard` (dashboard/dashboard-handler.ts). */
  dashboard?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

/** AppServer is a running app: its URL, its Probot, and close(). */
export interface AppServer {
  url: string;
  webhookUrl: string;
  probot: Probot;
  /** replica names this server's workers in the job leases they hold. */
  replica: string;
  /** close stops answering, lets the running jobs finish for up to graceMs (default: the jobs' graceMs, 25 s) and gives the rest back to the queue. */
  close(graceMs?: number): Promise<void>;
}

/**
 * startAppServer starts the app on node:http with short header and request
 * timeouts (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS) and the body bounds (413
 * past 25 MiB, 429 past a client's share of the in-flight budget, 503 past
 * the whole, 408 past the deadline; webhook-body.ts). A delivery to
 * WEBHOOK_PATH is answered as soon as it is verified (400 for a missing or
 * wrong signature), triaged from its payload alone (200 `ignored` for one
 * that does nothing) and stored as a job under its delivery id (200
 * `queued`; 200 `duplicate` for a stored id; 503 when the store cannot take
 * it, so GitHub shows it failed and it can be redelivered). The handlers run
 * in the job workers (job-workers.ts), on this replica or any other on the
 * same store, with Octokit's retry (5xx, network) and throttling (write
 * pacing per installation, primary and secondary rate limits) plugins: what
 * GitHub's limits ask is waited out in a worker, never in a webhook answer.
 * GET HEALTH_PATH shows the store, the queue and the pacing backlog.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const throttle = options.throttle ?? true;
  const pacing = createWritePacing(options.store, options.writeIntervalMs);
  const probot = new Probot({
    appId: options.appId,
    privateKey: options.privateKey,
    githubToken: options.githubToken,
    secret: options.secret,
    baseUrl: options.apiUrl,
    Octokit: octokitClass(pacing, throttle),
    logLevel: options.logLevel ?? 'info',
    logFormat: options.logFormat ?? 'json',
  });
  const appFn = createApp({ store: options.store, apiUrl: options.apiUrl, botLogin: options.botLogin, now: options.now, configTtlMs: options.configTtlMs, onHandled: options.onHandled, recompute: options.recompute });
  await probot.load(appFn);
  const settings: JobSettings = { ...JOB_DEFAULTS, ...options.jobs };
  const log: JobLog = probot.log;
  // A job this replica stored is usually run here: its payload is handed over parsed rather than read back and parsed again.
  const handoff = new Map<string, unknown>();
  const run = async (job: LeasedJob) => {
    const parsed = handoff.get(job.id);
    handoff.delete(job.id);
    const payload = parsed ?? JSON.parse(job.payload);
    await probot.receive({ id: job.id, name: job.event, payload } as Parameters<Probot['receive']>[0]);
  };
  const workers = startJobWorkers({ store: options.store, settings, run, log });
  const status = setInterval(() => {
    void options.store.jobStats(Date.now()).then((queue) => {
      const backlog = pacing.backlog();
      if (queue.ready + queue.leased > 0 || backlog.length > 0) probot.log.info({ queue: queueView(queue, Date.now()), running: workers.running(), pacing: backlog.slice(0, 10) }, 'queue and write pacing');
    }, () => undefined);
  }, STATUS_LOG_MS);
  status.unref();

  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (req, res) => {
    void route(req, res).catch((error: unknown) => {
      probot.log.error({ err: error }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
    });
  });
  const readBody = createWebhookBodyReader(options.webhookBodyLimits);
  const secrets = [options.secret, ...(options.previousSecrets ?? []).filter((key) => key !== '')];
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) return health(options.store, res, { replica: workers.owner, running: workers.running(), concurrency: settings.concurrency, leaseMs: settings.leaseMs, maxAttempts: settings.maxAttempts }, pacing, throttle, options.writeIntervalMs);
    if (options.dashboard && (req.method === 'GET' || req.method === 'HEAD') && (await options.dashboard(req, res))) return;
    // Every POST is read here, capped, or refused unread.
    if (req.method === 'POST') {
      if (!isWebhookPath(req.url)) return void res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' }).end('not found\n');
      const body = await readBody(req, res);
      if (body === undefined) return;
      try {
        await accept(req, res, body.text);
      } finally {
        body.release();
      }
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  }

  async function accept(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const started = performance.now();
    const answer = (status: number, message: string) => void res.writeHead(status, { 'content-type': 'text/plain' }).end(`${message}\n`);
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : '');
    const signature = header('x-hub-signature-256');
    if (signature === '') return answer(400, 'signature missing: a delivery must carry X-Hub-Signature-256');
    if (!verifies(text, signature, secrets)) return answer(400, 'signature does not match: check the webhook secret');
    const event = header('x-github-event');
    const id = header('x-github-delivery');
    if (event === '' || id === '') return answer(400, 'X-GitHub-Event and X-GitHub-Delivery are required');
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return answer(400, 'the body is not JSON');
    }
    const name = `${event}.${(payload as { action?: unknown } | null)?.action ?? ''}`;
    if (!deliveryIsWork(event, payload, log)) {
      options.onHandled?.({ id, name, outcome: 'ignored', ms: performance.now() - started });
      return answer(200, 'ignored');
    }
    const installation = (payload as { installation?: { id?: unknown } }).installation?.id;
    let outcome;
    try {
      outcome = await options.store.enqueueJob({ id, event, installation: typeof installation === 'number' ? installation : null, payload: text }, Date.now());
    } catch (error) {
      probot.log.error({ delivery: id, err: error }, 'could not store a delivery; answered 503 (redeliver it from GitHub)');
      return answer(503, 'the store is unavailable; redeliver later');
    }
    if (outcome === 'duplicate') {
      probot.log.info({ delivery: id, event: name }, 'delivery already stored; nothing to do');
      options.onHandled?.({ id, name, outcome: 'duplicate', ms: performance.now() - started });
      return answer(200, 'duplicate');
    }
    if (handoff.size >= HANDOFF_MAX) handoff.delete(handoff.keys().next().value as string);
    handoff.set(id, payload);
    workers.wake();
    probot.log.info({ delivery: id, event: name, outcome }, 'delivery queued');
    answer(200, outcome);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    webhookUrl: `${url}${WEBHOOK_PATH}`,
    probot,
    replica: workers.owner,
    async close(graceMs = settings.graceMs) {
      clearInterval(status);
      const closed = new Promise<void>((resolve, reject) => {
        server.closeIdleConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
      await workers.close(graceMs);
      await closed;
    },
  };
}

/** verifies checks X-Hub-Signature-256 against each secret (the current one, and a previous one while rotating), in constant time. */
function verifies(body: string, given: string, secrets: string[]): boolean {
  if (!given.startsWith('sha256=')) return false;
  const expected = Buffer.from(given);
  return secrets.some((key) => {
    const mine = Buffer.from(`sha256=${createHmac('sha256', key).update(body).digest('hex')}`);
    return mine.length === expected.length && timingSafeEqual(mine, expected);
  });
}

/** isWebhookPath matches the path as @octokit/webhooks does (trailing slashes dropped from the whole URL, then the pathname). */
function isWebhookPath(url: string | undefined): boolean {
  try {
    return new URL((url ?? '/').replace(/\/+$/, '') || '/', 'http://app').pathname === WEBHOOK_PATH;
  } catch {
    return false;
  }
}

/**
 * health answers 200 while the store answers (503 otherwise), with the
 * queue (jobs waiting, retrying, leased, leases run out, dead, the oldest
 * waiting delivery's age and the newest dead ones), this replica's workers,
 * and the write pacing: its spacing, the writes waiting in this replica per
 * installation, and how far ahead every replica has booked each
 * installation's writes (`write:<id>`, `notify:<id>`).
 */
async function health(store: Store, res: ServerResponse, workers: Record<string, unknown>, pacing: WritePacing, throttle: boolean, writeIntervalMs: number | undefined): Promise<void> {
  try {
    await store.getState('health:probe');
    const now = Date.now();
    const queue = await store.jobStats(now);
    const body = {
      status: 'ok',
      store: store.kind,
      queue: queueView(queue, now),
      workers,
      pacing: throttle
        ? { writeSpacingMs: writeIntervalMs ?? WRITE_SPACING_MS, notifyingWriteSpacingMs: writeIntervalMs ?? NOTIFYING_WRITE_SPACING_MS, backlog: pacing.backlog(), bookedAhead: await store.pacingAhead(now) }
        : { off: true, backlog: [], bookedAhead: [] },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
  } catch (error) {
    res.writeHead(503, { 'content-type': 'application/json' }).end(`${JSON.stringify({ status: 'unavailable', store: store.kind, error: String((error as Error)?.message ?? error) })}\n`);
  }
}

/** queueView is JobStats as /healthz and the status log show it: ages instead of times. */
function queueView(queue: JobStats, now: number) {
  return {
    depth: queue.ready + queue.leased,
    ready: queue.ready,
    retrying: queue.retrying,
    leased: queue.leased,
    expiredLeases: queue.expiredLeases,
    dead: queue.dead,
    oldestAgeMs: queue.oldestReceivedMs === null ? null : Math.max(0, now - queue.oldestReceivedMs),
    newestDead: queue.newestDead.map((j) => ({ id: j.id, event: j.event, attempts: j.attempts, at: new Date(j.dueMs).toISOString(), error: j.lastError })),
  };
}

/**
 * octokitClass returns Probot's Octokit with benchbot's rate-limit policy,
 * the throttling handlers of the action's client (throttleOptions): primary
 * and secondary limits are waited out (GitHub's `retry-after`, or the reset
 * time) and retried twice when the wait is at most two minutes, each wait
 * logged; Probot's own default gives up on secondary limits at once. Writes
 * are spaced per installation, across the replicas on the store, by `pacing`
 * (GitHub's spacing by default), which /healthz reads. The retry plugin repeats 5xx and network
 * errors, never what DO_NOT_RETRY lists. With throttle false the plugin is off.
 */
function octokitClass(pacing: WritePacing, throttle: boolean): typeof ProbotOctokit {
  if (!throttle) return ProbotOctokit.defaults((instance: { throttle?: Record<string, unknown>; retry?: Record<string, unknown> }) => ({ ...instance, throttle: { ...instance.throttle, enabled: false }, retry: { ...instance.retry, doNotRetry: DO_NOT_RETRY } })) as typeof ProbotOctokit;
  const limits = throttleOptions({ maxRetries: 2, maxWaitMs: 120_000, sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)) });
  type Handler = typeof limits.onRateLimit;
  const logged = (kind: string, handler: Handler): Handler => (retryAfter, options, octokit, retryCount) => {
    const request = options as { method?: string; url?: string };
    (octokit as { log?: { warn(fields: object, message: string): void } } | undefined)?.log?.warn({ retryAfterSeconds: retryAfter, retryCount, method: request.method, url: request.url }, `GitHub ${kind} rate limit: waiting as it asks, in the worker`);
    return handler(retryAfter, options, octokit, retryCount);
  };
  return ProbotOctokit.defaults((instance: { throttle?: Record<string, unknown>; retry?: Record<string, unknown>; auth?: { installationId?: unknown } }) => ({
    ...instance,
    // Paced per installation: Probot names the installation only when its own throttle options say enabled, which these replace.
    throttle: { ...instance.throttle, enabled: true, id: String(instance.auth?.installationId ?? instance.throttle?.id ?? 'app'), write: pacing.write, notifications: pacing.notifications, ...limits, onRateLimit: logged('primary', limits.onRateLimit), onSecondaryRateLimit: logged('secondary', limits.onSecondaryRateLimit) },
    retry: { ...instance.retry, doNotRetry: DO_NOT_RETRY },
  })) as typeof ProbotOctokit;
}
