// github/workflow-dispatch against the GitHub stand-in (OpenAPI-validated):
// a dispatch carries its key as an input that the workflow's run-name shows;
// a workflow that does not declare it is dispatched without it; a
// dispatched run is found again by its key among the workflow's runs,
// newest first, reading no further back than the attempt.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { createGitHubClient, type GitHubClient } from '../../src/github/github-client.ts';
import { DISPATCH_KEY_INPUT, dispatchToken, dispatchWorkflow, findDispatchedRun } from '../../src/github/workflow-dispatch.ts';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';

const WORKFLOW = 'bench.yml';
const where = { owner: 'o', repo: 'r' };
let stand: GitHubApiStandIn;
let client: GitHubClient;

before(async () => {
  stand = await startGitHubApiStandIn();
  client = createGitHubClient({ token: 't', apiUrl: stand.url, maxRetries: 0, writeIntervalMs: 0 });
});
after(() => stand.close());
beforeEach(() => {
  stand.reset();
  stand.state.runNames = { [WORKFLOW]: 'bench #${{ inputs.n }} ${{ inputs.dispatch-key }}' };
  stand.state.declaredInputs = { [WORKFLOW]: ['n', DISPATCH_KEY_INPUT] };
});

test('a token is the effect key hashed: fixed length, the same for the same key, different for another', () => {
  assert.match(dispatchToken('dispatch:o/r#1/2@t'), /^bb[0-9a-f]{16}$/);
  assert.equal(dispatchToken('dispatch:o/r#1/2@t'), dispatchToken('dispatch:o/r#1/2@t'));
  assert.notEqual(dispatchToken('dispatch:o/r#1/2@t'), dispatchToken('dispatch:o/r#1/2@u'));
});

test('the key goes as an input and shows in the run name; a run is found by it among 250 runs, reading back only as far as the attempt', async () => {
  const since = new Date(Date.now() - 1000).toISOString();
  const tokens = Array.from({ length: 250 }, (_, i) => dispatchToken(`k${i}`));
  for (const [i, token] of tokens.entries()) {
    const run = await dispatchWorkflow(client, { ...where, workflow: WORKFLOW, ref: 'main', inputs: { n: String(i) }, token });
    assert.equal(run.keyed, true);
  }
  assert.deepEqual(stand.state.dispatches[7].inputs, { n: '7', [DISPATCH_KEY_INPUT]: tokens[7] });
  assert.equal(stand.state.runs[7].displayTitle, `bench #7 ${tokens[7]}`);
  const lists = () => stand.requests.filter((q) => q.template?.endsWith('/runs')).length;
  // The oldest of 250 (listed newest first, 100 a page): all 3 pages.
  assert.deepEqual(await findDispatchedRun(client, { ...where, workflow: WORKFLOW, token: tokens[0], since }), { id: stand.state.runs[0].id, url: `https://github.com/o/r/actions/runs/${stand.state.runs[0].id}` });
  assert.equal(lists(), 3);
  assert.equal(await findDispatchedRun(client, { ...where, workflow: WORKFLOW, token: dispatchToken('never sent'), since }), null);
  // A key that is another's with more after it is not that key.
  stand.state.runNames[WORKFLOW] = 'bench ${{ inputs.dispatch-key }}x';
  await dispatchWorkflow(client, { ...where, workflow: WORKFLOW, ref: 'main', inputs: { n: 'x' }, token: dispatchToken('suffixed') });
  assert.equal(await findDispatchedRun(client, { ...where, workflow: WORKFLOW, token: dispatchToken('suffixed'), since }), null);
  assertAllValid(stand);
});

test('runs created before the attempt (less the clock skew allowed) end the look: a page reaching back past it is the last', async () => {
  for (let i = 0; i < 120; i++) await dispatchWorkflow(client, { ...where, workflow: WORKFLOW, ref: 'main', inputs: { n: String(i) }, token: dispatchToken(`old ${i}`) });
  // Age them: they were made an hour before the attempt.
  for (const run of stand.state.runs) run.createdAt = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const from = stand.requests.length;
  assert.equal(await findDispatchedRun(client, { ...where, workflow: WORKFLOW, token: dispatchToken('old 0'), since: new Date().toISOString() }), null, 'older than the attempt: not looked at past the first page');
  assert.equal(stand.requests.slice(from).filter((q) => q.template?.endsWith('/runs')).length, 1);
});

test('a workflow that does not declare the key is dispatched without it (GitHub started nothing on its 422); other 422s are the caller\'s', async () => {
  stand.state.declaredInputs[WORKFLOW] = ['n'];
  const run = await dispatchWorkflow(client, { ...where, workflow: WORKFLOW, ref: 'main', inputs: { n: '1' }, token: dispatchToken('k') });
  assert.equal(run.keyed, false);
  assert.deepEqual(stand.state.dispatches.map((d) => d.inputs), [{ n: '1' }]);
  await assert.rejects(dispatchWorkflow(client, { ...where, workflow: WORKFLOW, ref: 'main', inputs: { n: '1', extra: 'x' }, token: dispatchToken('k') }), (error: Error & { status?: number }) => error.status === 422 && /extra/.test(error.message));
  assert.equal(stand.state.dispatches.length, 1);
});
