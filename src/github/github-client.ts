/**
 * A small GitHub REST client over the global `fetch`: path templates, JSON in
 * and out, Link-header pagination and bounded retries. It exists so that the
 * action bundle needs no Octokit; the surface mirrors Octokit's
 * `request(route, params)` so a later switch is mechanical.
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

/** GitHubClientOptions configure createGitHubClient. */
export interface GitHubClientOptions {
  /** token is sent as `authorization: Bearer <token>`; an empty token sends none. */
  token: string;
  /** apiUrl defaults to `$GITHUB_API_URL`, then DEFAULT_API_URL. */
  apiUrl?: string;
  /** userAgent defaults to `benchbot`; GitHub rejects requests without one. */
  userAgent?: string;
  fetch?: typeof fetch;
  sleep?: Sleep;
  /** now returns epoch milliseconds; used against `x-ratelimit-reset`. */
  now?: () => number;
  /** maxRetries after the first attempt, for 5xx, network errors and rate limits. Default 3. */
  maxRetries?: number;
  /** maxWaitMs bounds one wait; a rate limit that resets later fails at once. Default 300000 (5 min). */
  maxWaitMs?: number;
}

/** GitHubResponse is one decoded response. */
export interface GitHubResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

/** GitHubClient is what createGitHubClient returns. */
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
   * pre-signed URL on another host.
   */
  download(pathTemplate: string, params?: RequestParams): Promise<Uint8Array>;
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

/** createGitHubClient returns a client bound to one token and API URL. */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const apiUrl = (options.apiUrl ?? process.env.GITHUB_API_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  const apiOrigin = new URL(apiUrl).origin;
  const doFetch = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitMs = options.maxWaitMs ?? 300_000;
  const baseHeaders: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'x-github-api-version': GITHUB_API_VERSION,
    'user-agent': options.userAgent ?? 'benchbot',
  };
  if (options.token) baseHeaders.authorization = `Bearer ${options.token}`;

  async function send(method: HttpMethod, url: string, displayPath: string, body: string | undefined, redirect: 'follow' | 'manual'): Promise<Response> {
    const headers: Record<string, string> = { ...baseHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await doFetch(url, { method, headers, body, redirect });
      } catch (error) {
        if (attempt >= maxRetries) throw new GitHubError({ method, path: displayPath, status: 0, detail: String((error as Error)?.message ?? error), cause: error });
        await sleep(backoffMs(attempt));
        continue;
      }
      if (response.ok || (redirect === 'manual' && response.status >= 300 && response.status < 400)) return response;
      const failure = await errorBody(response);
      const wait = retryWaitMs(response, failure.message, attempt, now());
      if (wait !== null && attempt < maxRetries) {
        if (wait > maxWaitMs) {
          throw toError(method, displayPath, response, failure, `not retried: GitHub asks to wait ${Math.ceil(wait / 1000)} s, more than maxWaitMs (${Math.ceil(maxWaitMs / 1000)} s)`);
        }
        await sleep(wait);
        continue;
      }
      throw toError(method, displayPath, response, failure);
    }
  }

  async function requestWithResponse<T>(method: HttpMethod, pathTemplate: string, params: RequestParams = {}): Promise<GitHubResponse<T>> {
    const { path, rest } = expandPath(pathTemplate, params);
    let url = apiUrl + path;
    let body: string | undefined;
    if (method === 'GET' || method === 'HEAD') {
      const query = toQuery(rest);
      if (query) url += (url.includes('?') ? '&' : '?') + query;
    } else if (Object.keys(rest).length > 0) {
      body = JSON.stringify(rest);
    }
    const response = await send(method, url, path, body, 'follow');
    return { status: response.status, headers: response.headers, data: (await decode(response, method, path)) as T };
  }

  async function paginate<T>(pathTemplate: string, params: RequestParams = {}): Promise<T[]> {
    const first = await requestWithResponse<unknown>('GET', pathTemplate, { per_page: 100, ...params });
    const items: T[] = [...itemsOf<T>(first.data, pathTemplate)];
    let next = nextLink(first.headers.get('link'));
    for (let pages = 1; next !== null; pages++) {
      // A Link pointing elsewhere would carry our token to another host.
      if (new URL(next).origin !== apiOrigin) throw new GitHubError({ method: 'GET', path: pathTemplate, status: 0, detail: `refusing to follow a Link: rel="next" to another origin (${new URL(next).origin})` });
      if (pages >= 10_000) throw new GitHubError({ method: 'GET', path: pathTemplate, status: 0, detail: 'more than 10000 pages; the Link header loops' });
      const display = new URL(next).pathname;
      const response = await send('GET', next, display, undefined, 'follow');
      items.push(...itemsOf<T>(await decode(response, 'GET', display), pathTemplate));
      next = nextLink(response.headers.get('link'));
    }
    return items;
  }

  async function download(pathTemplate: string, params: RequestParams = {}): Promise<Uint8Array> {
    const { path, rest } = expandPath(pathTemplate, params);
    const query = toQuery(rest);
    const response = await send('GET', apiUrl + path + (query ? `?${query}` : ''), path, undefined, 'manual');
    if (response.status < 300 || response.status >= 400) return new Uint8Array(await response.arrayBuffer());
    const location = response.headers.get('location');
    if (!location) throw new GitHubError({ method: 'GET', path, status: response.status, detail: 'redirect without a Location header', headers: response.headers });
    const target = new URL(location, apiUrl + path).toString();
    let lastError: unknown;
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      try {
        const blob = await doFetch(target, { headers: { 'user-agent': baseHeaders['user-agent'] } });
        if (blob.ok) return new Uint8Array(await blob.arrayBuffer());
        lastError = new GitHubError({ method: 'GET', path, status: blob.status, detail: `download from the redirect target failed (${blob.status} ${blob.statusText})` });
        if (blob.status < 500) break;
      } catch (error) {
        lastError = new GitHubError({ method: 'GET', path, status: 0, detail: `download from the redirect target failed: ${String((error as Error)?.message ?? error)}`, cause: error });
      }
      if (attempt < maxRetries) await sleep(backoffMs(attempt));
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

/** nextLink returns the `rel="next"` target of a Link header, or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  // Split on the <...> targets, not on commas: a target's query may hold commas.
  for (const match of header.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel="?([^";]*)"?/.exec(match[2]);
    if (rel && rel[1].trim().split(/\s+/).includes('next')) return match[1];
  }
  return null;
}

function toQuery(params: RequestParams): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) search.set(key, value.join(','));
    else search.set(key, String(value));
  }
  return search.toString();
}

function backoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** attempt, 30_000);
}

/**
 * retryWaitMs decides whether a failed response is worth retrying and after
 * how long, following GitHub's rate-limit guidance: `retry-after` seconds
 * when present; else, with `x-ratelimit-remaining: 0`, until
 * `x-ratelimit-reset`; else a secondary limit waits a minute, doubling per
 * attempt. 5xx backs off 1 s, 2 s, 4 s... Anything else is final (null).
 */
function retryWaitMs(response: Response, message: string | null, attempt: number, nowMs: number): number | null {
  const status = response.status;
  // 501 means the endpoint does not exist in this deployment: final.
  if (status >= 500 && status !== 501) {
    const after = retryAfterMs(response.headers, nowMs);
    return after ?? backoffMs(attempt);
  }
  if (status !== 403 && status !== 429) return null;
  const after = retryAfterMs(response.headers, nowMs);
  if (after !== null) return after;
  if (response.headers.get('x-ratelimit-remaining') === '0') {
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    if (Number.isFinite(reset) && reset > 0) return Math.max(0, reset * 1000 - nowMs) + 1000;
    return 60_000 * 2 ** attempt;
  }
  if (status === 429 || (message !== null && /rate limit/i.test(message))) return 60_000 * 2 ** attempt;
  // A plain 403 is a permission problem: retrying cannot help.
  return null;
}

function retryAfterMs(headers: Headers, nowMs: number): number | null {
  const value = headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

interface ErrorBody {
  message: string | null;
  documentationUrl: string | null;
  errors: unknown[];
  text: string;
}

async function errorBody(response: Response): Promise<ErrorBody> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { message?: unknown; documentation_url?: unknown; errors?: unknown };
    return {
      message: typeof parsed.message === 'string' ? parsed.message : null,
      documentationUrl: typeof parsed.documentation_url === 'string' ? parsed.documentation_url : null,
      errors: Array.isArray(parsed.errors) ? parsed.errors : [],
      text,
    };
  } catch {
    return { message: null, documentationUrl: null, errors: [], text };
  }
}

function toError(method: string, path: string, response: Response, body: ErrorBody, detail?: string): GitHubError {
  const fallback = body.message === null && body.text ? body.text.slice(0, 200) : null;
  return new GitHubError({
    method,
    path,
    status: response.status,
    githubMessage: body.message ?? fallback,
    documentationUrl: body.documentationUrl,
    errors: body.errors,
    headers: response.headers,
    detail,
  });
}

async function decode(response: Response, method: string, path: string): Promise<unknown> {
  if (response.status === 204 || response.status === 205 || method === 'HEAD') return undefined;
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!/\bjson\b/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new GitHubError({ method, path, status: response.status, detail: `response is not valid JSON (${(error as Error).message})`, cause: error });
  }
}

/** itemsOf unwraps a list page: an array, or the one array inside `{ total_count, <items>: [...] }`. */
function itemsOf<T>(data: unknown, pathTemplate: string): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data !== null && typeof data === 'object' && 'total_count' in data) {
    const arrays = Object.entries(data).filter(([key, value]) => Array.isArray(value) && key !== 'total_count');
    if (arrays.length === 1) return arrays[0][1] as T[];
  }
  throw new GitHubError({ method: 'GET', path: pathTemplate, status: 200, detail: 'paginate: the response is not a list' });
}
