// Every effect exactly once when a handler fails partway (issue 24, item 2):
// GitHub makes the effect and its answer is lost on the way (the stand-in
// does what the request asks, then answers 502), or GitHub fails before
// making it (502 alone), and the delivery is retried as GitHub's
// redelivery does, under the same delivery id. Counted at the stand-in: each
// effect exists once, and the rest of the job is done (the run is recorded
// and its completion reported; the bisection's issue is filed).
// effects-resume.test.ts runs them on SQLite, effects-resume-postgres.test.ts
// on PostgreSQL.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { runKey } from '../../src/app/app-state.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, benchArtifact, commentEvent, deliver, forgetAppMemory, makeZip, runEvent, scanJson, seedPull, sha, startHarness, type Harness } from './app-harness.ts';

let h: Harness;

/** The effects' requests, as the faults match them. */
const DISPATCH = /\/actions\/workflows\/[^/]+\/dispatches$/;
const CHECK_RUNS = /\/check-runs$/;
const COMMENTS = /\/issues\/\d+\/comments$/;
const ISSUES = /^\/repos\/[^/]+\/[^/]+\/issues$/;

/** effectResumes defines the tests on the store `storeUrl` gives (undefined: SQLite in a temporary directory). */
export function effectResumes(label: string, storeUrl: () => Promise<string | undefined>): void {
  before(async () => {
    h = await startHarness({}, await storeUrl());
  });
  after(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await forgetAppMemory(h);
    h.stand.reset();
    h.stand.state.permissions = { maintainer: 'maintain', reader: 'read' };
    h.stand.state.workflows = [BENCH_WORKFLOW, 'benchbot-bisect.yml'];
  });

  /**
   * delivered sends a delivery and returns once it is handled, with whether
   * its first attempt failed. With the handler before the answer, a failure
   * answers 5xx and the delivery is sent again under the same id (GitHub's
   * redelivery), at most 4 times; with a job queue (the answer says
   * `queued`, deliver returns the job), the app retries the job itself and
   * this waits for it to be done.
   */
  async function delivered(event: string, payload: unknown): Promise<{ failedFirst: boolean }> {
    let id: string | undefined;
    let failedFirst = false;
    for (let i = 0; i < 4; i++) {
      const r = (await deliver(h, event, payload, id === undefined ? {} : { id })) as { status: number; id: string; job?: { status: string; lastError?: unknown } };
      id = r.id;
      if (i === 0) failedFirst = r.status >= 500 || (r.job !== undefined && r.job.status !== 'done');
      if (r.status >= 500) continue;
      const jobs = h.store as unknown as { getJob?: (id: string) => Promise<{ status: string } | undefined> };
      if (r.job !== undefined && jobs.getJob !== undefined) {
        const until = Date.now() + 30_000;
        while ((await jobs.getJob(r.id))?.status !== 'done') {
          assert.ok(Date.now() < until, `job ${r.id} not done within 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
      break;
    }
    return { failedFirst };
  }

  const lost = [
    { how: 'GitHub made it and the answer was lost', after: true },
    { how: 'GitHub failed before making it', after: false },
  ];

  describe(`a /bench whose handler fails partway is retried, and every effect exists once (${label})`, () => {
    const effects = [
      { name: 'the workflow dispatch', path: DISPATCH },
      { name: 'the check run', path: CHECK_RUNS },
      { name: 'the report comment', path: COMMENTS },
    ];
    let pr = 300;
    for (const effect of effects) {
      for (const { how, after: made } of lost) {
        test(`${effect.name}: ${how}; the retry makes it exactly once and the run is then reported`, async () => {
          pr++;
          const head = sha(`resume head ${pr}`);
          seedPull(h, { number: pr, head, base: sha('base'), fork: true });
          h.stand.failNext({ method: 'POST', path: effect.path, status: 502, after: made });
          const attempt = await delivered('issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer', pr }));
          const dispatches = h.stand.state.dispatches.filter((d) => d.inputs['pr-number'] === String(pr));
          const checks = h.stand.state.checkRuns.filter((c) => c.headSha === head);
          const reports = h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === REPORT_MARKER);
          assert.deepEqual([dispatches.length, checks.length, checks.filter((c) => c.status === 'in_progress').length, reports.length], [1, 1, 1, 1], 'one dispatch, one check run in progress, one report comment');
          // A create is never re-sent blind (the answer may be lost after GitHub made it): the attempt fails and its retry looks first.
          assert.ok(attempt.failedFirst, 'the first attempt failed; its retry did the rest');
          // The run GitHub started is the one the app recorded, so its completion is reported on that check run.
          const run = h.stand.state.runs.at(-1)!;
          assert.ok(await h.store.getState(runKey(OWNER, REPO, run.id)), 'the dispatched run is recorded');
          h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: run.id, name: 'benchbot-report', data: makeZip(benchArtifact()) });
          const done = await deliver(h, 'workflow_run', runEvent({ runId: run.id, conclusion: 'success' }));
          assert.equal(done.status, 200, done.text);
          assert.equal(h.outcomes.at(-1)?.outcome, 'reported');
          const after = h.stand.state.checkRuns.filter((c) => c.headSha === head);
          assert.deepEqual(after.map((c) => c.status), ['completed'], 'the one check run, completed');
          assert.equal(h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === REPORT_MARKER).length, 1);
          assertAllValid({ requests: h.stand.requests.filter((r) => r.status !== 502) });
        });
      }
    }

    for (const { how, after: made } of lost) {
      test(`a refusal's reply comment: ${how}; the retry replies exactly once`, async () => {
        pr++;
        seedPull(h, { number: pr, head: sha(`reply ${pr}`), base: sha('base'), fork: true });
        h.stand.failNext({ method: 'POST', path: COMMENTS, status: 502, after: made });
        const attempt = await delivered('issue_comment', commentEvent(h, { body: '/bench', login: 'reader', pr }));
        assert.equal(h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === REPLY_MARKER).length, 1);
        assert.ok(attempt.failedFirst, 'the first attempt failed; its retry did the rest');
        assert.equal(h.stand.state.dispatches.length, 0);
      });
    }
  });

  describe(`a nightly or bisect completion whose handler fails partway is retried, and every effect exists once (${label})`, () => {
    const finding = JSON.parse(scanJson()).findings[0];
    let runId = 8000;
    for (const { how, after: made } of lost) {
      test(`the bisect dispatch: ${how}; the retry dispatches exactly once, and the bisection's completion files its issue`, async () => {
        const nightly = ++runId;
        h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: nightly, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
        h.stand.failNext({ method: 'POST', path: DISPATCH, status: 502, after: made });
        const attempt = await delivered('workflow_run', runEvent({ runId: nightly, conclusion: 'success', workflow: 'benchbot-nightly.yml' }));
        assert.equal(h.stand.state.dispatches.length, 1, 'one bisection');
        assert.ok(attempt.failedFirst, 'the first attempt failed; its retry did the rest');
        assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-dispatched');
        // The run GitHub started is the one the app recorded: its completion files the issue.
        const bisectRun = h.stand.state.runs[0].id;
        assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: bisectRun, conclusion: 'success', workflow: 'benchbot-bisect.yml' }))).status, 200);
        assert.equal(h.outcomes.at(-1)?.outcome, 'issue-filed');
        assert.equal(h.stand.state.issues.length, 1);
        // The next nightly still sees the regression: nothing more.
        h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: ++runId, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
        assert.equal((await delivered('workflow_run', runEvent({ runId, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).failedFirst, false);
        assert.equal(h.stand.state.dispatches.length, 1);
        assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-known', 'a dispatch found after a lost answer counts once, not again every nightly');
      });

      test(`the regression issue: ${how}; the retry files exactly one`, async () => {
        const bisectRun = ++runId;
        await h.store.putState(`bisect-run:${OWNER.toLowerCase()}/${REPO.toLowerCase()}/${bisectRun}`, { finding, branch: 'main', threshold: 0.02, at: new Date().toISOString() });
        h.stand.failNext({ method: 'POST', path: ISSUES, status: 502, after: made });
        const attempt = await delivered('workflow_run', runEvent({ runId: bisectRun, conclusion: 'success', workflow: 'benchbot-bisect.yml' }));
        assert.equal(h.stand.state.issues.length, 1);
        assert.ok(attempt.failedFirst, 'the first attempt failed; its retry did the rest');
        assert.equal(h.outcomes.at(-1)?.outcome, 'issue-filed');
      });
    }
  });
}
