// Benchmark names come from the code under test. Through the real server and
// the API stand-in: a nightly whose regressed series has a lone surrogate in
// its name (JSON `"\ud800"`, which encodeURIComponent refuses with URIError)
// dispatches its bisection and files its regression issue like any other.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRegressionMarker } from '../../src/report/regression-issue.ts';
import { assertAllValid } from '../support/github-api-stand-in.ts';
import { OWNER, REPO, deliver, makeZip, runEvent, scanJson, sha, startHarness, type Harness } from './app-harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
  h.stand.state.workflows = ['benchbot-bisect.yml'];
});
after(async () => {
  await h?.close();
});

test('a lone surrogate in the regressed series: the bisection is dispatched and the issue filed, its marker naming that series', async () => {
  const scan = JSON.parse(scanJson());
  const finding = scan.findings[0];
  const benchmark = 'BM_Parse/\ud800';
  finding.series = finding.series.replace(finding.benchmark, benchmark);
  finding.benchmark = benchmark;
  h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: 8801, name: 'benchbot-nightly', data: makeZip({ 'scan.json': JSON.stringify(scan) }) });
  assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: 8801, conclusion: 'success', workflow: 'benchbot-nightly.yml' }))).status, 200);
  assert.equal(h.outcomes.at(-1)?.outcome, 'bisect-dispatched');
  assert.equal(h.stand.state.dispatches[0].inputs?.series, finding.series);

  const bisectRunId = Number((await h.store.listState('bisect-run:'))[0].key.split('/').pop());
  const culprit = sha('culprit merge');
  const log = {
    status: 'found', culprit: { sha: culprit, subject: 'Parse numbers with a regex (#17)', pr: 17 },
    culprits: [{ sha: culprit, subject: 'Parse numbers with a regex (#17)', pr: 17, share: 1, ratio: 1.15, range: [] }],
    steps: [{ sha: culprit, verdict: 'bad', n: 10, ratio: 1.15, ratio_ci: [1.12, 1.18] }],
    sessions: 3, reference: { ratio: 1.15, ratio_ci: [1.12, 1.18], p: 0.0002, reproducible: true },
    benchmark, metric: finding.metric, good: finding.last_good.sha, bad: finding.first_bad.sha,
  };
  h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: bisectRunId, name: 'benchbot-bisect', data: makeZip({ 'bisect.json': JSON.stringify(log) }) });
  assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: bisectRunId, conclusion: 'success', workflow: 'benchbot-bisect.yml' }))).status, 200);
  assert.equal(h.outcomes.at(-1)?.outcome, 'issue-filed');
  assert.equal(h.stand.state.issues.length, 1);
  assert.deepEqual(parseRegressionMarker(h.stand.state.issues[0].body), { series: finding.series, culprit });
  assertAllValid(h.stand);
});
