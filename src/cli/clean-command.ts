import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { openRepository, RunnerError } from '../runner/git-checkout.ts';
import { parseFlags } from './usage-error.ts';

export const CLEAN_USAGE = `usage: benchbot clean [--repo DIR] [--dry-run]

Removes the git worktrees that run, calibrate and bisect check commits out
into (DIR/.benchbot/worktrees, with their builds) and unregisters them from
git worktree list. The history store is left alone. The next run checks out
and builds again.

options:
  --repo DIR      the repository whose worktrees to remove (default .)
  --dry-run       list what would be removed, remove nothing`;

function git(repo: string, args: string[]): { ok: boolean; out: string; err: string } {
  const run = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  if (run.error) throw new RunnerError(`git is not installed or not on PATH (${run.error.message}); install git`);
  return { ok: run.status === 0, out: run.stdout, err: run.stderr.trim() };
}

/**
 * benchbotWorktrees lists the worktrees benchbot made for a repository: the
 * registered ones under `.benchbot/worktrees` of the directory given or of
 * the repository's top level (run keeps them under --repo as typed), and
 * leftover folders there that git no longer knows.
 */
export function benchbotWorktrees(dir: string): { registered: string[]; leftover: string[]; roots: string[] } {
  const top = openRepository(dir);
  const roots = [...new Set([resolve(dir, '.benchbot', 'worktrees'), join(top, '.benchbot', 'worktrees')])];
  const list = git(top, ['worktree', 'list', '--porcelain']);
  const paths = list.out.split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length));
  const registered = paths.filter((p) => roots.some((root) => p.startsWith(root + sep)));
  const leftover = roots.flatMap((root) => (existsSync(root) ? readdirSync(root).map((name) => join(root, name)) : [])).filter((p) => !registered.includes(p));
  return { registered, leftover, roots };
}

/** runClean implements `benchbot clean`. */
export function runClean(args: string[], out: (text: string) => void): number {
  const { values } = parseFlags(args, { repo: { type: 'string' }, 'dry-run': { type: 'boolean' } }, false);
  const dir = resolve(process.cwd(), values.repo ?? '.');
  const { registered, leftover, roots } = benchbotWorktrees(dir);
  const top = openRepository(dir);
  if (values['dry-run']) {
    for (const p of [...registered, ...leftover]) out(`would remove ${p}`);
    out(`${registered.length + leftover.length} worktree(s) would be removed`);
    return 0;
  }
  for (const p of registered) {
    const removed = git(top, ['worktree', 'remove', '--force', p]);
    if (!removed.ok) throw new RunnerError(`could not remove the worktree ${p}: ${removed.err}`);
    out(`removed ${p}`);
  }
  for (const p of leftover) {
    rmSync(p, { recursive: true, force: true });
    out(`removed ${p}`);
  }
  for (const root of roots) if (existsSync(root) && readdirSync(root).length === 0) rmSync(root, { recursive: true });
  git(top, ['worktree', 'prune']);
  out(`${registered.length + leftover.length} worktree(s) removed`);
  return 0;
}
