import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstParentMerges, parsePrNumber } from '../../src/runner/first-parent-merges.ts';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { makeMergeRepo } from './merge-repo.ts';

test('parsePrNumber reads merge-button and squash subjects and nothing else', () => {
  assert.equal(parsePrNumber('Merge pull request #1234 from octo/feature'), 1234);
  assert.equal(parsePrNumber('Speed up the parser (#87)'), 87);
  assert.equal(parsePrNumber('Speed up the parser (#87)  '), 87);
  assert.equal(parsePrNumber('Fix #12 in the parser'), undefined);
  assert.equal(parsePrNumber('Merge branch main into feature'), undefined);
  assert.equal(parsePrNumber('Revert "x (#5)" (#9)'), 9);
});

test('candidates are the first-parent merges oldest first, ending at bad, with the PR and its author', () => {
  const repo = makeMergeRepo({ merges: 6, culprit: 3 });
  const candidates = firstParentMerges(repo.dir, repo.good, repo.bad);
  assert.deepEqual(candidates.map((c) => c.sha), repo.merges.map((m) => m.sha));
  assert.deepEqual(candidates.map((c) => c.pr), repo.merges.map((m) => m.pr));
  // The merge commits are authored by the maintainer; the PR's author wrote the topic commit.
  assert.deepEqual(candidates.map((c) => c.author), repo.merges.map((m) => m.author));
  assert.ok(candidates.every((c) => c.merge));
  assert.deepEqual(firstParentMerges(repo.dir, repo.merges[1].sha, repo.merges[3].sha).map((c) => c.pr), [103, 104]);
});

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=T', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

test('squash-merged history: commits with (#N) are candidates, direct pushes are not, and bad is always last', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-squash-'));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  const commit = (message: string) => {
    writeFileSync(join(dir, 'f.txt'), message);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', message);
    return git(dir, 'rev-parse', 'HEAD');
  };
  const good = commit('initial');
  commit('Add the parser (#11)');
  commit('fix typo');
  commit('Faster hashing (#12)');
  const bad = commit('bump version');
  const candidates = firstParentMerges(dir, good, bad);
  assert.deepEqual(candidates.map((c) => c.subject), ['Add the parser (#11)', 'Faster hashing (#12)', 'bump version']);
  assert.deepEqual(candidates.map((c) => c.pr), [11, 12, undefined]);

  // No PR anywhere: every first-parent commit is a candidate.
  const plain = mkdtempSync(join(tmpdir(), 'benchbot-plain-'));
  execFileSync('git', ['init', '-q', '-b', 'main', plain]);
  const c0 = (() => { writeFileSync(join(plain, 'f'), '0'); git(plain, 'add', '-A'); git(plain, 'commit', '-q', '-m', 'zero'); return git(plain, 'rev-parse', 'HEAD'); })();
  for (const m of ['one', 'two']) { writeFileSync(join(plain, 'f'), m); git(plain, 'commit', '-q', '-am', m); }
  assert.deepEqual(firstParentMerges(plain, c0, 'HEAD').map((c) => c.subject), ['one', 'two']);
});

test('a good commit that is not an ancestor of bad, or an empty range, is a RunnerError naming the flags', () => {
  const repo = makeMergeRepo({ merges: 3, culprit: 2 });
  assert.throws(() => firstParentMerges(repo.dir, repo.bad, repo.good), (e: Error) => e instanceof RunnerError && /--good .* is not an ancestor of --bad/.test(e.message));
  assert.throws(() => firstParentMerges(repo.dir, repo.bad, repo.bad), (e: Error) => e instanceof RunnerError && /no commits between --good/.test(e.message));
});
