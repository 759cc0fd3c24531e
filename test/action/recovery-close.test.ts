import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputEnvName } from '../../src/action/action-inputs.ts';
import { runAction } from '../../src/action/run-action.ts';
import { createExecutor } from '../../src/runner/executor.ts';
import { silentProgress } from '../../src/runner/progress.ts';
import { openStore } from '../../src/store/open-store.ts';
import { fingerprintKey } from '../../src/store/run-key.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import { assertAllValid, startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { lognormalSamples } from '../support/samples.ts';

// The end of the nightly loop: a regression issue is closed by the nightly
// run that finds its series back within the threshold, and left open while
// the series is still regressed.
async function nightlyWith(history: 'recovered' | 'still-regressed') {
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-recovery-'));
  const storePath = join(dir, 'history.db');
  const fingerprint = await createExecutor({ kind: 'local' }).fingerprint([]);
  const store = await openStore(storePath, { cwd: dir });
  const shas = Array.from({ length: 20 }, (_, i) => i.toString(16).padStart(40, 'a'));
  try {
    // 10 nights at ~100 us, the regression from night 10, back to ~100 us from night 15 (or not).
    const level = (i: number) => (i >= 10 && (i < 15 || history === 'still-regressed') ? 110 : 100);
    await store.ingestRuns(shas.map((sha, i) => ({
      sha, role: 'nightly' as const, repo: 'octo-org/gadgets', branch: 'main', fingerprint, harness: 'plain', warnings: [], hints: {},
      time: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
      measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values: lognormalSamples(10, level(i), 0.003, 100 + i) }],
    })));
  } finally {
    await store.close();
  }
  const series = `main:parse:time:${fingerprintKey(fingerprint).slice(0, 12)}`;
  const standIn = await startGitHubApiStandIn();
  const bot = { login: 'benchbot[bot]', id: 1, type: 'Bot' as const };
  const issue = standIn.addIssue({ owner: 'octo-org', repo: 'gadgets', title: 'parse regressed', body: `${regressionMarker(series, `${shas[9]}..${shas[10]}`)}\nparse got 10% slower`, labels: ['benchbot'], user: bot });
  const inputs: Record<string, string> = { bench: './bench.sh', build: './build.sh', mode: 'nightly', store: storePath, 'min-runs': '3', 'max-runs': '3', 'max-load': '1000', base: 'base', head: 'head', 'github-token': 'ghs_test', 'check-name': 'none' };
  const env: Record<string, string> = { GITHUB_WORKSPACE: repo.dir, HOME: dir, RUNNER_TEMP: dir, GITHUB_REPOSITORY: 'octo-org/gadgets', GITHUB_REF_NAME: 'main', GITHUB_API_URL: standIn.url, BENCHBOT_LOCK: join(dir, 'lock') };
  for (const [name, value] of Object.entries(inputs)) env[inputEnvName(name)] = value;
  const lines: string[] = [];
  try {
    const code = await runAction({ env, log: (l) => lines.push(l), now: () => '2026-10-25T03:00:00.000Z', progress: silentProgress });
    assert.equal(code, 0, lines.join('\n'));
    return { issue: standIn.state.issues.find((i) => i.number === issue.number), comments: standIn.state.comments, lines, standIn };
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
