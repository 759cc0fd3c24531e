// Every effect exactly once (issue 24, item 2, first part): the duplicate
// races, each run TRIALS times, through the real server and the GitHub
// stand-in, counting what lands at the stand-in. A trial sends the same
// thing twice at once: to one app (one process) in even trials, to the app
// and a second replica on the same store in odd ones (two replicas behind
// one database). Trials run BATCH at a time. effects-once.test.ts runs them
// on SQLite, effects-once-postgres.test.ts on PostgreSQL.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import type { AppServer } from '../../src/app/app-server.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, commentEvent, deliver, forgetAppMemory, runEvent, scanJson, seedPull, sha, startHarness, type Harness } from './app-harness.ts';

const TRIALS = 300;
const BATCH = 10;
const JITTER_MS = 15;

let h: Harness;
let replica: AppServer;

/** effectRaces defines the races on the store `storeUrl` gives (undefined: SQLite in a temporary directory). */
export function effectRaces(label: string, storeUrl: () => Promise<string | undefined>): void {
  before(async () => {
    h = await startHarness({}, await storeUrl());
    replica = await h.startReplica();
    // GitHub's answers take varying time: the two handlers of a trial interleave in every order.
    h.stand.jitterMs = JITTER_MS;
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await forgetAppMemory(h);
    h.stand.reset();
    h.stand.state.permissions = { maintainer: 'maintain', reader: 'read', triager: 'triage' };
    h.stand.state.workflows = [BENCH_WORKFLOW, 'benchbot-bisect.yml'];
  });

  /**
   * trials runs `trial(i, to)` TRIALS times, BATCH at once, `to` being where
   * the second delivery goes; `check(i)` after each batch names what is wrong
   * (or null). It fails with how many trials went wrong, and the first few.
   */
  async function trials(t: { diagnostic(message: string): void }, trial: (i: number, to: AppServer) => Promise<void>, check: (i: number) => string | null, clear: () => void): Promise<void> {
    const started = performance.now();
    const wrong: string[] = [];
    for (let first = 0; first < TRIALS; first += BATCH) {
      const batch = Array.from({ length: Math.min(BATCH, TRIALS - first) }, (_, k) => first + k);
      await Promise.all(batch.map((i) => trial(i, i % 2 === 0 ? h.app : replica)));
      for (const i of batch) {
        const problem = check(i);
        if (problem !== null) wrong.push(`trial ${i} (${i % 2 === 0 ? 'one process' : 'two replicas'}): ${problem}`);
      }
      // The stand-in's lists stay short: every effect of the batch is counted, then forgotten.
      assertAllValid(h.stand);
      clear();
      if ((first / BATCH) % 10 === 9) t.diagnostic(`${first + BATCH} trials in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    t.diagnostic(`${TRIALS} trials in ${((performance.now() - started) / 1000).toFixed(1)} s; ${wrong.length} with duplicates`);
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${TRIALS} trials went wrong (${wrong.filter((w) => w.includes('one process')).length} in one process); the first 5 are shown`);
}

  const ok = async (r: Promise<{ status: number; text: string }>) => {
    const { status, text } = await r;
    assert.equal(status, 200, text);
  };

  describe(`the same effect asked twice at once lands once (${label})`, () => {
    test(`a bisect completion delivered twice under different delivery ids files one regression issue (${TRIALS} trials)`, async (t) => {
      const finding = JSON.parse(scanJson()).findings[0];
      const seriesOf = (i: number) => `${finding.series} trial ${i}`;
      const markerOf = (i: number) => regressionMarker(seriesOf(i), `${finding.last_good.sha}..${finding.first_bad.sha}`);
      await trials(t, async (i, to) => {
        const runId = 900_000 + i;
        // The bisect run the nightly dispatched (its record, as handleNightlyCompleted writes it).
        await h.store.putState(`bisect-run:${OWNER.toLowerCase()}/${REPO.toLowerCase()}/${runId}`, { finding: { ...finding, series: seriesOf(i) }, branch: 'main', threshold: 0.02, at: new Date().toISOString() });
        const done = runEvent({ runId, conclusion: 'success', workflow: 'benchbot-bisect.yml' });
        await Promise.all([ok(deliver(h, 'workflow_run', done)), ok(deliver(h, 'workflow_run', done, { to }))]);
      }, (i) => {
        const mine = h.stand.state.issues.filter((issue) => (issue.body ?? '').split('\n')[0] === markerOf(i));
        return mine.length === 1 ? null : `${mine.length} issues for one regression`;
      }, () => {
        h.stand.state.issues.length = 0;
      });
    });

    test(`two /bench on one pull request at once: one check run in progress and one report comment (${TRIALS} trials)`, async (t) => {
      const BASE = sha('base');
      const headOf = (i: number) => sha(`head ${i}`);
      await trials(t, async (i, to) => {
        const pr = 1000 + i;
        seedPull(h, { number: pr, head: headOf(i), base: BASE, fork: true });
        const first = commentEvent(h, { body: '/bench', login: 'maintainer', pr });
        const second = commentEvent(h, { body: '/bench', login: 'maintainer', pr });
        await Promise.all([ok(deliver(h, 'issue_comment', first)), ok(deliver(h, 'issue_comment', second, { to }))]);
      }, (i) => {
        const pr = 1000 + i;
        const dispatched = h.stand.state.dispatches.filter((d) => d.inputs['pr-number'] === String(pr)).length;
        const checks = h.stand.state.checkRuns.filter((c) => c.headSha === headOf(i));
        const running = checks.filter((c) => c.status === 'in_progress').length;
        const reports = h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === REPORT_MARKER).length;
        // Both commands run (the later replaces the earlier); the head has one check run, in progress, and the pull request one report comment.
        return dispatched === 2 && checks.length === 1 && running === 1 && reports === 1 ? null : `${dispatched} dispatches, ${checks.length} check runs (${running} in progress), ${reports} report comments`;
      }, () => {
        h.stand.state.checkRuns.length = 0;
        h.stand.state.comments.length = 0;
        h.stand.state.dispatches.length = 0;
        h.stand.state.runs.length = 0;
        h.stand.state.pulls.length = 0;
      });
    });

    test(`two refusals or two help replies at once on one pull request: one reply comment (${TRIALS} trials)`, async (t) => {
      await trials(t, async (i, to) => {
        const pr = 2000 + i;
        seedPull(h, { number: pr, head: sha(`reply head ${i}`), base: sha('base'), fork: true });
        const body = i % 4 < 2 ? '/bench' : '/bench help';
        const a = commentEvent(h, { body, login: 'reader', pr });
        const b = commentEvent(h, { body, login: 'triager', pr });
        await Promise.all([ok(deliver(h, 'issue_comment', a)), ok(deliver(h, 'issue_comment', b, { to }))]);
      }, (i) => {
        const pr = 2000 + i;
        const replies = h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === REPLY_MARKER).length;
        return replies === 1 ? null : `${replies} reply comments (${i % 4 < 2 ? 'refusals' : 'help'})`;
      }, () => {
        h.stand.state.comments.length = 0;
        h.stand.state.pulls.length = 0;
      });
    });
  });
}
