import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Bottleneck from 'bottleneck';
import { createNodeMiddleware, Probot, ProbotOctokit } from 'probot';
import type { Store } from '../store/store.ts';
import { createApp, type CreateAppOptions } from './create-app.ts';
import { DO_NOT_RETRY, throttleOptions } from '../github/github-client.ts';
import { createWebhookBodyReader, WEBHOOK_BODY_TIMEOUT_MS, type WebhookBodyLimits } from './webhook-body.ts';

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
  /** dashboard answers the GET and HEAD requests it claims (true): `benchbot serve --dashboard` (dashboard/dashboard-handler.ts). */
  dashboard?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

/** AppServer is a running app: its URL, its Probot, and close(). */
export interface AppServer {
  url: string;
  webhookUrl: string;
  probot: Probot;
  close(): Promise<void>;
}

/**
 * startAppServer starts the app on node:http with short header and request
 * timeouts (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS): the body bounds (413
 * past 25 MiB, 429 past a client's share of the in-flight budget, 503 past
 * the whole, 408 past the deadline; webhook-body.ts), then Probot's middleware
 * (signature check, then the handlers; 200 when they finished, 400 for a
 * missing or wrong signature, 500 when a handler failed) at WEBHOOK_PATH, the health
 * check at HEALTH_PATH, 404 elsewhere. Octokit comes with Probot's retry
 * (5xx, network) and throttling (primary and secondary rate limits) plugins.
 */
export async function startAppServer(options: AppServerOptions): Promise<AppServer> {
  const probot = new Probot({
    appId: options.appId,
    privateKey: options.privateKey,
    githubToken: options.githubToken,
    secret: options.secret,
    baseUrl: options.apiUrl,
    Octokit: octokitClass(options.writeIntervalMs, options.throttle ?? true),
    logLevel: options.logLevel ?? 'info',
    logFormat: options.logFormat ?? 'json',
  });
  const appFn = createApp({ store: options.store, apiUrl: options.apiUrl, botLogin: options.botLogin, now: options.now, configTtlMs: options.configTtlMs, onHandled: options.onHandled, recompute: options.recompute });
  const middleware = await createNodeMiddleware(appFn, { probot, webhooksPath: WEBHOOK_PATH });

  const server = createServer({ headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (req, res) => {
    void route(req, res).catch((error: unknown) => {
      probot.log.error({ err: error }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error\n');
    });
  });
  const readBody = createWebhookBodyReader(options.webhookBodyLimits);
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if (path === HEALTH_PATH && (req.method === 'GET' || req.method === 'HEAD')) return health(options.store, res);
    if (options.dashboard && (req.method === 'GET' || req.method === 'HEAD') && (await options.dashboard(req, res))) return;
    // @octokit/webhooks buffers a POST body whole before checking its signature: every POST is read here, capped, or refused unread.
    if (req.method === 'POST') {
      if (!isWebhookPath(req.url)) return void res.writeHead(404, { 'content-type': 'text/plain', connection: 'close' }).end('not found\n');
      const body = await readBody(req, res);
      if (body === undefined) return;
      (req as IncomingMessage & { body?: string }).body = body.text;
      acceptPreviousSecret(req, body.text, options.secret, options.previousSecrets ?? []);
      try {
        await middleware(req, res);
      } finally {
        body.release();
      }
      return;
    }
    if (!(await middleware(req, res))) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
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
    close: () => new Promise<void>((resolve, reject) => {
      server.closeIdleConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    }),
  };
}

/**
 * acceptPreviousSecret lets a delivery signed with a previous secret through
 * Probot's check (which knows one secret): when the signature is valid for
 * a previous secret, it is replaced by the current secret's signature of
 * the same body. Anything else is left as it came, for Probot to refuse.
 */
function acceptPreviousSecret(req: IncomingMessage, body: string, secret: string, previous: string[]): void {
  const given = req.headers['x-hub-signature-256'];
  if (previous.length === 0 || typeof given !== 'string' || !given.startsWith('sha256=')) return;
  const sign = (key: string) => `sha256=${createHmac('sha256', key).update(body).digest('hex')}`;
  const matches = (expected: string) => expected.length === given.length && timingSafeEqual(Buffer.from(expected), Buffer.from(given));
  if (matches(sign(secret))) return;
  if (previous.some((key) => key !== '' && matches(sign(key)))) req.headers['x-hub-signature-256'] = sign(secret);
}

/** isWebhookPath matches the path as @octokit/webhooks does (trailing slashes dropped from the whole URL, then the pathname). */
function isWebhookPath(url: string | undefined): boolean {
  try {
    return new URL((url ?? '/').replace(/\/+$/, '') || '/', 'http://app').pathname === WEBHOOK_PATH;
  } catch {
    return false;
  }
}

async function health(store: Store, res: ServerResponse): Promise<void> {
  try {
    await store.getState('health:probe');
    res.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify({ status: 'ok', store: store.kind })}\n`);
  } catch (error) {
    res.writeHead(503, { 'content-type': 'application/json' }).end(`${JSON.stringify({ status: 'unavailable', store: store.kind, error: String((error as Error)?.message ?? error) })}\n`);
  }
}

/**
 * octokitClass returns Probot's Octokit with benchbot's rate-limit policy,
 * the throttling handlers of the action's client (throttleOptions): primary
 * and secondary limits are waited out (GitHub's `retry-after`, or the reset
 * time) and retried twice when the wait is at most two minutes; Probot's
 * own default gives up on secondary limits at once. The retry plugin
 * repeats 5xx and network errors, never what DO_NOT_RETRY lists. With
 * writeIntervalMs the write spacing is replaced (groups made per server,
 * keyed by installation inside); with throttle false the plugin is off.
 */
function octokitClass(writeIntervalMs: number | undefined, throttle: boolean): typeof ProbotOctokit {
  if (!throttle) return ProbotOctokit.defaults((instance: { throttle?: Record<string, unknown>; retry?: Record<string, unknown> }) => ({ ...instance, throttle: { ...instance.throttle, enabled: false }, retry: { ...instance.retry, doNotRetry: DO_NOT_RETRY } })) as typeof ProbotOctokit;
  const limits = throttleOptions({ maxRetries: 2, maxWaitMs: 120_000, sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)) });
  const spacing = writeIntervalMs === undefined
    ? {}
    : {
      write: new Bottleneck.Group({ id: 'benchbot-write', maxConcurrent: 1, minTime: writeIntervalMs }),
      notifications: new Bottleneck.Group({ id: 'benchbot-notifications', maxConcurrent: 1, minTime: writeIntervalMs }),
    };
  return ProbotOctokit.defaults((instance: { throttle?: Record<string, unknown>; retry?: Record<string, unknown> }) => ({
    ...instance,
    throttle: { ...instance.throttle, ...spacing, ...limits },
    retry: { ...instance.retry, doNotRetry: DO_NOT_RETRY },
  })) as typeof ProbotOctokit;
}
