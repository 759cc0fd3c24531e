import assert from 'node:assert/strict';
import { after, afterEach, before, mock, test } from 'node:test';
import { createGitHubClient, DownloadTooLargeError, expandPath, GitHubError } from '../../src/github/github-client.ts';
import type { GitHubClientOptions } from '../../src/github/github-client.ts';
import { assertAllValid, startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import type { GitHubApiStandIn } from '../support/github-api-stand-in.ts';

const COMMENTS = '/repos/{owner}/{repo}/issues/{issue_number}/comments';
const repo = { owner: 'octo-org', repo: 'widgets' };
const human = { login: 'alice', type: 'User' as const };

let standIn: GitHubApiStandIn;

before(async () => {
  standIn = await startGitHubApiStandIn();
});
after(() => standIn.close());
let sleeps: number[] = [];
afterEach(() => {
  try {
    assertAllValid(standIn);
  } finally {
    standIn.reset();
    sleeps = [];
    mock.timers.reset();
  }
});

function client(extra: Partial<GitHubClientOptions> = {}) {
  return createGitHubClient({ token: 'test-token', apiUrl: standIn.url, sleep: async (ms) => void sleeps.push(ms), writeIntervalMs: 0, ...extra });
}

test('request sends the REST headers, fills and encodes path params, and decodes JSON', async () => {
  const created = await client().request<{ id: number; body: string; user: { login: string } }>('POST', COMMENTS, { ...repo, issue_number: 7, body: 'hello' });
  assert.equal(created.body, 'hello');
  assert.equal(created.user.login, 'github-actions[bot]');
  const [req] = standIn.requests;
  assert.equal(req.path, '/repos/octo-org/widgets/issues/7/comments');
  assert.deepEqual(req.body, { body: 'hello' });
  assert.equal(req.headers.authorization, 'Bearer test-token');
  assert.equal(req.headers.accept, 'application/vnd.github+json');
  assert.equal(req.headers['x-github-api-version'], '2022-11-28');
  assert.equal(req.headers['user-agent'], 'benchbot');
  assert.match(req.headers['content-type'], /^application\/json/);

  standIn.state.permissions['dependabot[bot]'] = 'write';
  const permission = await client().request<{ permission: string }>('GET', '/repos/{owner}/{repo}/collaborators/{username}/permission', { ...repo, username: 'dependabot[bot]' });
  assert.equal(permission.permission, 'write');
  assert.equal(standIn.requests.at(-1)?.path, '/repos/octo-org/widgets/collaborators/dependabot%5Bbot%5D/permission');
  assertAllValid(standIn);
});

test('GET puts leftover params in the query; DELETE with none sends no body; 204 decodes to undefined', async () => {
  const c = client();
  const { id } = standIn.addComment({ ...repo, issueNumber: 1, body: 'x', user: human });
  await c.request('GET', COMMENTS, { ...repo, issue_number: 1, since: '2020-01-01T00:00:00Z', per_page: 5 });
  assert.deepEqual(standIn.requests.at(-1)?.query, { since: '2020-01-01T00:00:00Z', per_page: '5' });
  assert.equal(await c.request('DELETE', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: id }), undefined);
  assert.equal(standIn.requests.at(-1)?.body, undefined);
  assertAllValid(standIn);
});

test('paginate follows Link rel="next" with per_page=100 over 250 comments', async () => {
  for (let i = 0; i < 250; i++) standIn.addComment({ ...repo, issueNumber: 3, body: `comment ${i}`, user: human });
  const comments = await client().paginate<{ body: string }>(COMMENTS, { ...repo, issue_number: 3 });
  assert.equal(comments.length, 250);
  assert.deepEqual(comments.map((c) => c.body), Array.from({ length: 250 }, (_, i) => `comment ${i}`));
  assert.deepEqual(standIn.requests.map((r) => [r.query.per_page, r.query.page ?? '1']), [['100', '1'], ['100', '2'], ['100', '3']]);
  assertAllValid(standIn);
});

test('paginate unwraps { total_count, artifacts } pages', async () => {
  for (let i = 0; i < 3; i++) standIn.addArtifact({ ...repo, runId: 42, name: `shard-${i}`, data: new Uint8Array([i]) });
  const artifacts = await client().paginate<{ name: string }>('/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { ...repo, run_id: 42, per_page: 2 });
  assert.deepEqual(artifacts.map((a) => a.name).sort(), ['shard-0', 'shard-1', 'shard-2']);
  assert.equal(standIn.requests.length, 2);
  assertAllValid(standIn);
});

test('a 502 is retried after a backoff, then succeeds', async () => {
  standIn.addComment({ ...repo, issueNumber: 4, body: 'x', user: human });
  standIn.failNext({ method: 'GET', path: COMMENTS, status: 502, body: { message: 'Server Error' } });
  const comments = await client().paginate(COMMENTS, { ...repo, issue_number: 4 });
  assert.equal(comments.length, 1);
  assert.deepEqual(standIn.requests.map((r) => r.status), [502, 200]);
  assert.deepEqual(sleeps, [1000]);
});

test('5xx retries are bounded: after maxRetries the GitHubError carries the last status', async () => {
  standIn.failNext({ method: 'GET', path: COMMENTS, status: 503, times: 10, body: { message: 'Service Unavailable' } });
  await assert.rejects(client({ maxRetries: 3 }).request('GET', COMMENTS, { ...repo, issue_number: 4 }), (e: unknown) => {
    assert.ok(e instanceof GitHubError);
    assert.equal(e.status, 503);
    assert.equal(e.message, 'GitHub API GET /repos/octo-org/widgets/issues/4/comments failed with 503: Service Unavailable');
    return true;
  });
  assert.equal(standIn.requests.length, 4);
  assert.deepEqual(sleeps, [1000, 2000, 4000]);
  standIn.requests.length = 0;
});

test('a secondary rate limit with retry-after waits that many seconds', async () => {
  standIn.failNext({ method: 'POST', path: COMMENTS, status: 403, headers: { 'retry-after': '7' }, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' } });
  const created = await client().request<{ body: string }>('POST', COMMENTS, { ...repo, issue_number: 5, body: 'after the wait' });
  assert.equal(created.body, 'after the wait');
  assert.deepEqual(sleeps, [7000]);
  assert.deepEqual(standIn.requests.map((r) => r.status), [403, 201]);
});

test('x-ratelimit-remaining: 0 waits until x-ratelimit-reset; a secondary limit without headers waits a minute', async () => {
  const nowMs = 1_700_000_000_000;
  mock.timers.enable({ apis: ['Date'], now: nowMs });
  standIn.failNext({ path: COMMENTS, status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowMs / 1000 + 30) }, body: { message: 'API rate limit exceeded' } });
  await client().request('GET', COMMENTS, { ...repo, issue_number: 5 });
  assert.deepEqual(sleeps, [31_000]);

  sleeps.length = 0;
  standIn.failNext({ path: COMMENTS, status: 403, body: { message: 'You have exceeded a secondary rate limit.' } });
  await client().request('GET', COMMENTS, { ...repo, issue_number: 5 });
  assert.deepEqual(sleeps, [60_000]);
});

test('a rate limit that resets beyond maxWaitMs fails at once instead of hanging', async () => {
  const nowMs = 1_700_000_000_000;
  mock.timers.enable({ apis: ['Date'], now: nowMs });
  standIn.failNext({ path: COMMENTS, status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowMs / 1000 + 3600) }, body: { message: 'API rate limit exceeded for installation ID 1.' } });
  await assert.rejects(client({ maxWaitMs: 60_000 }).request('GET', COMMENTS, { ...repo, issue_number: 5 }), /GET \/repos\/octo-org\/widgets\/issues\/5\/comments failed with 403: API rate limit exceeded for installation ID 1\.: not retried: GitHub asks to wait 3601 s, more than maxWaitMs \(60 s\)/);
  assert.deepEqual(sleeps, []);
  standIn.requests.length = 0;
});

test('a plain 403 or 404 is final, and the error names method, path, status and GitHub\'s message', async () => {
  await assert.rejects(client().request('GET', '/user'), (e: unknown) => {
    assert.ok(e instanceof GitHubError);
    assert.equal(e.message, 'GitHub API GET /user failed with 403: Resource not accessible by integration');
    assert.equal(e.githubMessage, 'Resource not accessible by integration');
    assert.match(e.documentationUrl ?? '', /^https:\/\/docs\.github\.com\//);
    return true;
  });
  await assert.rejects(client().request('PATCH', '/repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo, comment_id: 999, body: 'x' }), {
    name: 'GitHubError',
    message: 'GitHub API PATCH /repos/octo-org/widgets/issues/comments/999 failed with 404: Not Found',
  });
  assert.deepEqual(sleeps, []);
});

test('a 422 error message carries GitHub\'s validation message', async () => {
  await assert.rejects(client().request('POST', '/repos/{owner}/{repo}/check-runs', { ...repo, name: 'bench', head_sha: 'abc', conclusion: 'great' }), (e: unknown) => {
    assert.ok(e instanceof GitHubError);
    assert.equal(e.status, 422);
    assert.match(e.message, /^GitHub API POST \/repos\/octo-org\/widgets\/check-runs failed with 422: Invalid request\./);
    assert.match(e.message, /conclusion must be equal to one of the allowed values/);
    return true;
  });
  standIn.requests.length = 0;
});

test('network errors are retried, then reported with status 0', async () => {
  let calls = 0;
  const flaky: typeof fetch = async (input, init) => {
    calls++;
    if (calls === 1) throw new TypeError('fetch failed');
    return fetch(input, init);
  };
  await client({ fetch: flaky }).request('GET', COMMENTS, { ...repo, issue_number: 1 });
  assert.equal(calls, 2);
  const dead = createGitHubClient({ token: 't', apiUrl: 'http://127.0.0.1:1', sleep: async () => {}, maxRetries: 1 });
  await assert.rejects(dead.request('GET', '/user'), (e: unknown) => e instanceof GitHubError && e.status === 0 && /^GitHub API GET \/user failed without a response/.test(e.message));
});

test('paginate refuses a Link that would send the token to another origin', async () => {
  const fake: typeof fetch = async () => new Response('[]', { status: 200, headers: { 'content-type': 'application/json', link: '<https://evil.example/repos/o/r/issues/1/comments?page=2>; rel="next"' } });
  const c = createGitHubClient({ token: 't', apiUrl: 'https://api.github.com', fetch: fake });
  await assert.rejects(c.paginate(COMMENTS, { owner: 'o', repo: 'r', issue_number: 1 }), /refusing to follow a Link: rel="next" to another origin \(https:\/\/evil\.example\)/);
});

test('download follows the redirect without sending the token to the archive host', async () => {
  const a = standIn.addArtifact({ ...repo, runId: 9, name: 'bench-results', data: new Uint8Array([0x50, 0x4b, 3, 4]) });
  const bytes = await client().download('/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { ...repo, artifact_id: a.id, archive_format: 'zip' });
  assert.deepEqual([...bytes], [0x50, 0x4b, 3, 4]);
  const blob = standIn.blobRequests.at(-1);
  assert.equal(blob?.path, `/__stand-in/blobs/artifacts/${a.id}.zip`);
  assert.equal(blob?.headers.authorization, undefined);
  a.expired = true;
  await assert.rejects(client().download('/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { ...repo, artifact_id: a.id, archive_format: 'zip' }), /failed with 410: Artifact has expired/);
  assertAllValid(standIn);
});

test('download with maxBytes: an announced Content-Length above it is refused unread; a body that runs past it is cut off there', async () => {
  const ARCHIVE = '/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}';
  const honest = standIn.addArtifact({ ...repo, runId: 9, name: 'big', data: new Uint8Array(4096) });
  await assert.rejects(client().download(ARCHIVE, { ...repo, artifact_id: honest.id, archive_format: 'zip' }, { maxBytes: 1000 }), (e: Error) => e instanceof DownloadTooLargeError && /announces 4096 bytes \(Content-Length\); at most 1000 bytes are read/.test(e.message));
  const exact = await client().download(ARCHIVE, { ...repo, artifact_id: honest.id, archive_format: 'zip' }, { maxBytes: 4096, expectedBytes: 4096 });
  assert.equal(exact.length, 4096);
  const liar = standIn.addArtifact({ ...repo, runId: 9, name: 'liar', data: new Uint8Array([0x50, 0x4b]), servedBytes: 64 * 1024 * 1024 });
  await assert.rejects(client().download(ARCHIVE, { ...repo, artifact_id: liar.id, archive_format: 'zip' }, { maxBytes: 1024 * 1024, expectedBytes: 2 }), /the body ran past 1048576 bytes \(it was said to hold 2\) and was stopped there/);
  assert.ok(standIn.blobRequests.at(-1)!.bytesSent < 32 * 1024 * 1024, 'the reader stopped long before the 64 MiB on offer');
});

test('apiUrl defaults to GITHUB_API_URL, then api.github.com; trailing slashes are dropped', () => {
  const saved = process.env.GITHUB_API_URL;
  try {
    process.env.GITHUB_API_URL = 'http://127.0.0.1:9/';
    assert.equal(createGitHubClient({ token: '' }).apiUrl, 'http://127.0.0.1:9');
    delete process.env.GITHUB_API_URL;
    assert.equal(createGitHubClient({ token: '' }).apiUrl, 'https://api.github.com');
  } finally {
    if (saved === undefined) delete process.env.GITHUB_API_URL;
    else process.env.GITHUB_API_URL = saved;
  }
});

test('expandPath encodes values and refuses a missing placeholder', () => {
  assert.deepEqual(expandPath('/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { owner: 'o', repo: 'r', workflow_id: 'bench ci.yml', ref: 'main' }), {
    path: '/repos/o/r/actions/workflows/bench%20ci.yml/dispatches',
    rest: { ref: 'main' },
  });
  assert.throws(() => expandPath('/repos/{owner}/{repo}', { owner: 'o' }), /no value for \{repo\} in \/repos\/\{owner\}\/\{repo\}/);
});
