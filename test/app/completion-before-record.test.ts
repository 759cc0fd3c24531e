// A /bench run's completion that arrives before the /bench that dispatched
// it has finished (found by bench/app-races.ts's crash sweep: a replica
// killed between the dispatch and its record, or between the record and the
// check run; the survivor took the job over 30 s later, while the run's
// completion had come at once). Here the /bench's first attempt fails at
// the same points (the stand-in answers 502), its retry waits RETRY_MS, and
// the completion is delivered in between. Reported then, the completion was
// undone by the retry (a second check run left in progress, the report
// overwritten by "running"), or dropped as a run the app never dispatched
// (the check run in progress forever). It must wait for the /bench instead:
// one check run, completed, and one report comment with the report.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, benchArtifact, commentEvent, deliver, makeZip, runEvent, seedPull, settled, sha, startHarness, type Harness } from './app-harness.ts';

/** RETRY_MS is the wait before a failed job's retry (it doubles): long enough to deliver the completion before the /bench's retry. */
const RETRY_MS = 1500;

let h: Harness;
before(async () => {
  h = await startHarness({ jobs: { retryBaseMs: RETRY_MS } });
  h.stand.state.permissions = { maintainer: 'maintain' };
  h.stand.state.workflows = [BENCH_WORKFLOW];
});
after(() => h?.close());

const cases = [
  { when: 'its dispatch was made and not recorded (the answer lost)', path: /\/actions\/workflows\/[^/]+\/dispatches$/, after: true, pr: 71 },
  { when: 'its run was recorded and its check run not opened yet', path: /\/check-runs$/, after: false, pr: 72 },
];

for (const c of cases) {
  test(`a /bench run completed while ${c.when}: its completion waits for the /bench, and the run is reported once`, async () => {
    const head = sha(`early completion ${c.pr}`);
    seedPull(h, { number: c.pr, head, base: sha('base'), fork: true });
    h.stand.failNext({ method: 'POST', path: c.path, status: 502, after: c.after });
    const bench = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer', pr: c.pr }));
    assert.equal(bench.job?.status, 'ready', 'the first attempt failed and waits for its retry');
    assert.equal(h.stand.state.dispatches.filter((d) => d.inputs['pr-number'] === String(c.pr)).length, 1, 'the workflow was dispatched');

    // The run ends at once; GitHub's completion names it as the app dispatched it (actor, run-name with the dispatch key).
    const run = h.stand.state.runs.at(-1)!;
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: run.id, name: 'benchbot-report', data: makeZip(benchArtifact()) });
    const completion = await deliver(h, 'workflow_run', runEvent({ runId: run.id, conclusion: 'success', actor: run.actor.login, createdAt: run.createdAt, displayTitle: run.displayTitle }), { wait: false });
    assert.equal(completion.status, 200, completion.text);

    assert.equal((await settled(h, bench.id)).status, 'done');
    assert.equal((await settled(h, completion.id)).status, 'done');
    const checks = h.stand.state.checkRuns.filter((x) => x.headSha === head);
    assert.deepEqual(checks.map((x) => x.status), ['completed'], 'one check run on the head, completed with the report');
    const reports = h.stand.state.comments.filter((x) => x.issueNumber === c.pr && x.body.split('\n')[0] === REPORT_MARKER);
    assert.equal(reports.length, 1, 'one report comment');
    assert.match(reports[0].body, /BM_Parse\/64/, 'the comment is the report, not "running"');
    assert.equal(h.stand.state.dispatches.filter((d) => d.inputs['pr-number'] === String(c.pr)).length, 1, 'dispatched once');
    assertAllValid({ requests: h.stand.requests.filter((r) => r.status !== 502) });
  });
}
