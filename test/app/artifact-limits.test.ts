// The app downloads a /bench run's `benchbot-report` artifact, which the
// measuring job (the code under test) could have uploaded itself, so its
// size is the attacker's. Through the real server and the API stand-in: an
// artifact listed above the cap is refused without a download, and one
// listed small whose body keeps coming (1 GiB) is cut off at the cap, with
// the app's memory bounded by the cap rather than by the body (issue 22,
// item 4: an 839 MB artifact was read into memory whole).
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_ARTIFACT_BYTES } from '../../src/app/artifact-file.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, benchArtifact, commentEvent, deliver, makeZip, runEvent, seedPull, sha, startHarness, waitFor, type Harness } from './app-harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});
beforeEach(async () => {
  for (const entry of await h.store.listState('')) await h.store.deleteState(entry.key);
  h.stand.reset();
  h.stand.state.permissions = { maintainer: 'maintain' };
  h.stand.state.workflows = [BENCH_WORKFLOW];
  seedPull(h, { number: 42, head: sha('head'), base: sha('base'), fork: true });
});

const sticky = () => h.stand.state.comments.filter((c) => c.issueNumber === 42 && c.body.split('\n')[0] === REPORT_MARKER)[0]?.body ?? '';
const downloads = () => h.stand.requests.filter((r) => /\/actions\/artifacts\/\d+\/zip$/.test(r.path));

/** completeBench sends a maintainer's `/bench`, seeds the run's artifact and delivers the run's completion; returns what the handler did. */
async function completeBench(artifact: { listedSize?: number; servedBytes?: number }): Promise<string | undefined> {
  assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
  assert.equal(h.outcomes.at(-1)?.outcome, 'dispatched');
  const runId = Number(h.stand.state.checkRuns[0].externalId);
  h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip(benchArtifact()), ...artifact });
  const handled = h.outcomes.length;
  assert.equal((await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }))).status, 200);
  await waitFor(() => h.outcomes.length > handled, 60_000);
  return h.outcomes.at(-1)?.outcome;
}

test('the control: an honest artifact is downloaded once and reported', async () => {
  assert.equal(await completeBench({}), 'reported');
  assert.equal(downloads().length, 1);
  assert.match(sticky(), /BM_Parse\/64/);
});

test('an artifact listed above the cap is refused by its size_in_bytes: nothing is downloaded, the comment says why', async () => {
  const outcome = await completeBench({ listedSize: MAX_ARTIFACT_BYTES + 1 });
  assert.equal(outcome, 'failure-reported');
  assert.equal(downloads().length, 0, 'the archive endpoint was not asked');
  assert.deepEqual(h.stand.blobRequests, [], 'no byte of the archive was fetched');
  assert.match(sticky(), new RegExp(`artifact benchbot-report is ${MAX_ARTIFACT_BYTES + 1} bytes; the app reads artifacts of at most ${MAX_ARTIFACT_BYTES} bytes, so it was not downloaded`));
  assert.equal(h.stand.state.checkRuns[0].status, 'completed');
  assertAllValid(h.stand);
});

test('an artifact listed small whose body runs to 1 GiB is cut off at the cap; memory stays bounded by the cap', async (t) => {
  const servedBytes = 1024 * 1024 * 1024;
  const baseline = process.memoryUsage();
  let peak = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = Math.max(peak, m.arrayBuffers - baseline.arrayBuffers);
  }, 5);
  let outcome: string | undefined;
  try {
    outcome = await completeBench({ servedBytes });
  } finally {
    clearInterval(sampler);
  }
  const sent = h.stand.blobRequests[0]?.bytesSent ?? 0;
  t.diagnostic(`served ${sent} of ${servedBytes} bytes; peak arrayBuffers growth ${(peak / 2 ** 20).toFixed(1)} MiB; cap ${MAX_ARTIFACT_BYTES / 2 ** 20} MiB`);
  assert.equal(outcome, 'failure-reported');
  assert.match(sticky(), new RegExp(`artifact benchbot-report, listed at \\d+ bytes, is larger than the ${MAX_ARTIFACT_BYTES} bytes the app reads: .*ran past ${MAX_ARTIFACT_BYTES} bytes .*and was stopped there`));
  // The reader stopped: what the socket took is the cap plus what kernel buffers hold, far from the 1 GiB on offer.
  assert.ok(sent < MAX_ARTIFACT_BYTES + 64 * 2 ** 20, `the stand-in sent ${sent} bytes`);
  // One buffer of at most the cap (plus chunks in flight and the test's own zeros), never the body.
  assert.ok(peak < MAX_ARTIFACT_BYTES + 64 * 2 ** 20, `arrayBuffers grew by ${peak} bytes`);
  assert.equal(h.stand.state.checkRuns[0].status, 'completed');
  assertAllValid(h.stand);
});
