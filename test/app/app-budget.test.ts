// What comments from accounts without access cost the installation, counted
// at the GitHub API stand-in (issue 22, item 5): the real Probot server on
// loopback, signed deliveries, and the app in its shipped configuration
// (the repository config cached for a minute). Every refusal used to list
// every comment on the pull request and write a reply: 450 comments from 3
// accounts cost 2,604 requests of the installation's 5,000 an hour.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { ANSWER_PERIOD_MS } from '../../src/app/app-state.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, commentEvent, deliver, seedPull, settled, sha, startHarness, forgetAppMemory, type Harness } from './app-harness.ts';

let h: Harness;
/** clock is the app's (deps.now): the test moves it past the answer period. */
let clock = Date.now();
const STRANGERS = ['stranger-1', 'stranger-2', 'stranger-3'];

before(async () => {
  h = await startHarness({ configTtlMs: undefined, now: () => new Date(clock) });
});
after(async () => {
  await h?.close();
});
beforeEach(async () => {
  await forgetAppMemory(h);
  h.stand.reset();
  h.stand.state.permissions = { maintainer: 'maintain' };
  h.stand.state.workflows = [BENCH_WORKFLOW];
  seedPull(h, { number: 42, head: sha('head'), base: sha('base'), fork: true });
  // A long conversation: listing it is 3 pages at 100 a page.
  for (let i = 0; i < 300; i++) h.stand.addComment({ owner: OWNER, repo: REPO, issueNumber: 42, body: `comment ${i}`, user: { login: `member-${i % 7}`, type: 'User' } });
  clock = Date.now();
});

const replies = () => h.stand.state.comments.filter((c) => c.issueNumber === 42 && c.body.split('\n')[0] === REPLY_MARKER);
/** writes are the comment writes (the installation token, also a POST, is not one). */
const writes = (from: number) => h.stand.requests.slice(from).filter((q) => q.method !== 'GET' && q.template?.includes('/comments'));

/** flood sends `rounds` comments from each stranger, one delivery at a time, and checks each was refused. */
async function flood(rounds: number, body: string, outcome: string): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const login of STRANGERS) {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body, login }))).status, 200);
      assert.equal(h.outcomes.at(-1)?.outcome, outcome, `${login}, round ${round}`);
    }
  }
}

test('refused /bench comments cost a few requests per account and hour, however many there are', async (t) => {
  await flood(30, '/bench runs=5', 'refused');
  const first = h.stand.requests.length;
  t.diagnostic(`90 refused /bench from 3 accounts on a pull request with 300 comments: ${first} requests, ${writes(0).length} writes`);
  // Per account: its permission and one reply; once: the token, the config, and finding the reply comment (3 pages).
  assert.ok(first <= 3 + 3 + 1 + 1 + 1 + 4, `${first} requests, the first 20: ${h.stand.requests.slice(0, 20).map((q) => `${q.method} ${q.path}`).join(', ')}`);
  assert.equal(writes(0).length, 3, 'one answer per account');
  assert.equal(replies().length, 1);
  assert.match(replies()[0].body, /^<!-- benchbot:reply -->\n@stranger-3, thanks/);

  // As many again: nothing new to say, nothing asked.
  await flood(30, '/bench', 'refused');
  assert.equal(h.stand.requests.length, first, 'no request at all for the next 90');
  assert.equal(h.stand.state.dispatches.length, 0);

  // An hour later an account is answered again: its permission (asked anew) and one PATCH of the known reply.
  clock += ANSWER_PERIOD_MS + 1000;
  assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'stranger-1' }))).status, 200);
  assert.deepEqual(h.stand.requests.slice(first).map((q) => `${q.method} ${q.template}`), [
    'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
    'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  ]);
  assert.match(replies()[0].body, /^<!-- benchbot:reply -->\n@stranger-1, thanks/);
  assertAllValid(h.stand);
});

test('refused /bench comments arriving all at once cost no more, and leave one reply comment', async (t) => {
  const payloads = Array.from({ length: 45 }, (_, i) => commentEvent(h, { body: '/bench', login: STRANGERS[i % 3] }));
  const handled = h.outcomes.length;
  const answers = await Promise.all(payloads.map((p) => deliver(h, 'issue_comment', p)));
  assert.ok(answers.every((a) => a.status === 200));
  assert.deepEqual(new Set(h.outcomes.slice(handled).map((o) => o.outcome)), new Set(['refused']));
  assert.equal(h.outcomes.length - handled, 45);
  t.diagnostic(`45 refused /bench at once from 3 accounts: ${h.stand.requests.length} requests, ${writes(0).length} writes`);
  assert.ok(h.stand.requests.length <= 3 + 3 + 1 + 1 + 1 + 4, `${h.stand.requests.length} requests`);
  assert.equal(h.stand.requests.filter((q) => q.template?.endsWith('/permission')).length, 3, 'each account asked about once');
  assert.equal(writes(0).length, 3);
  assert.equal(replies().length, 1, 'one reply comment, not one per racing delivery');
  assertAllValid(h.stand);
});

test('a refusal GitHub failed to write is written when the job is retried', async () => {
  const payload = commentEvent(h, { body: '/bench', login: 'stranger-1' });
  // A 403 (not retried by Octokit): e.g. the installation lost issues: write for a moment.
  h.stand.failNext({ method: 'POST', path: /\/issues\/42\/comments$/, status: 403 });
  const failed = await deliver(h, 'issue_comment', payload);
  assert.equal(failed.status, 200, 'answered before the handler ran');
  assert.equal(failed.job?.status, 'ready', 'the failed job waits for its retry');
  assert.equal(replies().length, 0);
  assert.equal((await settled(h, failed.id)).status, 'done');
  assert.equal(h.outcomes.at(-1)?.outcome, 'refused');
  assert.match(replies()[0]?.body ?? '', /^<!-- benchbot:reply -->\n@stranger-1, thanks/);
});

test('/bench help is answered once per account and hour too, and a deleted reply is written again', async () => {
  await flood(10, '/bench help', 'help');
  assert.equal(writes(0).length, 3);
  assert.equal(h.stand.requests.filter((q) => q.template?.endsWith('/permission')).length, 0, 'help needs no permission');
  // Someone deletes the reply: the next answer finds its id gone (404) and writes a new one.
  h.stand.state.comments.splice(h.stand.state.comments.indexOf(replies()[0]), 1);
  const from = h.stand.requests.length;
  assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'stranger-1' }))).status, 200);
  assert.equal(h.outcomes.at(-1)?.outcome, 'refused');
  assert.deepEqual(writes(from).map((q) => `${q.method} ${q.status}`), ['PATCH 404', 'POST 201']);
  assert.equal(replies().length, 1);
  // A maintainer is not throttled by any of it.
  assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
  assert.equal(h.outcomes.at(-1)?.outcome, 'dispatched');
});
