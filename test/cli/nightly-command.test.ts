// `benchbot nightly` end to end, as a bench box runs it from cron: a C
// project whose main branch grows by two pull request merges a night, one
// `benchbot nightly` per night in the checkout, issues filed through the
// GitHub API stand-in. A merge that makes the benchmark do 30% more work is
// found within 3 nights, confirmed by the interleaved A/B, bisected to that
// merge and filed once; a later merge that undoes it closes the issue once
// the series is back (and it stays closed); the same number of nights
// without a step files nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { makeNightlyRepo, type NightlyRepo } from './nightly-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const NODE = process.execPath;
const BIN = join(ROOT, 'bin/benchbot.js');
const NIGHTS = 10;
/** STEP_NIGHT is the night (1-based) whose second merge raises the work by STEP. */
const STEP_NIGHT = 4;
const STEP = 1.3;
/** REVERT_NIGHT is the night whose second merge puts the work back. */
const REVERT_NIGHT = 7;
const WORK = 1_500_000;

interface Night {
  code: number;
  json: Record<string, any>;
  stderr: string;
}

/** nightly runs `benchbot nightly` in the checkout as cron would, with the flags the docs give, and parses its JSON report. */
function nightly(repo: NightlyRepo, home: string, standIn: GitHubApiStandIn, extra: string[] = []): Promise<Night> {
  const args = [BIN, 'nightly', '--bench', './bench.sh', '--build', './build.sh', '--repository', 'octo/gadgets', '--issues', '--bisect',
    '--threshold', '5%', '--min-runs', '6', '--max-runs', '12', '--max-load', '1000', '--store', join(home, 'benchbot.db'), '--output', 'json', ...extra];
  const env = { ...process.env, HOME: home, BENCHBOT_LOCK: join(home, 'lock'), GITHUB_TOKEN: 'ghs_nightly', GITHUB_API_URL: standIn.url, GITHUB_ACTIONS: '' };
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, args, { cwd: repo.dir, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve({ code: code ?? -1, json: JSON.parse(stdout), stderr });
      } catch {
        reject(new Error(`benchbot nightly exited ${code} without a JSON report:\n${stdout}\n${stderr}`));
      }
    });
  });
}

/** history runs NIGHTS nights of two merges each; `step` puts the work step into the second merge of STEP_NIGHT. */
async function history(t: { diagnostic: (m: string) => void }, step: boolean) {
  const standIn = await startGitHubApiStandIn();
  const home = mkdtempSync(join(tmpdir(), 'benchbot-nightly-home-'));
  const repo = makeNightlyRepo(WORK);
  const nights: Night[] = [];
  let culprit: { sha: string; pr: number } | undefined;
  try {
    for (let night = 1; night <= NIGHTS; night++) {
      repo.merge();
      const second = repo.merge(step && night === STEP_NIGHT ? { work: Math.round(WORK * STEP) } : step && night === REVERT_NIGHT ? { work: WORK } : {});
      if (step && night === STEP_NIGHT) culprit = second;
      const started = performance.now();
      const n = await nightly(repo, home, standIn, night === NIGHTS ? ['--dashboard', join(home, 'site')] : []);
      nights.push(n);
      const night_ = n.json.night;
      t.diagnostic(`night ${night}: exit ${n.code}, ${((performance.now() - started) / 1000).toFixed(1)} s; A/B ${night_?.comparisons?.[0]?.verdict ?? '-'} ${night_?.comparisons?.[0]?.ratio?.toFixed?.(3) ?? ''}; scan: ${n.json.scan.regressions} regression(s), ${n.json.scan.awaiting.length} awaiting; issues ${n.json.issues.map((i: any) => `#${i.number} ${i.action}`).join(', ') || 'none'}`);
      assert.notEqual(n.code, 2, n.stderr);
      // cron runs it in the user's checkout: the night leaves git status as it found it.
      assert.equal(spawnSync('git', ['status', '--porcelain'], { cwd: repo.dir, encoding: 'utf8' }).stdout, '', `night ${night} left files in the checkout`);
    }
    assertAllValid(standIn);
    return { nights, culprit, issues: standIn.state.issues, comments: standIn.state.comments, home, requests: standIn.requests };
  } finally {
    await standIn.close();
  }
}

test('benchbot nightly over 10 nights: a 30% step in one merge is found within 3 nights, confirmed, bisected to the merge and filed once; undone, its issue is closed', async (t) => {
  const { nights, culprit, issues, comments, home } = await history(t, true);
  assert.ok(culprit);
  // Before the step every night passes.
  for (let i = 0; i < STEP_NIGHT - 1; i++) assert.equal(nights[i].code, 0, `night ${i + 1} before the step: ${JSON.stringify(nights[i].json.scan.findings)}`);
  const first = nights.findIndex((n) => n.code === 1);
  assert.ok(first !== -1, 'the step is found');
  assert.ok(first + 1 <= STEP_NIGHT + 2, `found on night ${first + 1}, within 3 nights of the step (night ${STEP_NIGHT})`);
  // From then on, while the step is in, it stays a confirmed regression: interleaved A/B of last good vs first bad.
  for (const n of nights.slice(first, REVERT_NIGHT - 1)) assert.equal(n.code, 1);
  const regressed = nights[REVERT_NIGHT - 2];
  const finding = regressed.json.scan.findings.find((f: any) => f.direction === 'regression' && f.kind !== 'watch');
  assert.ok(finding?.confirmation, 'confirmed by an interleaved A/B');
  assert.ok(finding.ratio > 1.15 && finding.ratio < 1.45, `the step measured ${finding.ratio}`);
  // Bisected to the merge that raised the work, on the night it was found, and kept for the nights after.
  const bisect = nights[first].json.bisects[0];
  assert.equal(bisect.culprit?.sha, culprit.sha, JSON.stringify(bisect));
  if (first < REVERT_NIGHT - 2) {
    assert.equal(regressed.json.bisects[0].culprit?.sha, culprit.sha);
    assert.equal(regressed.json.bisects[0].reused, true);
  }
  // One issue, naming the culprit merge, updated night after night rather than filed again.
  assert.equal(issues.length, 1, issues.map((i) => i.title).join('\n'));
  assert.match(issues[0].body ?? '', new RegExp(`#${culprit.pr}`));
  // The merge that undid it: three nights back within the threshold close the issue with the numbers, and it stays closed.
  const closedOn = nights.findIndex((n) => n.json.closed.some((c: any) => c.action === 'closed'));
  assert.ok(closedOn >= REVERT_NIGHT - 1, `closed on night ${closedOn + 1}, after the merge that undid the step (night ${REVERT_NIGHT})`);
  assert.equal(issues[0].state, 'closed');
  const onIssue = comments.filter((c) => c.issueNumber === issues[0].number);
  assert.equal(onIssue.length, 1, 'one comment: the recovery, no reopening');
  assert.match(onIssue[0].body, /^\*\*Recovered\.\*\*/);
  for (const n of nights.slice(closedOn + 1)) assert.ok(n.json.issues.every((i: any) => i.action === 'left-closed'), JSON.stringify(n.json.issues));
  assert.ok(existsSync(join(home, 'site', 'index.html')), 'the dashboard was written');
});

test('benchbot nightly over 10 nights without a step (A/A) files nothing and exits 0 every night', async (t) => {
  const { nights, issues, requests } = await history(t, false);
  for (const [i, n] of nights.entries()) assert.equal(n.code, 0, `night ${i + 1}: ${JSON.stringify(n.json.scan.findings)}`);
  assert.equal(issues.length, 0);
  assert.equal(requests.filter((r) => r.method === 'POST').length, 0, 'no issue or comment created');
  assert.ok(requests.some((r) => r.method === 'GET' && r.path.endsWith('/issues')), 'it did look for issues to reconcile');
});

test('benchbot nightly refuses bad flags with the flag to change, before measuring anything', async () => {
  const { parseNightlyArgs } = await import('../../src/cli/nightly-command.ts');
  const repo = makeNightlyRepo(1000);
  const parse = (args: string[], env: NodeJS.ProcessEnv = {}) => () => parseNightlyArgs(['--bench', './bench.sh', ...args], repo.dir, env);
  assert.throws(parse(['--output', 'html']), /--output html: use one of text, markdown, json/);
  assert.throws(parse(['--issues']), /--issues needs --repository OWNER\/NAME/);
  assert.throws(parse(['--issues', '--repository', 'octo/gadgets']), /--issues needs a token .* GITHUB_TOKEN/);
  assert.throws(parse(['--repository', 'gadgets']), /--repository gadgets: give the GitHub repository as OWNER\/NAME/);
  assert.throws(parse(['--confirm-only', '--base', 'HEAD~1']), /--base: --confirm-only measures no night/);
  assert.throws(parse(['--issue-label', 'perf']), /--issue-label: .* add --issues/);
  assert.throws(parse(['--bisect', '--executor', 'ssh://bench@box']), /--bisect: bisects on this machine only, and --executor ssh:\/\/bench@box/);
  assert.throws(() => parseNightlyArgs([], repo.dir, {}), /--bench is required/);
  const settings = parseNightlyArgs(['--bench', './bench.sh', '--issues', '--repository', 'octo/gadgets'], repo.dir, { GITHUB_TOKEN: 'ghs_x' });
  assert.equal(settings.branch, 'main', 'the checkout\'s branch');
  assert.equal(settings.head, 'main');
  assert.equal(settings.repository, 'octo/gadgets');
  assert.equal(settings.issues?.token, 'ghs_x');
});
