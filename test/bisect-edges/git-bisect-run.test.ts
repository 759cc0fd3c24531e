// bisect/git-bisect-run under a real `git bisect run`, and its exit-code contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeMergeRepo } from './merge-repo.ts';

const ADAPTER = fileURLToPath(new URL('../../bisect/git-bisect-run', import.meta.url));

function env(dir: string) {
  // The adapter runs benchbot with BENCHBOT_NODE: this test's Node, whatever `node` on PATH is.
  return { ...process.env, BENCHBOT_NODE: process.execPath, BENCHBOT_LOCK: join(dir, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '', GIT_CONFIG_GLOBAL: '/dev/null' };
}

function git(dir: string, ...args: string[]) {
  return spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: env(dir) });
}

const oracleArgs = (good: string, bad: string) => ['--good-ref', good, '--bad-ref', bad, '--bench', './bench.sh', '--build', './build.sh', '--rounds', '6', '--max-load', '1000'];

test('git bisect run with the oracle names the merge that slowed parse', () => {
  const repo = makeMergeRepo({ merges: 16, culprit: 11 });
  // --first-parent: the candidates are the merges, as benchbot bisect's are.
  assert.equal(git(repo.dir, 'bisect', 'start', '--first-parent', repo.bad, repo.good).status, 0);
  const run = git(repo.dir, 'bisect', 'run', ADAPTER, ...oracleArgs(repo.good, repo.bad));
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`${repo.culprit.sha} is the first bad commit`));
  assert.match(run.stdout, /Merge pull request #111 from octo\/topic-11/);
  // Every verdict comes from one session of the commit interleaved with both references.
  assert.match(run.stdout, /benchbot oracle: [0-9a-f]{12} good: parse \(time\) 1 session\(s\), [+-][\d.]+% vs good .*; bad vs good \+[\d.]+% in the same sessions/);
  assert.match(run.stdout, /benchbot oracle: [0-9a-f]{12} bad: parse \(time\) 1 session\(s\)/);
  git(repo.dir, 'bisect', 'reset');
});

test('exit codes: 0 good and 1 bad by the references, 125 for a commit that does not build, 128 for an error', () => {
  const repo = makeMergeRepo({ merges: 8, culprit: 5, broken: [2] });
  const oracle = (...extra: string[]) => spawnSync(ADAPTER, [...oracleArgs(repo.good, repo.bad), ...extra], { cwd: repo.dir, encoding: 'utf8', env: env(repo.dir) });
  const good = oracle('--probe', repo.merges[3].sha);
  assert.equal(good.status, 0, good.stderr);
  const bad = oracle('--probe', repo.merges[4].sha);
  assert.equal(bad.status, 1, bad.stderr);
  const broken = oracle('--probe', repo.merges[1].sha);
  assert.equal(broken.status, 125, broken.stderr);
  assert.match(broken.stdout, /skipped: build of .* failed/);
  // A usage error must stop git bisect (exit >= 128), not mark the commit bad.
  const error = spawnSync(ADAPTER, ['--good-ref', repo.good], { cwd: repo.dir, encoding: 'utf8', env: env(repo.dir) });
  assert.equal(error.status, 128);
  assert.match(error.stderr, /--bad-ref is required/);
});

test('references that do not differ stop the bisection with the numbers', () => {
  const repo = makeMergeRepo({ merges: 4, culprit: 3, factor: 1 });
  const run = spawnSync(ADAPTER, [...oracleArgs(repo.good, repo.bad), '--probe', repo.merges[1].sha], { cwd: repo.dir, encoding: 'utf8', env: env(repo.dir) });
  assert.equal(run.status, 128);
  assert.match(run.stderr, /not reproducible: parse \(time\) differs by [+-][\d.]+% between/);
});
