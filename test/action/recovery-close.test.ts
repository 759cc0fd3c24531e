import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createExecutor } from '../../src/runner/executor.ts';
import { openStore } from '../../src/store/open-store.ts';
import { loadNightlySeries } from '../../src/jobs/nightly-history.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import { assertAllValid, startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { lognormalSamples } from '../support/samples.ts';
import { runStep } from './run-step.ts';

// The end of the nightly loop: a regression issue is closed by the nightly
// run that finds its series back within the threshold, and left open while
// the series is still regressed. The runner's job measures and ships the
// history; the report job (no store, no checkout, the only one with a
// token) decides recovery from those raw samples and closes the issue.
async function nightlyWith(history: 'recovered' | 'still-regressed', options: { others?: string[]; issueAuthors?: string } = {}) {
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-recovery-'));
  const storePath = join(dir, 'history.db');
  const fingerprint = await createExecutor({ kind: 'local' }).fingerprint([]);
  const store = await openStore(storePath, { cwd: dir });
  const shas = Array.from({ length: 20 }, (_, i) => i.toString(16).padStart(40, 'a'));
  let series: string;
  try {
    // 10 nights at ~100 us, the regression from night 10, back to ~100 us from night 15 (or not).
    const level = (i: number) => (i >= 10 && (i < 15 || history === 'still-regressed') ? 110 : 100);
    await store.ingestRuns(shas.map((sha, i) => ({
      sha, role: 'nightly' as const, repo: 'octo-org/gadgets', branch: 'main', fingerprint, harness: 'plain', warnings: [], hints: {},
      time: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
      measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values: lognormalSamples(10, level(i), 0.003, 100 + i) }],
    })));
    // The series name as the scan reads it from the store (the machine part is the store's business).
    series = (await loadNightlySeries(store, { branch: 'main', repo: 'octo-org/gadgets' })).find((s) => s.benchmark === 'parse')?.key ?? '';
  } finally {
    await store.close();
  }
  assert.match(series, /^main:parse:time:/);
  const standIn = await startGitHubApiStandIn();
  const bot = { login: 'benchbot[bot]', id: 1, type: 'Bot' as const };
  const issue = standIn.addIssue({ owner: 'octo-org', repo: 'gadgets', title: 'parse regressed', body: `${regressionMarker(series, `${shas[9]}..${shas[10]}`)}\nparse got 10% slower`, labels: ['benchbot'], user: bot });
  // The same issue, marker and label, filed by other accounts: only the ones benchbot acts as may be closed.
  const others = (options.others ?? []).map((login, i) => standIn.addIssue({ owner: 'octo-org', repo: 'gadgets', title: 'parse regressed', body: `${regressionMarker(series, `${shas[9]}..${shas[10]}`)}\nparse got 10% slower`, labels: ['benchbot'], user: { login, id: 100 + i, type: login.endsWith('[bot]') ? 'Bot' : 'User' } }));
  // The measuring job: no token, the runner's store; it ships the history in its results artifact.
  const measureInputs = { bench: './bench.sh', build: './build.sh', mode: 'nightly', store: storePath, 'min-runs': '3', 'max-runs': '3', 'max-load': '1000', base: 'base', head: 'head' };
  const env: Record<string, string> = { GITHUB_WORKSPACE: repo.dir, HOME: dir, RUNNER_TEMP: dir, GITHUB_REPOSITORY: 'octo-org/gadgets', GITHUB_REF_NAME: 'main', GITHUB_SHA: repo.headSha, BENCHBOT_LOCK: join(dir, 'lock') };
  try {
    const measured = await runStep(measureInputs, env);
    assert.equal(measured.code, 0, measured.lines.join('\n'));
    assert.equal(standIn.requests.filter((r) => !r.path.startsWith('/__')).length, 0, 'the measuring job makes no GitHub request');
    // The report job: another machine (no store, no checkout), the token, the downloaded artifact.
    const reportEnv = { HOME: mkdtempSync(join(tmpdir(), 'benchbot-report-')), RUNNER_TEMP: mkdtempSync(join(tmpdir(), 'benchbot-report-')), GITHUB_REPOSITORY: 'octo-org/gadgets', GITHUB_REF_NAME: 'main', GITHUB_SHA: repo.headSha, GITHUB_API_URL: standIn.url };
    const reported = await runStep({ mode: 'nightly', merge: measured.outputs['artifact-path'], 'github-token': 'ghs_test', 'check-name': 'none', ...(options.issueAuthors ? { 'issue-authors': options.issueAuthors } : {}) }, reportEnv);
    assert.equal(reported.code, 0, reported.lines.join('\n'));
    const found = (n: number) => standIn.state.issues.find((i) => i.number === n);
    return { issue: found(issue.number), others: others.map((o) => found(o.number)), comments: standIn.state.comments, lines: reported.lines, standIn };
  } finally {
    assertAllValid(standIn);
    await standIn.close();
  }
}

test('a nightly that finds the series back within the threshold closes its regression issue with the numbers', async () => {
  const { issue, comments, lines } = await nightlyWith('recovered');
  assert.equal(issue?.state, 'closed', lines.join('\n'));
  const comment = comments.find((c) => c.issueNumber === issue?.number);
  assert.match(comment?.body ?? '', /^\*\*Recovered\.\*\* `?parse`? \(`?time`?\) is back within the 2% threshold/);
  assert.ok(lines.some((l) => /regression issue #\d+ closed: parse \(time\) recovered/.test(l)));
});

test('a series still regressed keeps its issue open and uncommented', async () => {
  const { issue, comments } = await nightlyWith('still-regressed');
  assert.equal(issue?.state, 'open');
  assert.equal(comments.filter((c) => c.issueNumber === issue?.number).length, 0);
});

test('a recovered series closes only issues filed by benchbot\'s own accounts: benchbot[bot] and github-actions[bot], never dependabot[bot], another app or a person', async () => {
  const { issue, others, comments, lines } = await nightlyWith('recovered', { others: ['github-actions[bot]', 'dependabot[bot]', 'renovate[bot]', 'octocat'] });
  assert.equal(issue?.state, 'closed', lines.join('\n'));
  assert.deepEqual(others.map((o) => [o?.user.login, o?.state]), [['github-actions[bot]', 'closed'], ['dependabot[bot]', 'open'], ['renovate[bot]', 'open'], ['octocat', 'open']]);
  for (const o of others.slice(1)) assert.equal(comments.filter((c) => c.issueNumber === o?.number).length, 0, `${o?.user.login}'s issue is not commented on`);
});

test('issue-authors names the app\'s own SLUG[bot]: its issues are closed, benchbot[bot]\'s (another app now) are not; a person\'s login is refused', async () => {
  const { issue, others, lines } = await nightlyWith('recovered', { others: ['perf-bot[bot]'], issueAuthors: 'perf-bot[bot]' });
  assert.equal(others[0]?.state, 'closed', lines.join('\n'));
  assert.equal(issue?.state, 'open', 'benchbot[bot] is not one of this repository\'s authors any more');
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-authors-'));
  const refused = await runStep({ mode: 'nightly', merge: dir, 'github-token': 'ghs_test', 'issue-authors': 'octocat' }, { HOME: dir, RUNNER_TEMP: dir, GITHUB_REPOSITORY: 'octo-org/gadgets' });
  assert.equal(refused.code, 2);
  assert.match(refused.lines.join('\n'), /issue-authors: "octocat" is not a GitHub App's account \(SLUG\[bot\]/);
});
