// Answer, then work (issue 24, items 1 and 3), through the real server on SQLite: a delivery is verified, stored as
// a job and answered at once, whatever its handler waits on; the workers pace GitHub writes per installation (Probot's
// throttling plugin, on as `benchbot serve` ships it: a second between writes, three between comments), and /healthz
// shows the queue and the pacing backlog meanwhile; a redelivery of a stored id runs nothing twice; a job that keeps
// failing is retried with a backoff, then dead and shown, and a redelivery of a dead id tries it again.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { commentEvent, deliver, INSTALLATION_ID, settled, startHarness, type Harness } from './app-harness.ts';

const harnesses: Harness[] = [];
after(async () => {
  for (const h of harnesses) await h.close();
});

const replies = (h: Harness) => h.stand.state.comments.filter((c) => c.body.startsWith(REPLY_MARKER));
const health = async (h: Harness) => (await (await fetch(`${h.app.url}/healthz`)).json()) as Record<string, any>;

test('deliveries are answered at once while the workers wait on GitHub\'s write pacing, which /healthz shows', { timeout: 90_000 }, async (t) => {
  // As shipped: the throttling plugin on, GitHub's spacing (no writeIntervalMs).
  const h = await startHarness({ throttle: true, writeIntervalMs: undefined });
  harnesses.push(h);
  const prs = [11, 12, 13, 14, 15];
  // One delivery first, so that the first timed one does not pay for the code's first run.
  await deliver(h, 'issue_comment', commentEvent(h, { body: 'warming up', login: 'reviewer', pr: 10 }));
  const started = performance.now();
  const answers: number[] = [];
  const ids: string[] = [];
  for (const pr of prs) {
    const sent = performance.now();
    const r = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: `asker-${pr}`, pr }), { wait: false });
    answers.push(performance.now() - sent);
    assert.equal(r.status, 200);
    assert.equal(r.text.trim(), 'queued');
    ids.push(r.id);
  }
  const shown = answers.map((ms) => ms.toFixed(1)).join(', ');
  t.diagnostic(`answers: ${shown} ms`);
  // The work takes 12 s or more (four 3 s gaps); the answers do not wait for it, so none takes a second. How fast
  // they are (the < 100 ms p99 target) is measured by npm run bench:app, not here: on this 2-core machine shared with
  // other suites the median was 110 ms at load 20, which says nothing about the queue.
  assert.ok(Math.max(...answers) < 1000, `no delivery waited on its work: ${shown}`);

  // The replies are comments: three seconds apart per installation. Meanwhile /healthz shows what waits.
  let seenBacklog: Record<string, any> | undefined;
  let seenQueue: Record<string, any> | undefined;
  while (replies(h).length < prs.length) {
    const body = await health(h);
    assert.equal(body.status, 'ok');
    if (body.pacing.backlog.length > 0) seenBacklog ??= body.pacing;
    if (body.queue.depth > 0) seenQueue ??= body.queue;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const took = performance.now() - started;
  t.diagnostic(`${prs.length} replies made in ${(took / 1000).toFixed(1)} s; /healthz meanwhile: queue ${JSON.stringify(seenQueue)}, pacing ${JSON.stringify(seenBacklog)}`);
  assert.ok(took >= (prs.length - 1) * 3000 * 0.9, `the comments were paced 3 s apart (${took.toFixed(0)} ms for ${prs.length})`);
  assert.equal(seenBacklog?.notifyingWriteSpacingMs, 3000);
  assert.equal(seenBacklog?.backlog[0].installation, String(INSTALLATION_ID));
  assert.ok(seenBacklog?.backlog[0].writesWaiting + seenBacklog?.backlog[0].notifyingWritesWaiting > 0, 'writes waiting on the pacing were shown');
  assert.ok(seenQueue !== undefined && seenQueue.leased > 0 && typeof seenQueue.oldestAgeMs === 'number', 'the queue depth and oldest job age were shown');
  for (const id of ids) assert.equal((await settled(h, id)).status, 'done');
  const after = await health(h);
  assert.equal(after.queue.depth, 0);
  assert.equal(after.queue.oldestAgeMs, null);
  assert.deepEqual(after.pacing.backlog, []);
  assert.equal(after.workers.running, 0);
});

test('a redelivery of a stored id runs nothing twice, while the first is running and after', async () => {
  const h = await startHarness({ jobs: { retryBaseMs: 200, pollMs: 20 } });
  harnesses.push(h);
  h.stand.jitterMs = 50;
  const payload = commentEvent(h, { body: '/bench help', login: 'asker', pr: 21 });
  const id = randomUUID();
  const [first, second] = await Promise.all([deliver(h, 'issue_comment', payload, { id, wait: false }), deliver(h, 'issue_comment', payload, { id, wait: false })]);
  assert.deepEqual([first.text.trim(), second.text.trim()].sort(), ['duplicate', 'queued']);
  assert.equal((await settled(h, id)).status, 'done');
  const again = await deliver(h, 'issue_comment', payload, { id });
  assert.equal(again.text.trim(), 'duplicate');
  assert.equal(replies(h).filter((c) => c.issueNumber === 21).length, 1);
  assert.equal(h.outcomes.filter((o) => o.id === id && o.outcome !== 'duplicate').length, 1, 'the handler ran once');
});

test('a job that keeps failing is retried with a backoff, then dead and shown in /healthz; a redelivery tries it again', async () => {
  const h = await startHarness({ jobs: { retryBaseMs: 100, maxAttempts: 3, pollMs: 20 } });
  harnesses.push(h);
  // A 403 is not retried by Octokit: every attempt fails.
  h.stand.failNext({ method: 'POST', path: /\/issues\/31\/comments$/, status: 403, times: 3 });
  const payload = commentEvent(h, { body: '/bench help', login: 'asker', pr: 31 });
  const r = await deliver(h, 'issue_comment', payload, { wait: false });
  const dead = await settled(h, r.id);
  assert.equal(dead.status, 'dead');
  assert.equal(dead.attempts, 3);
  assert.match(dead.lastError ?? '', /403/);
  const attempts = h.stand.requests.filter((q) => q.method === 'POST' && /\/issues\/31\/comments$/.test(q.path));
  assert.equal(attempts.length, 3, 'three attempts');
  const body = await health(h);
  assert.equal(body.queue.dead, 1);
  assert.equal(body.queue.newestDead[0].id, r.id);
  assert.match(body.queue.newestDead[0].error, /403/);
  assert.equal(replies(h).filter((c) => c.issueNumber === 31).length, 0);

  const again = await deliver(h, 'issue_comment', payload, { id: r.id });
  assert.equal(again.text.trim(), 'requeued');
  assert.equal(again.job?.status, 'done');
  assert.equal(replies(h).filter((c) => c.issueNumber === 31).length, 1);
  assert.equal((await health(h)).queue.dead, 0);
});

test('GitHub\'s secondary rate limit is waited out in the worker by its retry-after, never in the answer; a longer one reschedules the job', async (t) => {
  // The throttling plugin on (as shipped), without write spacing so that only the limit waits.
  const h = await startHarness({ throttle: true, writeIntervalMs: 0 });
  harnesses.push(h);
  const limited = { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api' };
  h.stand.failNext({ method: 'POST', path: /\/issues\/41\/comments$/, status: 403, headers: { 'retry-after': '2' }, body: limited });
  const sent = performance.now();
  const r = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'asker', pr: 41 }), { wait: false });
  const answered = performance.now() - sent;
  assert.equal(r.text.trim(), 'queued');
  const job = await settled(h, r.id);
  const took = performance.now() - sent;
  t.diagnostic(`403 with retry-after: 2: answered in ${answered.toFixed(1)} ms, the reply made after ${(took / 1000).toFixed(1)} s in one attempt`);
  assert.ok(answered < 1000, `answered at once (${answered.toFixed(0)} ms)`);
  assert.equal(job.status, 'done');
  assert.equal(job.attempts, 1, 'the wait happened inside the attempt');
  assert.ok(took >= 2000, `the worker waited what GitHub asked (${took.toFixed(0)} ms)`);
  const posts = h.stand.requests.filter((q) => q.method === 'POST' && /\/issues\/41\/comments$/.test(q.path)).map((q) => q.status);
  assert.deepEqual(posts, [403, 201]);

  // Past the two minutes a worker waits in place, the job fails and is rescheduled no sooner than GitHub's retry-after.
  h.stand.failNext({ method: 'POST', path: /\/issues\/42\/comments$/, status: 429, headers: { 'retry-after': '600' }, body: limited });
  const long = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'asker', pr: 42 }));
  assert.equal(long.job?.status, 'ready');
  assert.equal(long.job?.attempts, 1);
  const wait = (long.job?.dueMs ?? 0) - Date.now();
  t.diagnostic(`429 with retry-after: 600: the job waits ${(wait / 1000).toFixed(0)} s before its second attempt (the backoff alone is 0.2 s here)`);
  assert.ok(wait > 590_000, `rescheduled after GitHub's retry-after (${wait} ms)`);
  assert.equal((await health(h)).queue.retrying, 1);
});

test('two replicas pace one installation together: comments three seconds apart, whichever replica writes them', { timeout: 90_000 }, async (t) => {
  const h = await startHarness({ throttle: true, writeIntervalMs: undefined });
  harnesses.push(h);
  const b = await h.startReplica();
  const prs = [61, 62, 63, 64];
  const seen: number[] = [];
  let counted = 0;
  const watch = setInterval(() => {
    const posts = h.stand.requests.filter((q) => q.method === 'POST' && /\/issues\/\d+\/comments$/.test(q.path)).length;
    for (; counted < posts; counted++) seen.push(performance.now());
  }, 5);
  let booked: unknown;
  try {
    const ids = [];
    for (const [i, pr] of prs.entries()) ids.push((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: `asker-${pr}`, pr }), { wait: false, to: i % 2 === 0 ? h.app : b })).id);
    while (replies(h).length < prs.length) {
      const body = await (await fetch(`${b.url}/healthz`)).json();
      if (body.pacing.bookedAhead.length > 0) booked ??= body.pacing.bookedAhead;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const id of ids) assert.equal((await settled(h, id)).status, 'done');
  } finally {
    clearInterval(watch);
  }
  const gaps = seen.slice(1).map((at, i) => at - seen[i]);
  const by = new Set((await Promise.all(h.outcomes.map((o) => h.store.getJob(o.id)))).map((j) => j?.leasedBy));
  t.diagnostic(`comment POSTs ${gaps.map((g) => g.toFixed(0)).join(', ')} ms apart, by ${by.size} replica(s); booked ahead meanwhile: ${JSON.stringify(booked)}`);
  assert.equal(seen.length, prs.length);
  // Booked starts are 3 s apart; a request's own trip (on a shared machine) moves when the stand-in sees it by a little.
  // Two replicas pacing apart would put two comments together (a gap near 0) every time both had one waiting.
  assert.ok(gaps.every((g) => g >= 2500), `three seconds apart: ${gaps.map((g) => g.toFixed(0)).join(', ')}`);
  assert.ok(seen.at(-1)! - seen[0] >= (prs.length - 1) * 3000 * 0.95, 'over the whole run too');
  assert.ok(Array.isArray(booked) && (booked as { key: string }[]).some((k) => k.key === `notify:${INSTALLATION_ID}`), 'the booked schedule is shown');
});
