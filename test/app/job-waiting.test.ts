// A job that waits on another is not a failing job (found by bench/app-races.ts's crash sweep and the pacing: a
// /bench run's completion can arrive before the /bench that dispatched it is recorded, and that /bench can sit
// minutes behind GitHub's write pacing). Before, its waits spent the job's attempts (10 + 20 + 40 + 80 s of
// backoff), so a /bench slower than that left its completion dead and the check run in progress for good.
// Here, on the real SQLite store and workers: a waiting job outlives maxAttempts and finishes; a failing one is
// still dead after maxAttempts; and a job that waits past waitMaxMs is dead too, so nothing waits forever.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JOB_DEFAULTS, JobWaiting, startJobWorkers, type JobWorkers } from '../../src/app/job-workers.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { JobRecord, Store } from '../../src/store/store.ts';

const SETTINGS = { ...JOB_DEFAULTS, pollMs: 10, leaseMs: 5_000, maxAttempts: 2, retryBaseMs: 20, retryMaxMs: 40, waitRetryMs: 20, waitMaxMs: 60_000 };
const quiet = { info() {}, warn() {}, error() {} };

let dir: string;
let store: Store;
const workers: JobWorkers[] = [];
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchbot-job-waiting-'));
  store = await openStore(join(dir, 'jobs.db'), { cwd: dir, env: {} });
});
after(async () => {
  for (const w of workers) await w.close(0);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** settle waits until the job is done or dead. */
async function settle(id: string): Promise<JobRecord> {
  for (let i = 0; i < 1000; i++) {
    const job = await store.getJob(id);
    if (job?.status === 'done' || job?.status === 'dead') return job;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`job ${id} never settled`);
}

test('a job that waits on another is retried past maxAttempts without spending them, and finishes; one that fails is dead after maxAttempts; a wait past waitMaxMs ends too', async () => {
  const runs = new Map<string, number>();
  const WAITS = 6;
  workers.push(startJobWorkers({
    store,
    settings: SETTINGS,
    log: quiet,
    run: async (job) => {
      const n = (runs.get(job.id) ?? 0) + 1;
      runs.set(job.id, n);
      if (job.id === 'waits' && n <= WAITS) throw new JobWaiting(`the record it needs is not there yet (${n})`);
      if (job.id === 'fails') throw new Error('GitHub answered 500');
      // Received long ago (enqueued with an old time): its waits are past waitMaxMs and count as failures.
      if (job.id === 'waits-too-long') throw new JobWaiting('never recorded');
    },
  }));
  const now = Date.now();
  for (const id of ['waits', 'fails']) assert.equal(await store.enqueueJob({ id, event: 'workflow_run', installation: 1, payload: '{}' }, now), 'queued');
  assert.equal(await store.enqueueJob({ id: 'waits-too-long', event: 'workflow_run', installation: 1, payload: '{}' }, now - SETTINGS.waitMaxMs - 1), 'queued');
  workers[0].wake();

  const waited = await settle('waits');
  assert.equal(waited.status, 'done', `the waiting job finished (${waited.lastError})`);
  assert.equal(runs.get('waits'), WAITS + 1, `it ran ${WAITS} times waiting and once more, beyond maxAttempts (${SETTINGS.maxAttempts})`);
  assert.ok(waited.attempts <= 1, `its waits spent no attempts (${waited.attempts})`);

  const failed = await settle('fails');
  assert.equal(failed.status, 'dead');
  assert.equal(runs.get('fails'), SETTINGS.maxAttempts, 'a failing job still has maxAttempts');

  const tooLong = await settle('waits-too-long');
  assert.equal(tooLong.status, 'dead', 'a wait past waitMaxMs counts as a failure');
  assert.equal(runs.get('waits-too-long'), SETTINGS.maxAttempts);
  assert.match(tooLong.lastError ?? '', /never recorded/);
});
