// kill -9 of a process making a `/bench`'s effects (issue 24, item 2): a
// child process makes the dispatch, the check run and the report comment
// through the app's effect helpers (bench-effects-process.ts) on a real
// store, and is killed -9; this process then makes them again on the same
// store, as the retried job on another replica would, once the dead
// holder's lease ran out. Counted at the GitHub stand-in, each effect exists
// exactly once, whatever the moment of the kill:
// - at the worst one for each effect: GitHub has made it and its answer is
//   still on the way (the stand-in holds it back), so nothing recorded it;
// - at random moments of the whole sequence, TRIALS times.
// On SQLite and on PostgreSQL.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { seededRandom } from '../support/random.ts';
import { BENCH_WORKFLOW, BOT_LOGIN, OWNER, REPO, sha, starterWorkflows } from './app-harness.ts';
import { effectDeps, makeBenchEffects, stubbornClient, type BenchJob } from './bench-effects-process.ts';

const TRIALS = 12;
/** LEASE_MS is the child's effect lease: how long a retry waits for a dead holder's key. */
const LEASE_MS = 400;
const CHILD = fileURLToPath(new URL('./bench-effects-process.ts', import.meta.url));

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-effects-kill-'));
let stand: GitHubApiStandIn;
let postgres: PostgresServer | undefined;
before(async () => {
  stand = await startGitHubApiStandIn({ state: { ...starterWorkflows(), actor: { login: BOT_LOGIN, type: 'Bot', id: 5_550_001 }, workflows: [BENCH_WORKFLOW] } });
});
after(async () => {
  await stand?.close();
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let nextPr = 5000;
const jobFor = (pr: number): BenchJob => ({ owner: OWNER, repo: REPO, pr, base: sha('kill base'), head: sha(`kill head ${pr}`), commentId: 70_000 + pr, version: '2026-01-01T00:00:00Z', workflow: BENCH_WORKFLOW, bot: BOT_LOGIN });

/** counts are a pull request's effects at the stand-in: dispatches, check runs on its head, report comments. */
function counts(job: BenchJob): [number, number, number] {
  return [
    stand.state.dispatches.filter((d) => d.inputs['pr-number'] === String(job.pr)).length,
    stand.state.checkRuns.filter((c) => c.headSha === job.head).length,
    stand.state.comments.filter((c) => c.issueNumber === job.pr && c.body.split('\n')[0] === REPORT_MARKER).length,
  ];
}

/** startChild forks the effect maker for `job` and resolves once it has opened the store. */
async function startChild(storeUrl: string, job: BenchJob): Promise<ChildProcess> {
  const child = fork(CHILD, [storeUrl, stand.url, String(LEASE_MS), JSON.stringify(job)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the effect maker exited with ${code} before it was ready`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function killTests(label: string, storeUrl: () => Promise<string>): void {
  let url: string;
  let store: Store;
  before(async () => {
    url = await storeUrl();
    store = await openStore(url, { cwd: scratch, env: {} });
  });
  after(async () => {
    await store?.close();
  });

  /** retry makes the job's effects again in this process, as the retried job does, and returns how long it took. */
  async function retry(job: BenchJob): Promise<number> {
    const started = performance.now();
    await makeBenchEffects(effectDeps(store, BOT_LOGIN), stubbornClient(stand.url), job);
    return performance.now() - started;
  }

  const worst = [
    { effect: 'the workflow dispatch', path: /\/dispatches$/, made: (job: BenchJob) => counts(job)[0] > 0 },
    { effect: 'the check run', path: /\/check-runs$/, made: (job: BenchJob) => counts(job)[1] > 0 },
    { effect: 'the report comment', path: /\/issues\/\d+\/comments$/, made: (job: BenchJob) => counts(job)[2] > 0 },
  ];
  for (const { effect, path, made } of worst) {
    test(`${label}: killed -9 after GitHub made ${effect} and before its answer arrived, the retry makes nothing twice`, async (t) => {
      const job = jobFor(++nextPr);
      // The answer is held back for longer than the test waits: the child dies with it on the way.
      stand.holdNext({ method: 'POST', path, ms: 3000 });
      const child = await startChild(url, job);
      child.send('go');
      const until = Date.now() + 20_000;
      while (!made(job)) {
        assert.ok(Date.now() < until, `${effect} was never made`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await kill(child);
      const ms = await retry(job);
      t.diagnostic(`retried in ${Math.round(ms)} ms (the dead holder's lease: ${LEASE_MS} ms)`);
      assert.deepEqual(counts(job), [1, 1, 1], 'one dispatch, one check run, one report comment');
      assert.deepEqual(stand.state.checkRuns.filter((c) => c.headSha === job.head).map((c) => c.status), ['in_progress']);
      const recorded = await store.getEffect(`dispatch:${OWNER.toLowerCase()}/${REPO.toLowerCase()}#${job.pr}/${job.commentId}@${job.version}`);
      assert.equal(recorded?.githubId, stand.state.runs.find((r) => r.displayTitle.includes(`#${job.pr} `))?.id, 'the run recorded is the run GitHub started');
    });
  }

  test(`${label}: killed -9 at a random moment of the sequence, ${TRIALS} times: every effect exactly once`, async (t) => {
    const random = seededRandom(Number(process.env.BENCHBOT_KILL_SEED ?? Date.now() % 100_000));
    // How long the whole sequence takes here, unkilled: the kills land anywhere in it (and a little after).
    const calibration = jobFor(++nextPr);
    const child = await startChild(url, calibration);
    const t0 = performance.now();
    child.send('go');
    await new Promise((resolve) => child.once('message', resolve));
    const span = performance.now() - t0;
    await kill(child);
    assert.deepEqual(counts(calibration), [1, 1, 1]);
    const seen = { before: 0, partway: 0, after: 0 };
    for (let i = 0; i < TRIALS; i++) {
      const job = jobFor(++nextPr);
      const victim = await startChild(url, job);
      victim.send('go');
      await new Promise((resolve) => setTimeout(resolve, random() * span * 1.2));
      await kill(victim);
      const atKill = counts(job);
      seen[atKill.every((n) => n === 0) ? 'before' : atKill.every((n) => n === 1) ? 'after' : 'partway']++;
      await retry(job);
      assert.deepEqual(counts(job), [1, 1, 1], `trial ${i}: killed with ${JSON.stringify(atKill)} made`);
    }
    t.diagnostic(`sequence ${Math.round(span)} ms; kills: ${seen.before} before any effect, ${seen.partway} partway, ${seen.after} after all`);
    assertAllValid(stand);
  });
}

describe('kill -9 of an effect maker (SQLite)', () => {
  killTests('SQLite', async () => join(scratch, 'kill.db'));
});

describe('kill -9 of an effect maker (PostgreSQL)', { skip: postgresUnavailable() }, () => {
  killTests('PostgreSQL', async () => (postgres = await startPostgres()).url);
});
