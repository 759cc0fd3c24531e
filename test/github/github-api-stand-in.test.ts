import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, test } from 'node:test';
import { assertAllValid, startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import type { GitHubApiStandIn } from '../support/github-api-stand-in.ts';

let standIn: GitHubApiStandIn;

before(async () => {
  standIn = await startGitHubApiStandIn();
});
after(() => standIn.close());
afterEach(() => standIn.reset());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(standIn.url + path, {
    method,
    headers: { accept: 'application/vnd.github+json', 'x-github-api-version': '2022-11-28', authorization: 'Bearer t', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, data: text ? JSON.parse(text) : undefined };
}

test('an invalid check run body (conclusion "great") gets 422 and fails assertAllValid', async () => {
  const res = await call('POST', '/repos/o/r/check-runs', { name: 'bench', head_sha: 'abc', status: 'completed', conclusion: 'great' });
  assert.equal(res.status, 422);
  assert.match(res.data.message, /^Invalid request\.\n\nbody\/conclusion must be equal to one of the allowed values \(action_required, cancelled, failure, neutral, success, skipped, stale, timed_out\)$/);
  assert.deepEqual(standIn.requests[0].errors, [res.data.message.replace('Invalid request.\n\n', '')]);
  assert.equal(standIn.state.checkRuns.length, 0);
  assert.throws(() => assertAllValid(standIn), /POST \/repos\/o\/r\/check-runs -> 422\n {4}body\/conclusion must be equal to one of the allowed values/);
});

test('an unknown path gets 404 and is recorded as a validation failure', async () => {
  const res = await call('GET', '/repos/o/r/benchmarks');
  assert.equal(res.status, 404);
  assert.equal(res.data.message, 'Not Found');
  assert.deepEqual(standIn.requests[0].errors, ["no path template in GitHub's OpenAPI description matches GET /repos/o/r/benchmarks"]);
  const wrongMethod = await call('PUT', '/repos/o/r/check-runs', { name: 'x', head_sha: 'y' });
  assert.equal(wrongMethod.status, 404);
  assert.deepEqual(standIn.requests[1].errors, ["PUT is not an operation of /repos/o/r/check-runs in GitHub's OpenAPI description"]);
  assert.throws(() => assertAllValid(standIn));
});

test('parameters are validated: path types, query types, unknown query names, required body fields, stray bodies', async () => {
  assert.equal((await call('GET', '/repos/o/r/issues/twelve/comments')).status, 422);
  assert.match(standIn.requests.at(-1)!.errors[0], /^path parameter issue_number must be integer; got "twelve"$/);
  assert.equal((await call('GET', '/repos/o/r/issues/12/comments?per_page=many')).status, 422);
  assert.equal((await call('GET', '/repos/o/r/issues/12/comments?perPage=100')).status, 422);
  assert.deepEqual(standIn.requests.at(-1)!.errors, ['query parameter perPage is not defined for issues/list-comments']);
  assert.equal((await call('POST', '/repos/o/r/issues/12/comments', { text: 'hi' })).status, 422);
  assert.deepEqual(standIn.requests.at(-1)!.errors, ["body must have required property 'body'"]);
  assert.equal((await call('POST', '/repos/o/r/issues/12/comments')).status, 422);
  assert.deepEqual(standIn.requests.at(-1)!.errors, ['issues/create-comment requires a JSON request body']);
  assert.equal((await call('DELETE', '/repos/o/r/issues/comments/1', { body: 'x' })).status, 422);
  assert.deepEqual(standIn.requests.at(-1)!.errors, ['issues/delete-comment takes no request body, but one was sent']);
  assert.equal((await call('POST', '/repos/o/r/issues/12/comments', '{"body": ')).status, 400);
  assert.equal((await call('GET', '/repos/o/r/issues/12/comments', undefined, { 'x-github-api-version': '2099-01-01' })).status, 422);
  assert.equal(standIn.requests.filter((r) => r.errors.length === 0).length, 0);
});

test('workflow_id is an integer or a file name; a dispatch is recorded; unknown workflows 404 when workflows are listed', async () => {
  assert.equal((await call('POST', '/repos/o/r/actions/workflows/bench.yml/dispatches', { ref: 'refs/pull/7/head', inputs: { sha: 'abc' } })).status, 204);
  assert.equal((await call('POST', '/repos/o/r/actions/workflows/161335/dispatches', { ref: 'main' })).status, 204);
  const detailed = await call('POST', '/repos/o/r/actions/workflows/bench.yml/dispatches', { ref: 'main', return_run_details: true });
  assert.equal(detailed.status, 200);
  assert.equal(typeof detailed.data.workflow_run_id, 'number');
  assert.deepEqual(standIn.state.dispatches.map((d) => [d.workflowId, d.ref]), [['bench.yml', 'refs/pull/7/head'], ['161335', 'main'], ['bench.yml', 'main']]);
  assert.deepEqual(standIn.state.dispatches[0].inputs, { sha: 'abc' });
  assert.equal((await call('POST', '/repos/o/r/actions/workflows/bench.yml/dispatches', { inputs: {} })).status, 422);
  standIn.requests.pop();
  standIn.state.workflows = ['bench.yml'];
  try {
    assert.equal((await call('POST', '/repos/o/r/actions/workflows/other.yml/dispatches', { ref: 'main' })).status, 404);
  } finally {
    standIn.state.workflows = null;
  }
  assertAllValid(standIn);
});

test('list endpoints page with per_page/page and a GitHub-style Link header', async () => {
  for (let i = 0; i < 5; i++) standIn.addComment({ owner: 'o', repo: 'r', issueNumber: 1, body: `c${i}`, user: { login: 'alice', type: 'User' } });
  const res = await call('GET', '/repos/o/r/issues/1/comments?per_page=2&page=2');
  assert.deepEqual(res.data.map((c: { body: string }) => c.body), ['c2', 'c3']);
  const link = res.headers.get('link') ?? '';
  assert.match(link, /<http:\/\/127\.0\.0\.1:\d+\/repos\/o\/r\/issues\/1\/comments\?per_page=2&page=3>; rel="next"/);
  assert.match(link, /page=1>; rel="prev"/);
  assert.match(link, /page=3>; rel="last"/);
  assert.match(link, /page=1>; rel="first"/);
  const defaultPage = await call('GET', '/repos/o/r/issues/1/comments');
  assert.equal(defaultPage.data.length, 5);
  assert.equal(defaultPage.headers.get('link'), null);
  assertAllValid(standIn);
});

test('comments carry GitHub\'s shape: ids, html_url, user { login, type }, timestamps', async () => {
  const created = await call('POST', '/repos/o/r/issues/3/comments', { body: 'hello' });
  assert.equal(created.status, 201);
  assert.equal(created.data.user.login, 'github-actions[bot]');
  assert.equal(created.data.user.type, 'Bot');
  assert.match(created.data.html_url, /^https:\/\/github\.com\/o\/r\/issues\/3#issuecomment-\d+$/);
  assert.match(created.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const reacted = await call('POST', `/repos/o/r/issues/comments/${created.data.id}/reactions`, { content: 'rocket' });
  assert.equal(reacted.status, 201);
  assert.equal((await call('POST', `/repos/o/r/issues/comments/${created.data.id}/reactions`, { content: 'rocket' })).status, 200);
  assert.equal((await call('POST', `/repos/o/r/issues/comments/${created.data.id}/reactions`, { content: 'party' })).status, 422);
  standIn.requests.pop();
  const got = await call('GET', `/repos/o/r/issues/comments/${created.data.id}`);
  assert.equal(got.data.reactions.rocket, 1);
  assert.equal((await call('GET', `/repos/o/r/issues/comments/${created.data.id}/reactions?content=rocket`)).data.length, 1);
  assert.equal((await call('DELETE', `/repos/o/r/issues/comments/${created.data.id}`)).status, 204);
  assert.equal((await call('GET', `/repos/o/r/issues/comments/${created.data.id}`)).status, 404);
  assertAllValid(standIn);
});

test('check runs: create then update; completed without a conclusion is refused as GitHub does', async () => {
  const created = await call('POST', '/repos/o/r/check-runs', { name: 'benchbot', head_sha: 'abc', status: 'in_progress' });
  assert.equal(created.status, 201);
  assert.equal(created.data.conclusion, null);
  const updated = await call('PATCH', `/repos/o/r/check-runs/${created.data.id}`, { conclusion: 'success', output: { title: 'ok', summary: 'all good' } });
  assert.equal(updated.data.status, 'completed');
  assert.equal(updated.data.output.summary, 'all good');
  assert.equal((await call('POST', '/repos/o/r/check-runs', { name: 'benchbot', head_sha: 'abc', status: 'completed' })).status, 422);
  assertAllValid(standIn);
});

test('GET /user: 403 for an installation token (Bot actor), the profile for a user token', async () => {
  assert.equal((await call('GET', '/user')).status, 403);
  const saved = standIn.state.actor;
  standIn.state.actor = { login: 'octocat', type: 'User' };
  try {
    const me = await call('GET', '/user');
    assert.equal(me.status, 200);
    assert.equal(me.data.login, 'octocat');
  } finally {
    standIn.state.actor = saved;
  }
  assertAllValid(standIn);
});

test('collaborator permission comes from state, per repository or per login', async () => {
  standIn.state.permissions = { 'o/r:alice': 'maintain', bob: 'admin' };
  try {
    const alice = await call('GET', '/repos/o/r/collaborators/alice/permission');
    assert.deepEqual([alice.data.permission, alice.data.role_name], ['write', 'maintain']);
    assert.equal((await call('GET', '/repos/o/r/collaborators/bob/permission')).data.permission, 'admin');
    assert.equal((await call('GET', '/repos/o/r/collaborators/mallory/permission')).data.permission, 'read');
  } finally {
    standIn.state.permissions = {};
  }
  assertAllValid(standIn);
});

test('artifacts: listed per repository (with name filter) and per run; download redirects; expired is 410', async () => {
  const a = standIn.addArtifact({ owner: 'o', repo: 'r', runId: 5, name: 'bench-base', data: new Uint8Array([1]) });
  standIn.addArtifact({ owner: 'o', repo: 'r', runId: 6, name: 'bench-head', data: new Uint8Array([2, 2]) });
  const all = await call('GET', '/repos/o/r/actions/artifacts');
  assert.equal(all.data.total_count, 2);
  assert.deepEqual((await call('GET', '/repos/o/r/actions/artifacts?name=bench-head')).data.artifacts.map((x: { size_in_bytes: number }) => x.size_in_bytes), [2]);
  assert.equal((await call('GET', '/repos/o/r/actions/runs/5/artifacts')).data.artifacts[0].id, a.id);
  const redirect = await fetch(`${standIn.url}/repos/o/r/actions/artifacts/${a.id}/zip`, { redirect: 'manual', headers: { authorization: 'Bearer t' } });
  assert.equal(redirect.status, 302);
  assert.match(redirect.headers.get('location') ?? '', /\/__stand-in\/blobs\/artifacts\/\d+\.zip$/);
  a.expired = true;
  assert.equal((await call('GET', `/repos/o/r/actions/artifacts/${a.id}/zip`)).status, 410);
  assertAllValid(standIn);
});

test('state.token makes the stand-in check the bearer token', async () => {
  standIn.state.token = 'sekret';
  try {
    assert.equal((await call('GET', '/repos/o/r/issues/1/comments')).status, 401);
    assert.equal((await call('GET', '/repos/o/r/issues/1/comments', undefined, { authorization: 'Bearer sekret' })).status, 200);
    assert.equal((await call('GET', '/repos/o/r/issues/1/comments', undefined, { authorization: 'token sekret' })).status, 200);
  } finally {
    standIn.state.token = null;
  }
});

test('an operation in the description that the stand-in does not implement answers 501', async () => {
  const res = await call('GET', '/repos/o/r/branches/main');
  assert.equal(res.status, 501);
  assert.match(res.data.message, /does not implement repos\/get-branch \(GET \/repos\/\{owner\}\/\{repo\}\/branches\/\{branch\}\)/);
  assertAllValid(standIn);
});

test('run as a program it prints its URL and serves the recorded requests to other processes', async () => {
  const script = fileURLToPath(new URL('../support/github-api-stand-in.ts', import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    const { url } = JSON.parse(chunk.toString().split('\n')[0]) as { url: string };
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await fetch(`${url}/repos/o/r/issues/1/comments`, { method: 'POST', body: JSON.stringify({ body: 'from outside' }), headers: { 'content-type': 'application/json' } });
    assert.equal(created.status, 201);
    const recorded = (await (await fetch(`${url}/__stand-in/requests`)).json()) as { path: string; errors: string[] }[];
    assert.deepEqual(recorded.map((r) => [r.path, r.errors]), [['/repos/o/r/issues/1/comments', []]]);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
