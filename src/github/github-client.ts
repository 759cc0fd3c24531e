import { Octokit } from '@octokit/core';
import type { OctokitOptions } from '@octokit/core/types';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import Bottleneck from 'bottleneck/light.js';

/**
 * The GitHub REST client that src/github (sticky comment, check run,
 * regression issues) and the app's handlers are written against, over
 * Octokit: @octokit/core with plugin-throttling (GitHub's spacing of writes;
 * primary and secondary rate limits waited out), plugin-retry (5xx and
 * network errors) and plugin-paginate-rest. The action makes its own
 * (createGitHubClient); the app wraps Probot's Octokit, which carries the
 * same plugins, configured by the same throttleOptions (octokitGitHubClient).
 * Failures of either come out as GitHubError.
 */

/** DEFAULT_API_URL is used when neither the option nor GITHUB_API_URL is set. */
export const DEFAULT_API_URL = 'https://api.github.com';

/** GITHUB_API_VERSION is the REST API version every request pins. */
export const GITHUB_API_VERSION = '2022-11-28';

/** HttpMethod lists the verbs the REST API uses. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * RequestParams fill a path template's `{name}` placeholders; what is left
 * becomes the query string (GET, HEAD) or the JSON body (everything else).
 * Undefined values are dropped.
 */
export type RequestParams = Record<string, unknown>;

/** Sleep waits `ms` milliseconds; injectable so tests never really wait. */
export type Sleep = (ms: number) => Promise<void>;

/** RetryPolicy bounds what the client waits for and how often it asks again. */
export interface RetryPolicy {
  /** maxRetries after the first attempt, for 5xx, network errors and rate limits. Default 3. */
  maxRetries: number;
  /** maxWaitMs bounds one wait; a rate limit that resets later fails at once. Default 300000 (5 min). */
  maxWaitMs: number;
  sleep: Sleep;
}

/** GitHubClientOptions configure createGitHubClient. */
export interface GitHubClientOptions extends Partial<RetryPolicy> {
  /** token is sent as `authorization: Bearer <token>`; an empty token sends none. */
  token: string;
  /** apiUrl defaults to `$GITHUB_API_URL`, then DEFAULT_API_URL. */
  apiUrl?: string;
  /** userAgent defaults to `benchbot`; GitHub rejects requests without one. */
  userAgent?: string;
  fetch?: typeof fetch;
  /**
   * writeIntervalMs spaces writes (POST, PATCH, PUT, DELETE). Undefined keeps
   * GitHub's guidance as the throttling plugin applies it (one write per
   * second, three seconds between writes that notify people); a number (0
   * against a loopback stand-in) replaces both.
   */
  writeIntervalMs?: number;
}

/** GitHubResponse is one decoded response. */
export interface GitHubResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

/** GitHubClient is what createGitHubClient and octokitGitHubClient return. */
export interface GitHubClient {
  readonly apiUrl: string;
  /** request sends one request and returns the decoded JSON body (undefined for 204). */
  request<T = unknown>(method: HttpMethod, pathTemplate: string, params?: RequestParams): Promise<T>;
  /** requestWithResponse is request plus status and headers. */
  requestWithResponse<T = unknown>(method: HttpMethod, pathTemplate: string, params?: RequestParams): Promise<GitHubResponse<T>>;
  /**
   * paginate GETs every page (per_page=100 unless given) following
   * `Link: rel="next"`, and concatenates the items. List endpoints that wrap
   * their items (`{ total_count, artifacts: [...] }`) are unwrapped.
   */
  paginate<T = unknown>(pathTemplate: string, params?: RequestParams): Promise<T[]>;
  /**
   * download GETs an endpoint that answers with a redirect (artifact and log
   * archives) and fetches the target WITHOUT the token, since it is a
   * pre-signed URL on another host. The body is streamed and refused with
   * DownloadTooLargeError past `options.maxBytes`.
   */
  download(pathTemplate: string, params?: RequestParams, options?: DownloadOptions): Promise<Uint8Array>;
}

/** DownloadOptions bound one download. */
export interface DownloadOptions {
  /**
   * maxBytes is the most the body may hold: a Content-Length above it is
   * refused before a byte is read, and a body that runs past it (whatever it
   * announced) is cut off there, so memory holds at most maxBytes.
   * Unbounded when undefined.
   */
  maxBytes?: number;
  /** expectedBytes is what the caller was told the body holds (an artifact's size_in_bytes): the buffer's first size. */
  expectedBytes?: number;
}

/** DownloadTooLargeError is a download refused or cut off at DownloadOptions.maxBytes; the message says which and the sizes. */
export class DownloadTooLargeError extends Error {
  override name = 'DownloadTooLargeError';
}

/**
 * GitHubError is a failed request. `status` is 0 when no response came back
 * (network error after all retries); `githubMessage` is the `message` of
 * GitHub's error body, `errors` its `errors` array (422 validation details).
 */
export class GitHubError extends Error {
  override name = 'GitHubError';
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly githubMessage: string | null;
  readonly documentationUrl: string | null;
  readonly errors: unknown[];
  readonly headers: Headers | null;

  constructor(init: { method: string; path: string; status: number; githubMessage?: string | null; documentationUrl?: string | null; errors?: unknown[]; headers?: Headers | null; detail?: string; cause?: unknown }) {
    const what = init.status === 0 ? 'failed without a response' : `failed with ${init.status}`;
    const parts = [`GitHub API ${init.method} ${init.path} ${what}`];
    if (init.githubMessage) parts.push(init.githubMessage);
    if (init.errors && init.errors.length > 0) parts.push(`errors: ${JSON.stringify(init.errors)}`);
    if (init.detail) parts.push(init.detail);
    super(parts.join(': '), init.cause === undefined ? undefined : { cause: init.cause });
    this.method = init.method;
    this.path = init.path;
    this.status = init.status;
    this.githubMessage = init.githubMessage ?? null;
    this.documentationUrl = init.documentationUrl ?? null;
    this.errors = init.errors ?? [];
    this.headers = init.headers ?? null;
  }
}

/**
 * expandPath fills `{name}` placeholders from params (URL-encoded) and returns
 * the path plus the params it did not use. A missing placeholder value throws,
 * since sending `/repos/{owner}/...` literally would only yield a puzzling 404.
 */
export function expandPath(pathTemplate: string, params: RequestParams = {}): { path: string; rest: RequestParams } {
  const rest: RequestParams = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) rest[key] = value;
  const path = pathTemplate.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = rest[name];
    if (value === undefined || value === null || value === '') throw new TypeError(`expandPath: no value for {${name}} in ${pathTemplate}`);
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  return { path, rest };
}

/** NOT_RETRIED marks a request's options with why a wait was refused, for the GitHubError it ends in. */
const NOT_RETRIED = Symbol('benchbot.notRetried');

interface HookOptions {
  method?: string;
  url?: string;
  baseUrl?: string;
  headers: Record<string, string | undefined>;
  request: Record<PropertyKey, unknown> & { retryCount?: number; retries?: number };
}

interface OctokitFailure {
  status?: unknown;
  message?: unknown;
  request?: unknown;
  response?: { status?: number; headers?: Record<string, unknown>; data?: unknown };
}

const refusal = (seconds: number, policy: RetryPolicy) => `not retried: GitHub asks to wait ${seconds} s, more than maxWaitMs (${Math.ceil(policy.maxWaitMs / 1000)} s)`;

/**
 * throttleOptions are the throttling plugin's settings under a policy, for
 * createGitHubClient and for Probot's Octokit alike: a primary or secondary
 * rate limit (GitHub's `retry-after`, or `x-ratelimit-reset`; a secondary
 * limit without either waits a minute) is waited out through policy.sleep
 * and retried, at most policy.maxRetries times, and not at all when the wait
 * is longer than policy.maxWaitMs. The plugin's own wait is zero: the
 * handler has already slept.
 */
export function throttleOptions(policy: RetryPolicy) {
  const handler = async (retryAfter: number, options: { request?: Record<PropertyKey, unknown> }, _octokit: unknown, retryCount: number): Promise<boolean> => {
    if (retryCount >= policy.maxRetries) return false;
    const ms = retryAfter * 1000;
    if (ms > policy.maxWaitMs) {
      if (options.request) options.request[NOT_RETRIED] = refusal(retryAfter, policy);
      return false;
    }
    await policy.sleep(ms);
    return true;
  };
  return { onRateLimit: handler, onSecondaryRateLimit: handler, retryAfterBaseValue: 0 };
}

/**
 * DO_NOT_RETRY are the statuses plugin-retry must not repeat: its own list,
 * plus 429 (the throttling plugin's to wait out or give up) and 501 (the
 * endpoint does not exist in this deployment).
 */
export const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451, 501];

/**
 * transientBackoff is the plugin between the throttling and the retry
 * plugins that decides which failures plugin-retry repeats and after how
 * long: 5xx (not 501: the endpoint does not exist there) and network errors,
 * after GitHub's `retry-after` or 1 s, 2 s, 4 s... (capped at 30 s), at most
 * policy.maxRetries times; everything else is final. plugin-retry then
 * re-sends at once (its retryAfterBaseValue is 0).
 */
function transientBackoff(octokit: Octokit, options: OctokitOptions): void {
  const policy = (options as { benchbot?: { policy: RetryPolicy } }).benchbot?.policy;
  if (policy === undefined) return;
  octokit.hook.error('request', async (error: unknown, hookOptions) => {
    const o = hookOptions as unknown as HookOptions;
    const failure = error as OctokitFailure & { [NOT_RETRIED]?: unknown };
    // The throttling handler marked the request's options; the error is what reaches toGitHubError.
    if (o.request[NOT_RETRIED] !== undefined) failure[NOT_RETRIED] = o.request[NOT_RETRIED];
    const attempt = o.request.retryCount ?? 0;
    const status = typeof failure.status === 'number' ? failure.status : 0;
    if (status < 500 || status === 501 || attempt >= policy.maxRetries) {
      o.request.retries = attempt;
      throw error;
    }
    const wait = retryAfterMs(failure.response?.headers) ?? Math.min(1000 * 2 ** attempt, 30_000);
    if (wait > policy.maxWaitMs) {
      o.request.retries = attempt;
      failure[NOT_RETRIED] = refusal(Math.ceil(wait / 1000), policy);
      throw error;
    }
    await policy.sleep(wait);
    throw error;
  });
}

/**
 * requestDefaults is the outermost plugin of createGitHubClient's Octokit:
 * the headers every request carries (exactly these, so the user agent is
 * `benchbot` and the token goes as `Bearer`), and a refusal to send them to
 * another origin, which a Link header could point pagination at.
 */
function requestDefaults(octokit: Octokit, options: OctokitOptions): void {
  const defaults = (options as { benchbot?: { headers: Record<string, string>; apiOrigin: string } }).benchbot;
  if (defaults === undefined) return;
  octokit.hook.before('request', (hookOptions) => {
    const o = hookOptions as unknown as HookOptions;
    const origin = new URL(o.url ?? '/', o.baseUrl ?? defaults.apiOrigin).origin;
    if (origin !== defaults.apiOrigin) throw new GitHubError({ method: o.method ?? 'GET', path: new URL(o.url ?? '/', defaults.apiOrigin).pathname, status: 0, detail: `refusing to follow a Link: rel="next" to another origin (${origin})` });
    Object.assign(o.headers, defaults.headers);
  });
}

const BenchbotOctokit = Octokit.plugin(throttling, transientBackoff, retry, paginateRest, requestDefaults);

/**
 * OctokitLike is the part of an Octokit instance (createGitHubClient's own,
 * or Probot's `context.octokit`) that octokitGitHubClient uses.
 */
export interface OctokitLike {
  request(route: string, params?: Record<string, unknown>): Promise<{ status: number; headers: Record<string, unknown>; data: unknown; url?: string }>;
  paginate: { iterator(route: string, params?: Record<string, unknown>): AsyncIterable<{ data: unknown; headers?: Record<string, unknown> }> };
}

/** createGitHubClient returns a client bound to one token and API URL, over its own Octokit. */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const apiUrl = (options.apiUrl ?? process.env.GITHUB_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const policy: RetryPolicy = {
    maxRetries: options.maxRetries ?? 3,
    maxWaitMs: options.maxWaitMs ?? 300_000,
    sleep: options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))),
  };
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': GITHUB_API_VERSION,
    'user-agent': options.userAgent ?? 'benchbot',
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  // The client's own queues (the plugin's default ones are shared by every Octokit of the process).
  const queues = {
    global: new Bottleneck.Group({ id: 'benchbot-global', maxConcurrent: 10 }),
    auth: new Bottleneck.Group({ id: 'benchbot-auth', maxConcurrent: 1 }),
    search: new Bottleneck.Group({ id: 'benchbot-search', maxConcurrent: 1, minTime: 2000 }),
    write: new Bottleneck.Group({ id: 'benchbot-write', maxConcurrent: 1, minTime: options.writeIntervalMs ?? 1000 }),
    notifications: new Bottleneck.Group({ id: 'benchbot-notifications', maxConcurrent: 1, minTime: options.writeIntervalMs ?? 3000 }),
  };
  const octokit = new BenchbotOctokit({
    baseUrl: apiUrl,
    request: options.fetch ? { fetch: options.fetch } : {},
    throttle: { ...throttleOptions(policy), ...queues },
    retry: { retries: policy.maxRetries, retryAfterBaseValue: 0, doNotRetry: DO_NOT_RETRY },
    benchbot: { policy, headers, apiOrigin: new URL(apiUrl).origin },
  } as unknown as ConstructorParameters<typeof BenchbotOctokit>[0]);
  return octokitGitHubClient(octokit as unknown as OctokitLike, { apiUrl, fetch: options.fetch, sleep: policy.sleep, maxRetries: policy.maxRetries, userAgent: headers['user-agent'] });
}

/** OctokitGitHubClientOptions configure octokitGitHubClient. */
export interface OctokitGitHubClientOptions {
  apiUrl: string;
  /** fetch gets the redirect targets of downloads (without the token). */
  fetch?: typeof fetch;
  sleep?: Sleep;
  /** maxRetries of a download from its redirect target that failed with 5xx or on the network. Default 3. */
  maxRetries?: number;
  userAgent?: string;
  /**
   * retryWrites false sends every POST once, whatever the answer (default
   * true: a 5xx or a lost connection is re-sent like a read). GitHub may have
   * made the comment, issue, check run or dispatch before the answer was
   * lost, and a blind re-send makes a second one: the app instead records
   * each effect as intended and looks for it on GitHub before making it
   * again (AppState.withEffect).
   */
  retryWrites?: boolean;
}

/**
 * octokitGitHubClient adapts an Octokit instance (with the paginate-rest
 * plugin) to GitHubClient: the action's own (createGitHubClient) and
 * Probot's in the app. Octokit's RequestError becomes GitHubError, which
 * the callers inspect. Artifact downloads do not follow the redirect with
 * the token: the target is a pre-signed URL on another host, fetched
 * without credentials.
 */
export function octokitGitHubClient(octokit: OctokitLike, options: OctokitGitHubClientOptions): GitHubClient {
  const apiUrl = options.apiUrl.replace(/\/+$/, '');
  const fetchBlob = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxRetries = options.maxRetries ?? 3;

  async function call(method: HttpMethod, pathTemplate: string, params: RequestParams = {}, extra: Record<string, unknown> = {}) {
    const { path, rest } = expandPath(pathTemplate, params);
    const once = method === 'POST' && options.retryWrites === false ? { request: { ...(rest.request as object | undefined), retries: 0 } } : {};
    try {
      return { path, response: await octokit.request(`${method} ${path}`, { ...rest, ...once, ...extra }) };
    } catch (error) {
      throw toGitHubError(method, path, error);
    }
  }

  async function requestWithResponse<T>(method: HttpMethod, pathTemplate: string, params?: RequestParams): Promise<GitHubResponse<T>> {
    const { response } = await call(method, pathTemplate, params);
    const data = response.status === 204 || response.status === 205 || method === 'HEAD' || response.data === '' ? undefined : response.data;
    return { status: response.status, headers: toHeaders(response.headers), data: data as T };
  }

  async function paginate<T>(pathTemplate: string, params: RequestParams = {}): Promise<T[]> {
    const { path, rest } = expandPath(pathTemplate, { per_page: 100, ...params });
    const items: T[] = [];
    let pages = 0;
    try {
      for await (const page of octokit.paginate.iterator(`GET ${path}`, rest)) {
        if (!Array.isArray(page.data)) throw new GitHubError({ method: 'GET', path, status: 200, detail: 'paginate: the response is not a list' });
        if (++pages > 10_000) throw new GitHubError({ method: 'GET', path, status: 0, detail: 'more than 10000 pages; the Link header loops' });
        items.push(...(page.data as T[]));
      }
    } catch (error) {
      throw toGitHubError('GET', path, error);
    }
    return items;
  }

  async function download(pathTemplate: string, params: RequestParams = {}, limits: DownloadOptions = {}): Promise<Uint8Array> {
    // The body stays a stream (parseSuccessResponseBody: false) so that it is read under the cap, never whole.
    const { path, response } = await call('GET', pathTemplate, params, { request: { redirect: 'manual', parseSuccessResponseBody: false } });
    if (response.status < 300 || response.status >= 400) return readCapped(path, response.data, toHeaders(response.headers), limits);
    await cancelBody(response.data);
    const location = response.headers.location;
    if (typeof location !== 'string' || location === '') throw new GitHubError({ method: 'GET', path, status: response.status, detail: 'redirect without a Location header', headers: toHeaders(response.headers) });
    const target = new URL(location, apiUrl + path).toString();
    let lastError: unknown;
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      try {
        const blob = await fetchBlob(target, { headers: { 'user-agent': options.userAgent ?? 'benchbot' } });
        if (blob.ok) return await readCapped(path, blob.body, blob.headers, limits);
        await cancelBody(blob.body);
        lastError = new GitHubError({ method: 'GET', path, status: blob.status, detail: `download from the redirect target failed (${blob.status} ${blob.statusText})` });
        if (blob.status < 500) break;
      } catch (error) {
        if (error instanceof DownloadTooLargeError) throw error;
        lastError = new GitHubError({ method: 'GET', path, status: 0, detail: `download from the redirect target failed: ${String((error as Error)?.message ?? error)}`, cause: error });
      }
      if (attempt < maxRetries) await sleep(Math.min(1000 * 2 ** attempt, 30_000));
    }
    throw lastError;
  }

  return {
    apiUrl,
    request: async <T>(method: HttpMethod, pathTemplate: string, params?: RequestParams) => (await requestWithResponse<T>(method, pathTemplate, params)).data,
    requestWithResponse,
    paginate,
    download,
  };
}

/** retryAfterMs reads GitHub's `retry-after` header (seconds, or an HTTP date) as milliseconds from now; null without one. */
export function retryAfterMs(headers: Record<string, unknown> | undefined): number | null {
  const value = headers?.['retry-after'];
  if (value === undefined || value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(String(value));
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function toHeaders(record: Record<string, unknown> | undefined): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(record ?? {})) if (value !== undefined && value !== null) headers.set(key, String(value));
  return headers;
}

/**
 * readCapped reads a download's body a chunk at a time, never past
 * `maxBytes`: a declared Content-Length above the cap is refused before
 * reading, and a body that keeps coming past it is cancelled there, so
 * memory holds at most the cap whatever the body does. Chunks go into one
 * buffer of the size the caller expects (or the declared length), so an
 * honest body is copied once; what runs past that size is kept as it
 * comes (never a doubling buffer, whose copies would hold twice the cap).
 */
async function readCapped(path: string, data: unknown, headers: Headers, limits: DownloadOptions): Promise<Uint8Array> {
  const max = limits.maxBytes ?? Number.MAX_SAFE_INTEGER;
  if (data === null || data === undefined) return new Uint8Array(0);
  if (!(data instanceof ReadableStream)) {
    // An Octokit whose fetch parsed the body anyway (a test double): the cap still holds.
    const bytes = data instanceof Uint8Array ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : typeof data === 'string' ? new TextEncoder().encode(data) : null;
    if (bytes === null) throw new TypeError('download: the response body is not binary');
    if (bytes.length > max) throw tooLarge(path, `holds ${bytes.length} bytes`, max);
    return bytes;
  }
  const declared = Number(headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > max) {
    await data.cancel().catch(() => undefined);
    throw tooLarge(path, `announces ${declared} bytes (Content-Length)`, max);
  }
  const said = Number.isFinite(declared) ? declared : limits.expectedBytes;
  const buffer = new Uint8Array(Math.max(0, Math.min(said ?? 0, max)));
  const overflow: Uint8Array[] = [];
  let filled = 0;
  let total = 0;
  const reader = (data as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (total + value.length > max) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(path, `ran past ${max} bytes${said === undefined ? '' : ` (it was said to hold ${said})`} and was stopped there`, max);
      }
      total += value.length;
      if (overflow.length === 0 && filled + value.length <= buffer.length) {
        buffer.set(value, filled);
        filled += value.length;
      } else {
        overflow.push(value);
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (overflow.length === 0) return filled === buffer.length ? buffer : buffer.subarray(0, filled);
  return Buffer.concat([buffer.subarray(0, filled), ...overflow], total);
}

function tooLarge(path: string, what: string, max: number): DownloadTooLargeError {
  return new DownloadTooLargeError(`GET ${path}: the body ${what}; at most ${max} bytes are read`);
}

async function cancelBody(data: unknown): Promise<void> {
  if (data instanceof ReadableStream) await data.cancel().catch(() => undefined);
}

/**
 * toGitHubError turns Octokit's RequestError (status, response.data) into
 * GitHubError; a GitHubError or an error without a status passes through.
 */
function toGitHubError(method: string, path: string, error: unknown): unknown {
  if (error instanceof GitHubError) return error;
  const e = error as OctokitFailure & { [NOT_RETRIED]?: unknown };
  if (typeof e?.status !== 'number') return error;
  const data = e.response?.data as { message?: unknown; documentation_url?: unknown; errors?: unknown } | string | undefined;
  const body = typeof data === 'object' && data !== null ? data : undefined;
  const notRetried = e[NOT_RETRIED];
  const message = typeof e.message === 'string' ? e.message : null;
  // Octokit reports a network failure as status 500 without a response; GitHubError says 0 for that.
  if (e.response === undefined) return new GitHubError({ method, path, status: e.status === 500 ? 0 : e.status, detail: message ?? undefined, cause: error });
  return new GitHubError({
    method,
    path,
    status: e.status,
    githubMessage: typeof body?.message === 'string' ? body.message : typeof data === 'string' && data !== '' ? data.slice(0, 200) : null,
    documentationUrl: typeof body?.documentation_url === 'string' ? body.documentation_url : null,
    errors: Array.isArray(body?.errors) ? body.errors : [],
    headers: toHeaders(e.response.headers),
    detail: typeof notRetried === 'string' ? notRetried : undefined,
    cause: error,
  });
}
