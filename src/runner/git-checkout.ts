import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { makeStateDir } from './state-dir.ts';

/** RunnerError is a problem with the setup of a run (repository, refs, build, executor); its message says what to fix. */
export class RunnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RunnerError';
  }
}

function git(repo: string, args: string[]): { ok: boolean; out: string; err: string } {
  const run = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  if (run.error) throw new RunnerError(`git is not installed or not on PATH (${run.error.message}); install git`);
  return { ok: run.status === 0, out: run.stdout.trim(), err: run.stderr.trim() };
}

/** openRepository checks that dir is a git work tree and returns its top level; errors name the setting `repo` as `name` spells it. */
export function openRepository(dir: string, name: NameSetting = cliSetting): string {
  if (!existsSync(dir)) throw new RunnerError(`${name('repo')} ${dir}: no such directory`);
  const top = git(dir, ['rev-parse', '--show-toplevel']);
  if (!top.ok) throw new RunnerError(`${name('repo')} ${dir}: not a git repository (${top.err.split('\n')[0]}); pass the repository to benchmark with ${name('repo')}`);
  return top.out;
}

/**
 * missingCommits are the SHAs of `shas` that are not commits of the
 * repository at `repo` (history rewritten, never fetched, or another
 * repository's); all of them when `repo` is no repository.
 */
export function missingCommits(repo: string, shas: readonly string[]): string[] {
  const hex = shas.filter((sha) => /^[0-9a-f]{7,64}$/i.test(sha));
  if (hex.length === 0) return [...shas];
  // One git process for all of them: a line per object, `<sha> commit <size>`, or `<name> missing` (or another type).
  const run = spawnSync('git', ['-C', repo, 'cat-file', '--batch-check'], { input: hex.map((sha) => `${sha}^{commit}`).join('\n') + '\n', encoding: 'utf8' });
  // Not a repository (or no directory): git stops before it reads its input, which the write then finds closed.
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new RunnerError(`git is not installed or not on PATH (${run.error?.message}); install git`);
  if (run.error || run.status !== 0) return [...shas];
  const lines = run.stdout.split('\n');
  const found = new Set(hex.filter((_, i) => / commit \d+$/.test(lines[i] ?? '')));
  return shas.filter((sha) => !found.has(sha));
}

/** resolveCommit turns a ref (branch, tag, SHA, HEAD~2) into a full commit SHA, or says which flag names a ref that does not exist. */
export function resolveCommit(repo: string, ref: string, flag: string): string {
  if (ref.startsWith('-')) throw new RunnerError(`${flag} ${ref}: not a git ref`);
  const parsed = git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  if (!parsed.ok || !/^[0-9a-f]{40,64}$/.test(parsed.out)) {
    throw new RunnerError(`${flag} ${ref}: no such commit, branch or tag in ${repo} (fetch it first, e.g. git fetch origin ${ref})`);
  }
  return parsed.out;
}

/** treeHash is the git tree of a commit: two commits with the same tree build the same artifacts. */
export function treeHash(repo: string, sha: string): string {
  return git(repo, ['rev-parse', `${sha}^{tree}`]).out;
}

/** dirtyFiles lists uncommitted changes to tracked files (they would not be measured). */
export function dirtyFiles(repo: string): string[] {
  const status = git(repo, ['status', '--porcelain', '--untracked-files=no']);
  return status.out === '' ? [] : status.out.split('\n');
}

/** commitSubject returns the first line of a commit message. */
export function commitSubject(repo: string, sha: string): string {
  return git(repo, ['log', '-1', '--format=%s', sha]).out;
}

/**
 * checkoutWorktree makes a detached worktree of sha under stateDir and returns
 * its path, reusing one that is already at that commit (so a second run does
 * not rebuild from scratch).
 */
export function checkoutWorktree(repo: string, sha: string, stateDir: string): string {
  const path = resolve(join(stateDir, 'worktrees', sha.slice(0, 12)));
  if (existsSync(path)) {
    const head = git(path, ['rev-parse', 'HEAD']);
    if (head.ok && head.out === sha) {
      git(path, ['reset', '--hard', '--quiet', sha]);
      return path;
    }
    git(repo, ['worktree', 'remove', '--force', path]);
  }
  makeStateDir(stateDir);
  mkdirSync(join(stateDir, 'worktrees'), { recursive: true });
  git(repo, ['worktree', 'prune']);
  const added = git(repo, ['worktree', 'add', '--detach', '--force', path, sha]);
  if (!added.ok) throw new RunnerError(`could not check out ${sha.slice(0, 12)} into ${path}: ${added.err}`);
  return path;
}
