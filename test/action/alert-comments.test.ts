/**
 * What github-action-benchmark users get from `comment-on-alert` and
 * `alert-comment-cc-users`, in the report job (the only job with a token),
 * through the real GitHub client against the API stand-in: a comment on the
 * commit whose push (or night) made benchmarks slower, once, and the users
 * to cc mentioned there and in a PR comment that reports a regression.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nightlyHistoryJson } from '../../src/jobs/nightly-history.ts';
import { COMMIT_ALERT_MARKER } from '../../src/report/commit-alert.ts';
import { parseAppConfig } from '../../src/app/app-config.ts';
import type { Series } from '../../src/scan/series.ts';
import { createExecutor } from '../../src/runner/executor.ts';
import { openStore } from '../../src/store/open-store.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { lognormalSamples } from '../support/samples.ts';
import { runStep, writeEvent } from './run-step.ts';

const sha = (i: number) => i.toString(16).padStart(40, 'a');
const NIGHTS = 30;
const HEAD = sha(NIGHTS - 1);

let standIn: GitHubApiStandIn;
before(async () => {
  standIn = await startGitHubApiStandIn();
});
after(async () => {
  assertAllValid(standIn);
  await standIn.close();
});

/**
 * nightlyResults writes a nightly's results artifact: 30 nights of `name`
 * at 100 us, then 110 us from night `stepAt` on; the step night's own A/B
 * against the night before and one confirming session of the pair, as the
 * measuring job records them.
 */
function nightlyResults(options: { stepAt: number; name?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-alert-results-'));
  const level = (i: number) => (i < options.stepAt ? 100 : 110);
  const nights: Series['nights'][number][] = Array.from({ length: NIGHTS }, (_, i) => ({ sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), values: lognormalSamples(10, level(i), 0.003, 7 + i) }));
  nights[options.stepAt] = { ...nights[options.stepAt], ab: { baseSha: sha(options.stepAt - 1), base: lognormalSamples(10, 100, 0.003, 99), extra: [{ base: lognormalSamples(10, 100, 0.003, 5), head: lognormalSamples(10, 110, 0.003, 6) }] } };
  const series: Series = { benchmark: options.name ?? 'parse', metric: 'time', unit: 'us', better: 'lower', machineKey: '0123456789ab', branch: 'main', nights };
  const side = (lvl: number, seed: number) => JSON.stringify({ version: 1, benchmarks: [{ benchmark: series.benchmark, unit: 'us', values: lognormalSamples(10, lvl, 0.003, seed) }] });
  writeFileSync(join(dir, 'base.json'), side(level(NIGHTS - 2), 1));
  writeFileSync(join(dir, 'head.json'), side(level(NIGHTS - 1), 2));
  writeFileSync(join(dir, 'report.json'), JSON.stringify({ head_sha: HEAD, summary: { regressed: 0 } }));
  writeFileSync(join(dir, 'history.json'), nightlyHistoryJson('main', [series], [], []));
  return dir;
}

async function nightlyReport(merge: string, inputs: Record<string, string>) {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-alert-report-'));
  const before = standIn.requests.length;
  const run = await runStep({ mode: 'nightly', merge, 'github-token': 'ghs_test', 'check-name': 'none', 'fail-on': 'never', ...inputs }, {
    HOME: work, RUNNER_TEMP: work, GITHUB_REPOSITORY: 'octo/gadgets', GITHUB_REF_NAME: 'main', GITHUB_SHA: HEAD, GITHUB_API_URL: standIn.url, GITHUB_SERVER_URL: 'https://github.com', GITHUB_RUN_ID: '77',
  });
  return { ...run, requests: standIn.requests.slice(before).filter((r) => !r.path.startsWith('/__')) };
}

const commentsOn = (commit: string) => standIn.state.commitComments.filter((c) => c.commitId === commit);

test('comment-on-commit: a push whose scan confirms a regression that first showed at it gets one comment on that commit, with the cc users; a re-run changes nothing', async () => {
  standIn.reset();
  const results = nightlyResults({ stepAt: NIGHTS - 1 });
  const first = await nightlyReport(results, { 'comment-on-commit': 'true', 'alert-comment-cc-users': '@octocat, @hubot' });
  assert.equal(first.code, 0, first.lines.join('\n'));
  const comments = commentsOn(HEAD);
  assert.equal(comments.length, 1, first.lines.join('\n'));
  const body = comments[0].body;
  assert.ok(body.startsWith(`${COMMIT_ALERT_MARKER}\n`));
  assert.match(body, /\*\*benchbot: this commit made 1 benchmark slower\*\* on (`|<code>)main/);
  assert.match(body, /parse \(time\)[^\n]*\+10\.\d%/);
  assert.match(body, /\[Workflow run\]\(https:\/\/github\.com\/octo\/gadgets\/actions\/runs\/77\)/);
  assert.match(body, /\ncc @octocat @hubot$/);
  assert.equal(first.outputs['commit-comment-url'], `https://github.com/octo/gadgets/commit/${HEAD}#commitcomment-${comments[0].id}`);
  assert.ok(first.requests.some((r) => r.method === 'POST' && r.template === '/repos/{owner}/{repo}/commits/{commit_sha}/comments'));

  const again = await nightlyReport(results, { 'comment-on-commit': 'true', 'alert-comment-cc-users': '@octocat, @hubot' });
  assert.equal(again.code, 0, again.lines.join('\n'));
  assert.equal(commentsOn(HEAD).length, 1);
  assert.ok(!again.requests.some((r) => r.method !== 'GET' && /\/comments/.test(r.path) && /commit/.test(r.template ?? '')), 'the re-run writes no commit comment');
  assert.ok(again.lines.some((l) => /commit [0-9a-f]{12} comment unchanged/.test(l)));
});

test('comment-on-commit: a regression that first showed at an earlier commit is not commented on this one; without the input nothing is', async () => {
  standIn.reset();
  const earlier = await nightlyReport(nightlyResults({ stepAt: 22 }), { 'comment-on-commit': 'true' });
  assert.equal(earlier.code, 0, earlier.lines.join('\n'));
  assert.equal(standIn.state.commitComments.length, 0);
  assert.ok(earlier.lines.some((l) => /no confirmed regression first showed at [0-9a-f]{12}; no commit comment/.test(l)), earlier.lines.join('\n'));
  const off = await nightlyReport(nightlyResults({ stepAt: NIGHTS - 1 }), {});
  assert.equal(off.code, 0, off.lines.join('\n'));
  assert.equal(standIn.state.commitComments.length, 0);
  assert.ok(!off.requests.some((r) => (r.template ?? '').includes('/commits/{commit_sha}/comments')));
});

test('a benchmark name from the artifact mentions nobody: its @ is broken, only the workflow\'s cc users are live', async () => {
  standIn.reset();
  const r = await nightlyReport(nightlyResults({ stepAt: NIGHTS - 1, name: 'parse @evil-user #1' }), { 'comment-on-commit': 'true', 'alert-comment-cc-users': 'octocat' });
  assert.equal(r.code, 0, r.lines.join('\n'));
  const body = commentsOn(HEAD)[0]?.body ?? '';
  assert.match(body, /@\u200bevil-user/);
  assert.deepEqual([...body.matchAll(/(?<![\w\u200b])@([A-Za-z0-9-]+)/g)].map((m) => m[1]), ['octocat']);
});

test('alert-comment-cc-users: the PR comment that reports a regression ends with the cc line; one without a regression mentions nobody', async () => {
  standIn.reset();
  const part = (headLevel: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'benchbot-alert-pr-'));
    const side = (lvl: number, seed: number) => JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'parse', unit: 'us', values: lognormalSamples(20, lvl, 0.003, seed) }] });
    writeFileSync(join(dir, 'base.json'), side(100, 1));
    writeFileSync(join(dir, 'head.json'), side(headLevel, 2));
    writeFileSync(join(dir, 'report.json'), JSON.stringify({ head_sha: 'c'.repeat(40), base_sha: 'b'.repeat(40) }));
    return dir;
  };
  const pr = async (merge: string, number: number) => {
    const work = mkdtempSync(join(tmpdir(), 'benchbot-alert-pr-report-'));
    const event = writeEvent(work, { number, baseSha: 'b'.repeat(40), headSha: 'c'.repeat(40) });
    const run = await runStep({ merge, 'github-token': 'ghs_test', 'check-name': 'none', 'alert-comment-cc-users': '@octocat,@hubot' }, { HOME: work, RUNNER_TEMP: work, GITHUB_REPOSITORY: 'octo/gadgets', GITHUB_API_URL: standIn.url, GITHUB_EVENT_PATH: event });
    assert.equal(run.code, 0, run.lines.join('\n'));
    return standIn.state.comments.filter((c) => c.issueNumber === number).map((c) => c.body);
  };
  const regressed = await pr(part(110), 41);
  assert.equal(regressed.length, 1);
  assert.match(regressed[0], /### benchbot: 1 regression/);
  assert.match(regressed[0], /\n\ncc @octocat @hubot$/);
  const unchanged = await pr(part(100), 42);
  assert.equal(unchanged.length, 1);
  assert.doesNotMatch(unchanged[0], /(?<![\w\u200b])@(octocat|hubot)/);
});

test('bad cc users and comment-on-commit outside a nightly are input errors naming the input (exit 2)', async () => {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-alert-bad-'));
  const env = { HOME: work, RUNNER_TEMP: work };
  for (const [inputs, message] of [
    [{ 'alert-comment-cc-users': '@octocat, @-bad' }, /alert-comment-cc-users: "@-bad" is not a GitHub login/],
    [{ 'alert-comment-cc-users': '@octo_cat' }, /alert-comment-cc-users: "@octo_cat" is not a GitHub login; give logins separated by commas/],
    [{ 'alert-comment-cc-users': Array.from({ length: 21 }, (_, i) => `@u${i}`).join(',') }, /alert-comment-cc-users: 21 logins; at most 20/],
    [{ 'comment-on-commit': 'true' }, /comment-on-commit: .*use it with mode: nightly/],
    [{ 'comment-on-commit': 'yes', mode: 'nightly' }, /comment-on-commit: "yes" is not true or false/],
  ] as [Record<string, string>, RegExp][]) {
    const r = await runStep({ merge: work, ...inputs }, env);
    assert.equal(r.code, 2, JSON.stringify(inputs));
    assert.ok(r.lines.some((l) => message.test(l)), `${JSON.stringify(inputs)}: ${r.lines.join('\n')}`);
  }
});

test('.github/benchbot.yml issues.cc: logins with or without @ for the regression issues the app files; anything else keeps the default and says why', () => {
  assert.deepEqual(parseAppConfig('issues:\n  cc: ["@octocat", hubot, "@Octocat"]\n').config.issues.cc, ['octocat', 'hubot']);
  const bad = parseAppConfig('issues:\n  cc: ["@octo cat"]\n');
  assert.deepEqual(bad.config.issues.cc, []);
  assert.equal(bad.problems[0].key, 'issues.cc');
  assert.equal(parseAppConfig(`issues:\n  cc: [${Array.from({ length: 21 }, (_, i) => `u${i}`).join(', ')}]\n`).problems[0].key, 'issues.cc');
});

/** pushNightly measures a push (the fixture's head, `headFactor` x parse) against ten stored pushes on this runner, then reports with comment-on-commit. */
async function pushNightly(headFactor: number) {
  standIn.reset();
  const repo = makeFixtureRepo({ headFactor });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-alert-e2e-'));
  const storePath = join(dir, 'history.db');
  const fingerprint = await createExecutor({ kind: 'local' }).fingerprint([]);
  const store = await openStore(storePath, { cwd: dir });
  try {
    // Ten earlier pushes at the fixture's levels, the last one the fixture's base commit.
    const shas = [...Array.from({ length: 9 }, (_, i) => sha(i)), repo.baseSha];
    await store.ingestRuns(shas.map((s, i) => ({
      sha: s, role: 'nightly' as const, repo: 'octo/gadgets', branch: 'main', fingerprint, harness: 'plain', warnings: [], hints: {},
      time: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
      measurements: [
        { benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values: lognormalSamples(6, 100, 0.0015, 300 + i) },
        { benchmark: 'hash', metric: 'time', unit: 'us', better: 'lower' as const, values: lognormalSamples(6, 50, 0.0015, 400 + i) },
      ],
    })));
  } finally {
    await store.close();
  }
  const env: Record<string, string> = { GITHUB_WORKSPACE: repo.dir, HOME: dir, RUNNER_TEMP: dir, GITHUB_REPOSITORY: 'octo/gadgets', GITHUB_REF_NAME: 'main', GITHUB_SHA: repo.headSha, BENCHBOT_LOCK: join(dir, 'lock') };
  const measured = await runStep({ bench: './bench.sh', build: './build.sh', format: 'plain', mode: 'nightly', store: storePath, 'min-runs': '6', 'max-runs': '6', 'max-load': '1000', base: repo.baseSha }, env);
  assert.equal(measured.code, 0, measured.lines.join('\n'));
  assert.equal(standIn.requests.length, 0, 'the measuring job makes no GitHub request');
  const work = mkdtempSync(join(tmpdir(), 'benchbot-alert-e2e-report-'));
  const reported = await runStep({ mode: 'nightly', merge: measured.outputs['artifact-path'], 'github-token': 'ghs_test', 'check-name': 'none', 'min-runs': '6', 'max-runs': '6', 'comment-on-commit': 'true', 'alert-comment-cc-users': '@octocat' }, {
    HOME: work, RUNNER_TEMP: work, GITHUB_REPOSITORY: 'octo/gadgets', GITHUB_REF_NAME: 'main', GITHUB_SHA: repo.headSha, GITHUB_API_URL: standIn.url,
  });
  assert.equal(reported.code, 0, reported.lines.join('\n'));
  return { comments: commentsOn(repo.headSha), log: [...measured.lines, ...reported.lines].join('\n') };
}

test('end to end: the measuring job of a push that makes parse 10% slower confirms it on the runner, and the report job comments on that commit', async () => {
  const { comments, log } = await pushNightly(1.1);
  assert.equal(comments.length, 1, log);
  assert.match(comments[0].body, /this commit made 1 benchmark slower/);
  assert.match(comments[0].body, /parse \(time\)[^\n]*\+(9|10|11)\.\d%/);
  assert.doesNotMatch(comments[0].body, /hash \(time\)/);
  assert.match(comments[0].body, /\ncc @octocat$/);
});

test('end to end: a push that changes nothing that matters gets no commit comment', async () => {
  // 0.1% slower (the fixture needs a change to commit): far below the 2% threshold.
  const { comments, log } = await pushNightly(1.001);
  assert.equal(comments.length, 0, log);
  assert.match(log, /no confirmed regression first showed at [0-9a-f]{12}; no commit comment/);
});
