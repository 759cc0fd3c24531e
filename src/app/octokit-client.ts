import type { GitHubClient, GitHubResponse, HttpMethod, RequestParams } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';

/**
 * OctokitLike is the part of an Octokit instance (Probot's `context.octokit`,
 * with its retry and throttling plugins) that octokitClient uses.
 */
export interface OctokitLike {
  request(route: string, params?: Record<string, unknown>): Promise<{ status: number; headers: Record<string, unknown>; data: unknown; url?: string }>;
  paginate(route: string, params?: Record<string, unknown>): Promise<unknown[]>;
}

/**
 * octokitClient adapts an Octokit instance to the GitHubClient port that
 * src/github (sticky comment, check run) is written against, so the action
 * (plain fetch client) and the app (Probot's Octokit) share those modules.
 * Octokit's RequestError becomes GitHubError, which those modules inspect.
 * Artifact downloads do not follow the redirect with the token: the target
 * is a pre-signed URL on another host, fetched without credentials.
 */
export function octokitClient(octokit: OctokitLike, apiUrl: string, fetchBlob: typeof fetch = globalThis.fetch): GitHubClient {
  async function call(method: HttpMethod, pathTemplate: string, params: RequestParams = {}, extra: Record<string, unknown> = {}) {
    try {
      return await octokit.request(`${method} ${pathTemplate}`, { ...definedOnly(params), ...extra });
    } catch (error) {
      throw toGitHubError(method, pathTemplate, error);
    }
  }

  async function requestWithResponse<T>(method: HttpMethod, pathTemplate: string, params?: RequestParams): Promise<GitHubResponse<T>> {
    const response = await call(method, pathTemplate, params);
    const headers = new Headers();
    for (const [key, value] of Object.entries(response.headers)) if (value !== undefined && value !== null) headers.set(key, String(value));
    const data = response.status === 204 || response.data === '' ? undefined : response.data;
    return { status: response.status, headers, data: data as T };
  }

  return {
    apiUrl: apiUrl.replace(/\/+$/, ''),
    request: async <T>(method: HttpMethod, pathTemplate: string, params?: RequestParams) => (await requestWithResponse<T>(method, pathTemplate, params)).data,
    requestWithResponse,
    async paginate<T>(pathTemplate: string, params: RequestParams = {}): Promise<T[]> {
      try {
        return (await octokit.paginate(`GET ${pathTemplate}`, { per_page: 100, ...definedOnly(params) })) as T[];
      } catch (error) {
        throw toGitHubError('GET', pathTemplate, error);
      }
    },
    async download(pathTemplate: string, params: RequestParams = {}): Promise<Uint8Array> {
      const response = await call('GET', pathTemplate, params, { request: { redirect: 'manual' } });
      if (response.status < 300 || response.status >= 400) return toBytes(response.data);
      const location = response.headers.location;
      if (typeof location !== 'string' || location === '') throw new GitHubError({ method: 'GET', path: pathTemplate, status: response.status, detail: 'redirect without a Location header' });
      const blob = await fetchBlob(location, { headers: { 'user-agent': 'benchbot' } });
      if (!blob.ok) throw new GitHubError({ method: 'GET', path: pathTemplate, status: blob.status, detail: `download from the redirect target failed (${blob.status} ${blob.statusText})` });
      return new Uint8Array(await blob.arrayBuffer());
    },
  };
}

function definedOnly(params: RequestParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}

function toBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (typeof data === 'string') return new TextEncoder().encode(data);
  throw new TypeError('octokitClient.download: the response body is not binary');
}

/** toGitHubError turns Octokit's RequestError (status, response.data.message) into GitHubError; other errors pass through. */
function toGitHubError(method: string, path: string, error: unknown): unknown {
  if (error instanceof GitHubError) return error;
  const e = error as { status?: unknown; message?: unknown; response?: { data?: unknown; headers?: Record<string, unknown> } };
  if (typeof e?.status !== 'number') return error;
  const data = e.response?.data as { message?: unknown; documentation_url?: unknown; errors?: unknown } | undefined;
  const headers = new Headers();
  for (const [key, value] of Object.entries(e.response?.headers ?? {})) if (value !== undefined && value !== null) headers.set(key, String(value));
  return new GitHubError({
    method,
    path,
    // Octokit reports a network failure as status 500 without a response; GitHubError says 0 for that.
    status: e.response === undefined && e.status === 500 ? 0 : e.status,
    githubMessage: typeof data?.message === 'string' ? data.message : typeof e.message === 'string' ? e.message : null,
    documentationUrl: typeof data?.documentation_url === 'string' ? data.documentation_url : null,
    errors: Array.isArray(data?.errors) ? data.errors : [],
    headers,
    cause: error,
  });
}
