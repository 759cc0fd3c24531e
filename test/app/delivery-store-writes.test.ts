// Deliveries that do nothing cost no store write (issue 24, item 4), through the real server and the stand-in: a plain
// comment, a bot's `/bench`, a `/bench` inside a code block, a comment on an issue and the completion of another
// workflow (CI) are answered 200 with no write to the store (before, each cost two: the delivery's claim and its
// `done`), while a command or a `/bench` completion is still claimed, so its redelivery under the same id does nothing
// a second time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { BENCH_WORKFLOW, benchArtifact, commentEvent, deliver, makeZip, OWNER, REPO, runEvent, seedPull, sha, startHarness, type Harness } from './app-harness.ts';

const WRITES = new Set(['compareAndSetState', 'putState', 'deleteState']);

/** countingStore is the store as the app sees it, counting every call that writes app state. */
function countingStore(store: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (WRITES.has(String(prop))) return (...args: unknown[]) => (writes.push(`${String(prop)} ${String(args[0])}`), value.apply(target, args));
      return value.bind(target);
    },
  });
  return { store: wrapped, writes };
}

let h: Harness;
let counted: ReturnType<typeof countingStore>;
let own: Store;
const dir = mkdtempSync(join(tmpdir(), 'benchbot-writes-'));
before(async () => {
  own = await openStore(join(dir, 'app.db'), { cwd: dir });
  counted = countingStore(own);
  h = await startHarness({ store: counted.store });
});
after(async () => {
  await h.close();
  await own.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a delivery that does nothing is answered 200 with no store write', async () => {
  const issue = commentEvent(h, { body: '/bench', login: 'maintainer' });
  delete issue.issue.pull_request;
  const cases: [string, Record<string, any>][] = [
    ['a plain comment', commentEvent(h, { body: 'Looks good to me, thanks!', login: 'reviewer' })],
    ['a bot\'s /bench', commentEvent(h, { body: '/bench', login: 'other-bot[bot]', type: 'Bot' })],
    ['/bench inside a code block', commentEvent(h, { body: 'try\n\n```\n/bench\n```', login: 'reviewer' })],
    ['a /bench on an issue, not a pull request', issue],
    ['a workflow_run that is not completed', { ...runEvent({ runId: 77, conclusion: 'success' }), action: 'requested' }],
    ['the completion of a CI workflow', runEvent({ runId: 78, conclusion: 'success', workflow: 'ci.yml', event: 'push' })],
    ['a completion of the /bench workflow the app never dispatched', runEvent({ runId: 79, conclusion: 'success' })],
  ];
  for (const [what, payload] of cases) {
    const before = counted.writes.length;
    const reply = await deliver(h, 'workflow_run' in payload ? 'workflow_run' : 'issue_comment', payload);
    assert.equal(reply.status, 200, `${what}: ${reply.text}`);
    assert.deepEqual(counted.writes.slice(before), [], `${what}: no store write`);
  }
  assert.equal(h.outcomes.length, cases.length - 1, 'the handled events were seen (the requested workflow_run has no handler)');
  assert.ok(h.outcomes.every((o) => o.outcome === 'ignored' || o.outcome === 'untrusted'), JSON.stringify(h.outcomes));
  assert.equal(h.stand.state.comments.filter((c) => c.user.type === 'Bot' && c.user.login !== 'other-bot[bot]').length, 0, 'nothing was answered');
});

test('a command delivery is still claimed, and its redelivery under the same id does nothing again', async () => {
  const payload = commentEvent(h, { body: '/bench help', login: 'stranger', pr: 9 });
  const before = counted.writes.length;
  const first = await deliver(h, 'issue_comment', payload);
  assert.equal(first.status, 200, first.text);
  const written = counted.writes.slice(before);
  assert.ok(written.some((w) => w === `compareAndSetState delivery:${first.id}`), `the delivery was claimed: ${written.join('; ')}`);
  const replies = () => h.stand.state.comments.filter((c) => c.issueNumber === 9 && c.user.type === 'Bot').map((c) => `${c.id}@${c.updatedAt}`);
  const answered = replies();
  assert.equal(answered.length, 1, 'the help was answered');

  const again = await deliver(h, 'issue_comment', payload, { id: first.id });
  assert.equal(again.status, 200, again.text);
  assert.equal(h.outcomes.at(-1)?.outcome, 'duplicate', 'the redelivery was recognized by its id');
  assert.deepEqual(replies(), answered, 'and changed nothing on GitHub');
});

test('a /bench completion is still claimed, and its redelivery under the same id does nothing again', async () => {
  h.stand.state.permissions = { maintainer: 'maintain' };
  h.stand.state.workflows = [BENCH_WORKFLOW];
  seedPull(h, { number: 42, head: sha('head'), base: sha('base') });
  const approved = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }));
  assert.equal(approved.status, 200, approved.text);
  const runId = Number(h.stand.state.checkRuns.find((c) => c.name === 'benchbot /bench')?.externalId);
  h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip(benchArtifact()) });
  const payload = runEvent({ runId, conclusion: 'success' });
  const before = counted.writes.length;
  const first = await deliver(h, 'workflow_run', payload);
  assert.equal(first.status, 200, first.text);
  assert.equal(h.outcomes.at(-1)?.outcome, 'reported');
  assert.ok(counted.writes.slice(before).includes(`compareAndSetState delivery:${first.id}`), 'the completion was claimed');
  const sticky = () => h.stand.state.comments.filter((c) => c.issueNumber === 42 && c.body.startsWith(REPORT_MARKER)).map((c) => `${c.id}@${c.updatedAt}:${c.body.length}`);
  const reported = sticky();
  assert.equal(reported.length, 1);
  const requests = h.stand.requests.length;

  const again = await deliver(h, 'workflow_run', payload, { id: first.id });
  assert.equal(again.status, 200, again.text);
  assert.equal(h.outcomes.at(-1)?.outcome, 'duplicate', 'the redelivery was recognized by its id');
  assert.deepEqual(sticky(), reported, 'the report was not written again');
  assert.deepEqual(h.stand.requests.slice(requests).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), [], 'nothing was written to GitHub');
});
