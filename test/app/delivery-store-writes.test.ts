// Deliveries that do nothing cost no store write (issue 24, item 4), through the real server and the stand-in: a plain
// comment, a bot's `/bench`, a `/bench` inside a code block, a comment on an issue and a workflow run that is not
// completed are answered 200 from their payload alone, with no write to the store (before, each cost two: the
// delivery's claim and its `done`). A completed run needs GitHub reads to tell whether the app acts on it, which belong
// in a worker: it is stored as a job (its writes are the job's), and the handler writes no app state for the completion
// of another workflow (CI). A command or a `/bench` completion is stored as a job under its delivery id, so its
// redelivery under the same id does nothing a second time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { BENCH_WORKFLOW, benchArtifact, commentEvent, deliver, makeZip, OWNER, REPO, runEvent, seedPull, sha, startHarness, type Harness } from './app-harness.ts';

const WRITES = new Set(['compareAndSetState', 'putState', 'deleteState', 'enqueueJob', 'claimJobs', 'renewJob', 'finishJob', 'failJob', 'releaseJob', 'pruneJobs']);
const JOB_WRITES = /^(enqueueJob|claimJobs|renewJob|finishJob|failJob|releaseJob|pruneJobs) /;

/** countingStore is the store as the app sees it, counting every call that writes app state. */
function countingStore(store: Store): { store: Store; writes: string[] } {
  const writes: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (WRITES.has(String(prop))) return (...args: unknown[]) => (writes.push(`${String(prop)} ${typeof args[0] === 'object' ? String((args[0] as { id?: string; owner?: string }).id ?? (args[0] as { owner?: string }).owner) : String(args[0])}`), value.apply(target, args));
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
  const queued = new Set(['the completion of a CI workflow', 'a completion of the /bench workflow the app never dispatched']);
  for (const [what, payload] of cases) {
    const before = counted.writes.length;
    const reply = await deliver(h, 'workflow_run' in payload ? 'workflow_run' : 'issue_comment', payload);
    assert.equal(reply.status, 200, `${what}: ${reply.text}`);
    const written = counted.writes.slice(before).filter((w) => !w.startsWith('claimJobs ') || queued.has(what));
    if (queued.has(what)) {
      assert.equal(reply.text.trim(), 'queued', what);
      assert.deepEqual(written.filter((w) => !JOB_WRITES.test(w)), [], `${what}: no app state written, only its job`);
    } else {
      assert.equal(reply.text.trim(), 'ignored', what);
      assert.deepEqual(written.filter((w) => !w.startsWith('claimJobs ')), [], `${what}: no store write`);
      assert.equal(await h.store.getJob(reply.id), undefined, `${what}: not stored`);
    }
  }
  assert.equal(h.outcomes.length, cases.length, 'every delivery was seen, by the server or a handler');
  assert.ok(h.outcomes.every((o) => o.outcome === 'ignored' || o.outcome === 'untrusted'), JSON.stringify(h.outcomes));
  assert.equal(h.stand.state.comments.filter((c) => c.user.type === 'Bot' && c.user.login !== 'other-bot[bot]').length, 0, 'nothing was answered');
});

test('a command delivery is stored as a job, and its redelivery under the same id does nothing again', async () => {
  const payload = commentEvent(h, { body: '/bench help', login: 'stranger', pr: 9 });
  const before = counted.writes.length;
  const first = await deliver(h, 'issue_comment', payload);
  assert.equal(first.status, 200, first.text);
  const written = counted.writes.slice(before);
  assert.ok(written.includes(`enqueueJob ${first.id}`), `the delivery was stored as a job: ${written.join('; ')}`);
  assert.equal(first.job?.status, 'done');
  const replies = () => h.stand.state.comments.filter((c) => c.issueNumber === 9 && c.user.type === 'Bot').map((c) => `${c.id}@${c.updatedAt}`);
  const answered = replies();
  assert.equal(answered.length, 1, 'the help was answered');

  const again = await deliver(h, 'issue_comment', payload, { id: first.id });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.text.trim(), 'duplicate');
  assert.equal(h.outcomes.at(-1)?.outcome, 'duplicate', 'the redelivery was recognized by its id');
  assert.deepEqual(replies(), answered, 'and changed nothing on GitHub');
});

test('a /bench completion is stored as a job, and its redelivery under the same id does nothing again', async () => {
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
  assert.ok(counted.writes.slice(before).includes(`enqueueJob ${first.id}`), 'the completion was stored as a job');
  const sticky = () => h.stand.state.comments.filter((c) => c.issueNumber === 42 && c.body.startsWith(REPORT_MARKER)).map((c) => `${c.id}@${c.updatedAt}:${c.body.length}`);
  const reported = sticky();
  assert.equal(reported.length, 1);
  const requests = h.stand.requests.length;

  const again = await deliver(h, 'workflow_run', payload, { id: first.id });
  assert.equal(again.status, 200, again.text);
  assert.equal(again.text.trim(), 'duplicate');
  assert.equal(h.outcomes.at(-1)?.outcome, 'duplicate', 'the redelivery was recognized by its id');
  assert.deepEqual(sticky(), reported, 'the report was not written again');
  assert.deepEqual(h.stand.requests.slice(requests).filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`), [], 'nothing was written to GitHub');
});
