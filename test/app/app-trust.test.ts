// What the app trusts, attacked over real HTTP: the real Probot server on
// loopback, signed deliveries built from @octokit/webhooks-examples payloads,
// and the GitHub API stand-in validating every request against GitHub's
// OpenAPI description. Each test is an attack that worked before the app
// checked it (issue 10, sections 2, 3 and 5).
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileNameFilter } from '../../src/compare/name-filter.ts';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { BENCH_WORKFLOW, OWNER, REPO, benchArtifact, commentEvent, deliver, makeZip, reportJson, runEvent, scanJson, secondsAfter, seedPull, seedPush, sha, startHarness, forgetAppMemory, type Harness } from './app-harness.ts';

let h: Harness;
const BASE = sha('base');
const HEAD = sha('head');
const NIGHTLY = 'benchbot-nightly.yml';
const BISECT = 'benchbot-bisect.yml';

before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});
beforeEach(async () => {
  await forgetAppMemory(h);
  h.stand.reset();
  h.stand.state.permissions = { maintainer: 'maintain', writer: 'write' };
  h.stand.state.workflows = [BENCH_WORKFLOW, BISECT];
  seedPull(h, { number: 42, head: HEAD, base: BASE, fork: true });
});

const stickies = (marker: string, pr = 42) => h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === marker);
const lastOutcome = () => h.outcomes.at(-1)?.outcome;

/** benchAndRunId sends a maintainer's `/bench` and returns the run id the app recorded (the check run's external id). */
async function benchAndRunId(): Promise<number> {
  assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
  assert.equal(lastOutcome(), 'dispatched');
  return Number(h.stand.state.checkRuns[0].externalId);
}

describe('a workflow run is trusted only if it is what it claims', () => {
  test('a fork PR running a workflow at the nightly path with a forged scan.json dispatches no bisection and files no issue', async () => {
    const forged = JSON.parse(scanJson());
    // The attacker picks SHAs, benchmark and series to run on the self-hosted runner, and text for the issue.
    Object.assign(forged.findings[0], { benchmark: 'BM_x @octocat', series: 'attacker-series', last_good: { sha: sha('attacker good'), time: forged.findings[0].last_good.time } });
    const artifact = makeZip({ 'scan.json': JSON.stringify(forged) });
    const runs = [
      { runId: 9101, event: 'pull_request', fork: 'attacker', headBranch: 'main' },
      { runId: 9102, event: 'pull_request_target', fork: 'attacker', headBranch: 'main' },
      { runId: 9103, event: 'schedule', fork: 'attacker', headBranch: 'main' },
      { runId: 9104, event: 'push', headBranch: 'evil' },
      { runId: 9105, event: 'workflow_dispatch', headBranch: 'evil' },
      { runId: 9106, event: 'pull_request', headBranch: 'main' },
      { runId: 9107, event: 'workflow_run', headBranch: 'main' },
    ];
    for (const r of runs) {
      h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: r.runId, name: 'benchbot-nightly', data: artifact });
      assert.equal((await deliver(h, 'workflow_run', runEvent({ ...r, conclusion: 'success', workflow: NIGHTLY }))).status, 200);
      assert.equal(lastOutcome(), 'untrusted', JSON.stringify(r));
    }
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.deepEqual(h.stand.state.issues, []);
    assert.equal(h.stand.requests.filter((q) => q.template?.includes('/artifacts')).length, 0, 'the forged artifact is not even downloaded');
    assert.deepEqual(await h.store.listState('bisect'), []);
    assert.deepEqual(await h.store.listEffects('bisect'), []);

    // The same artifact from a scheduled run of the default branch of the repository itself is acted on.
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 9110, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 9110, conclusion: 'success', workflow: NIGHTLY, event: 'schedule' }))).status, 200);
    assert.equal(lastOutcome(), 'bisect-dispatched');
    assert.equal(h.stand.state.dispatches.length, 1);
    // A push to the default branch (the nightly workflow's push trigger: a point per push) is trusted too; the
    // regression is known from the scheduled run, so no second bisection.
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 9111, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 9111, conclusion: 'success', workflow: NIGHTLY, event: 'push' }))).status, 200);
    assert.equal(lastOutcome(), 'bisect-known');
    assert.equal(h.stand.state.dispatches.length, 1);
    assertAllValid(h.stand);
  });

  test('a workflow_dispatch run of the /bench workflow that the app did not dispatch writes no comment and no check run', async () => {
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 9201, name: 'benchbot-report', data: makeZip(benchArtifact()) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 9201, conclusion: 'success' }))).status, 200);
    assert.equal(lastOutcome(), 'ignored');
    assert.deepEqual(h.stand.state.comments, []);
    assert.deepEqual(h.stand.state.checkRuns, []);
  });

  test('a completion under a run id the app recorded is not trusted unless it is that dispatched run (event, repository, branch, workflow)', async () => {
    const runId = await benchAndRunId();
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip(benchArtifact()) });
    const running = stickies(REPORT_MARKER)[0].body;
    for (const claim of [{ event: 'pull_request' }, { fork: 'attacker' }, { headBranch: 'evil' }, { workflow: 'other.yml' }]) {
      assert.equal((await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success', ...claim }))).status, 200);
      assert.equal(lastOutcome(), 'untrusted', JSON.stringify(claim));
    }
    assert.equal(stickies(REPORT_MARKER)[0].body, running, 'the sticky comment still says running');
    assert.equal(h.stand.state.checkRuns[0].status, 'in_progress');

    // The real completion is reported.
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }))).status, 200);
    assert.equal(lastOutcome(), 'reported');
    assert.equal(h.stand.state.checkRuns[0].status, 'completed');
  });

  test('a forged report.json (summary.regressed: 0, verdicts unchanged) beside a regressed row: counts of 1 and a failing check', async () => {
    const runId = await benchAndRunId();
    // What the measuring job's code could upload as `benchbot-report` if the report job failed: honest samples, a green report.json.
    const honest = JSON.parse(reportJson()) as { comparisons: { verdict: string }[]; summary: Record<string, number> };
    const forged = { ...honest, comparisons: honest.comparisons.map((c) => ({ ...c, verdict: 'unchanged' })), summary: { ...honest.summary, regressed: 0, unchanged: 2 }, verdict: 'unchanged' };
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip(benchArtifact(JSON.stringify(forged))) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }))).status, 200);
    assert.equal(lastOutcome(), 'reported');
    const check = h.stand.state.checkRuns[0];
    assert.equal(check.conclusion, 'failure');
    assert.match(check.output?.title ?? '', /^1 regression/);
    const body = stickies(REPORT_MARKER)[0].body;
    assert.match(body, /1 regression/);
    assert.match(body, /BM_Parse\/64[^\n]*regressed/);
    assertAllValid(h.stand);
  });

  test('a bisect run the app recorded is not trusted from a pull request or a fork', async () => {
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 9301, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 9301, conclusion: 'success', workflow: NIGHTLY, event: 'schedule' }))).status, 200);
    const bisectRunId = Number((await h.store.listState('bisect-run:'))[0].key.split('/').pop());
    const log = { status: 'not-reproducible', culprit: null, culprits: [], steps: [], sessions: 1, reference: { ratio: 1, ratio_ci: [0.99, 1.01], p: 0.5, reproducible: false } };
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: bisectRunId, name: 'benchbot-bisect', data: makeZip({ 'bisect.json': JSON.stringify(log) }) });
    for (const claim of [{ event: 'pull_request', fork: 'attacker' }, { event: 'schedule' }]) {
      assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: bisectRunId, conclusion: 'success', workflow: BISECT, ...claim }))).status, 200);
      assert.equal(lastOutcome(), 'untrusted', JSON.stringify(claim));
    }
    assert.deepEqual(h.stand.state.issues, []);
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: bisectRunId, conclusion: 'success', workflow: BISECT }))).status, 200);
    assert.equal(lastOutcome(), 'issue-filed');
  });
});

describe('/bench measures exactly what the maintainer saw, once', () => {
  test('a push recorded after the comment (its commit dated before it) is not run: the reply says the head changed', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    const pushed = sha('pushed after the comment');
    // The pusher forges the commit's date to an hour before the comment; GitHub lists the push after it all the same.
    seedPush(h, { head: pushed, createdAt: secondsAfter(payload.comment.created_at, 2), date: secondsAfter(payload.comment.created_at, -3600) });
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    assert.equal(lastOutcome(), 'head-changed');
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.deepEqual(h.stand.state.checkRuns, []);
    const reply = stickies(REPLY_MARKER)[0]?.body ?? '';
    assert.match(reply, /head of this pull request changed after your comment/);
    assert.ok(reply.includes(pushed.slice(0, 12)), reply);
    assert.match(reply, /comment `\/bench` again/);
    assert.deepEqual(stickies(REPORT_MARKER), []);
    assertAllValid(h.stand);
  });

  test('a force push after the comment is not run either', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    seedPush(h, { head: sha('force pushed'), createdAt: secondsAfter(payload.comment.created_at, 1), force: true });
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    assert.equal(lastOutcome(), 'head-changed');
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.match(stickies(REPLY_MARKER)[0].body, /force-pushed/);
  });

  test('a push before the comment is what the maintainer saw: it is run, whichever order the timeline lists commits in', async () => {
    for (const order of ['recorded', 'commit-date'] as const) {
      h.stand.state.timelineOrder = order;
      const pushed = sha(`pushed before the comment, ${order}`);
      seedPush(h, { head: pushed, createdAt: secondsAfter(new Date().toISOString(), -60) });
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
      assert.equal(lastOutcome(), 'dispatched', order);
      assert.equal(h.stand.state.dispatches.at(-1)?.inputs.head, pushed);
    }
    h.stand.state.timelineOrder = 'recorded';
  });

  test('a backdated commit pushed after the comment is not run, whichever order the timeline lists commits in', async () => {
    for (const order of ['recorded', 'commit-date'] as const) {
      h.stand.state.timelineOrder = order;
      const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
      const pushed = sha(`backdated, ${order}`);
      // Pushed 5 s after the comment, dated an hour before it: by commit date it comes first.
      seedPush(h, { head: pushed, createdAt: secondsAfter(payload.comment.created_at, 5), date: secondsAfter(payload.comment.created_at, -3600) });
      assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
      assert.equal(lastOutcome(), 'head-changed', order);
      assert.match(stickies(REPLY_MARKER)[0].body, /head of this pull request changed after your comment/);
    }
    h.stand.state.timelineOrder = 'recorded';
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.deepEqual(h.stand.state.checkRuns, []);
    assertAllValid(h.stand);
  });

  test('a /bench whose comment was deleted before it was handled does not run, and the reply says why', async () => {
    for (const order of ['recorded', 'commit-date'] as const) {
      h.stand.state.timelineOrder = order;
      const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
      // Withdrawn seconds later; a backdated push rides it (the audit's attack), or nothing happens at all.
      h.stand.state.comments.splice(h.stand.state.comments.findIndex((c) => c.id === payload.comment.id), 1);
      if (order === 'commit-date') seedPush(h, { head: sha('rides the withdrawn comment'), createdAt: secondsAfter(payload.comment.created_at, 5), date: secondsAfter(payload.comment.created_at, -3600) });
      assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
      assert.equal(lastOutcome(), 'withdrawn', order);
      assert.match(stickies(REPLY_MARKER)[0].body, /^<!-- benchbot:reply -->\n@maintainer, your `\/bench` comment is no longer on this pull request \(it was deleted\)/);
    }
    h.stand.state.timelineOrder = 'recorded';
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.deepEqual(h.stand.state.checkRuns, []);
    assert.deepEqual(stickies(REPORT_MARKER), []);
    assertAllValid(h.stand);
  });

  test('a /bench comment GitHub has but the timeline does not list yet is judged by time: run, or refused after a push', async () => {
    for (const pushAfter of [false, true]) {
      const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
      if (pushAfter) seedPush(h, { head: sha('pushed while the timeline lags'), createdAt: secondsAfter(payload.comment.created_at, 3), date: secondsAfter(payload.comment.created_at, -3600) });
      // The timeline of #42 does not list it (it lags); GET .../issues/comments/{id} still finds it.
      const record = h.stand.state.comments.find((c) => c.id === payload.comment.id);
      if (record) record.issueNumber = 4242;
      assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
      assert.equal(lastOutcome(), pushAfter ? 'head-changed' : 'dispatched', `push after: ${pushAfter}`);
    }
    assert.equal(h.stand.state.dispatches.length, 1);
  });

  test('a push to the head repository in the comment\'s second is not run, whatever the timeline says', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    seedPush(h, { head: sha('same second'), createdAt: payload.comment.created_at, date: secondsAfter(payload.comment.created_at, -3600) });
    // Whatever the timeline says: listed before the comment, dated before it.
    h.stand.state.timeline.length = 0;
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    assert.equal(lastOutcome(), 'head-changed');
    assert.match(stickies(REPLY_MARKER)[0].body, /head repository was pushed to at/);
    assert.deepEqual(h.stand.state.dispatches, []);
  });

  test('/bench in code, quotes or HTML comments, as CommonMark reads them, does nothing', async () => {
    const bodies = {
      'an indented code block': 'Try this:\n\n    /bench\n',
      'a fence inside a list item': '10. run it:\n\n    ```\n    /bench\n    ```\n',
      'a ```` fence "closed" by ```': '````\n```\n/bench\n```\n````\n',
      'a lazy blockquote continuation line': '> you could say\n/bench\n',
      'a multi-line HTML comment': '<!--\nnote to self:\n/bench\n-->\n',
      'the second line of a paragraph': 'I will not say\n/bench\n',
    };
    for (const [where, body] of Object.entries(bodies)) {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body, login: 'maintainer' }))).status, 200, where);
      assert.equal(lastOutcome(), 'ignored', where);
    }
    assert.deepEqual(h.stand.state.dispatches, []);
    assert.deepEqual(h.stand.state.comments.filter((c) => c.user.type === 'Bot'), []);
  });

  test('/bench as the first line of a top-level paragraph runs', async () => {
    const bodies = ['/bench', 'Looks good.\n\n/bench', '  /bench runs=5\nmore words on the next line', '```\n/bench\n```\n\n/bench', '> /bench\n\n/bench'];
    for (const body of bodies) {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body, login: 'maintainer' }))).status, 200, body);
      assert.equal(lastOutcome(), 'dispatched', body);
    }
    assert.equal(h.stand.state.dispatches.length, bodies.length);
  });

  test('a validly signed delivery sent again under a new delivery id does not dispatch again', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    const first = await deliver(h, 'issue_comment', payload);
    assert.equal(first.status, 200);
    assert.equal(lastOutcome(), 'dispatched');
    const requests = h.stand.requests.length;
    const again = await deliver(h, 'issue_comment', payload);
    assert.notEqual(again.id, first.id);
    assert.equal(again.status, 200);
    assert.equal(lastOutcome(), 'duplicate-comment');
    assert.equal(h.stand.state.dispatches.length, 1);
    assert.deepEqual(h.stand.state.cancelled, [], 'the first run is not replaced by itself');
    assert.equal(h.stand.requests.length, requests, 'no call to GitHub at all');
    // The same comment edited (a new updated_at) is a new command.
    payload.comment.updated_at = secondsAfter(payload.comment.updated_at, 5);
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    assert.equal(lastOutcome(), 'dispatched');
  });
});

describe('REGEX is what the engine accepts', () => {
  test('a pattern RE2 refuses (lookbehind, backreference) is refused with a reply that says why', async () => {
    for (const [pattern, why] of [['(?<=a)b', /RE2 syntax: no backreferences or lookaround/], ['(BM_\\w+)\\1', /RE2 syntax: no backreferences or lookaround/]] as const) {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: `/bench ${pattern}`, login: 'maintainer' }))).status, 200);
      assert.equal(lastOutcome(), 'invalid', pattern);
      assert.match(stickies(REPLY_MARKER)[0].body, why);
    }
    assert.deepEqual(h.stand.state.dispatches, []);
  });

  test('a pattern that backtracks exponentially elsewhere is accepted, and the engine matches it in linear time', async () => {
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench (a+)+$', login: 'maintainer' }))).status, 200);
    assert.equal(lastOutcome(), 'dispatched');
    assert.equal(h.stand.state.dispatches[0].inputs.filter, '(a+)+$');
    // What the run will do with it: the engine's matcher, on the name that hung a backtracking one.
    const started = performance.now();
    assert.equal(compileNameFilter('(a+)+$').test(`${'a'.repeat(10_000)}!`), false);
    assert.ok(performance.now() - started < 1000);
  });
});

describe('where GitHub does not name a dispatched run (GitHub Enterprise Server)', () => {
  /** unnamedRun is the completion of the n-th run the stand-in created, as its webhook names it. */
  const unnamedRun = (n: number, claim: Partial<Parameters<typeof runEvent>[0]> = {}) => {
    const run = h.stand.state.runs[n];
    return runEvent({ runId: run.id, conclusion: 'success', actor: run.actor.login, createdAt: run.createdAt, ...claim });
  };

  test('the completion is bound to the one dispatch the app made then, as the app; anything else is ignored', async () => {
    h.stand.state.returnRunDetails = false;
    try {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
      assert.equal(lastOutcome(), 'dispatched');
      const run = h.stand.state.runs[0];
      h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: run.id, name: 'benchbot-report', data: makeZip(benchArtifact()) });

      // Someone with write access dispatches the same workflow at the same moment: not the app's run.
      assert.equal((await deliver(h, 'workflow_run', unnamedRun(0, { actor: 'writer' }))).status, 200);
      assert.equal(lastOutcome(), 'ignored');
      // The app's own run, but created long after its dispatch: not that dispatch's run.
      assert.equal((await deliver(h, 'workflow_run', unnamedRun(0, { createdAt: secondsAfter(run.createdAt, 600) }))).status, 200);
      assert.equal(lastOutcome(), 'ignored');
      assert.equal(h.stand.state.checkRuns[0].status, 'in_progress');

      assert.equal((await deliver(h, 'workflow_run', unnamedRun(0))).status, 200);
      assert.equal(lastOutcome(), 'reported');
      assert.equal(h.stand.state.checkRuns[0].status, 'completed');
      assert.match(stickies(REPORT_MARKER)[0].body, /1 regression/);
      assertAllValid(h.stand);
    } finally {
      h.stand.state.returnRunDetails = true;
    }
  });

  test('two unnamed dispatches at once cannot be told apart: neither run is reported', async () => {
    h.stand.state.returnRunDetails = false;
    try {
      seedPull(h, { number: 43, head: sha('head 43'), base: BASE, fork: true });
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer', pr: 43 }))).status, 200);
      // The stand-in creates runs within the same second: both dispatches were in flight for both runs.
      h.stand.state.runs[1].createdAt = h.stand.state.runs[0].createdAt;
      for (const n of [0, 1]) {
        h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: h.stand.state.runs[n].id, name: 'benchbot-report', data: makeZip(benchArtifact()) });
        assert.equal((await deliver(h, 'workflow_run', unnamedRun(n))).status, 200);
        assert.equal(lastOutcome(), 'ignored');
      }
      assert.ok(h.stand.state.checkRuns.every((c) => c.status === 'in_progress'));
    } finally {
      h.stand.state.returnRunDetails = true;
    }
  });
});
