import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** STATE_DIR_NAME is the directory benchbot keeps its working state in: worktrees, builds, the default store. */
export const STATE_DIR_NAME = '.benchbot';

/**
 * IGNORE_ALL is the .gitignore benchbot writes into its state directory, as
 * pytest, mypy and ruff do for their caches: inside the user's repository,
 * `git status` stays clean after a run, and nothing has to be added to the
 * repository's own .gitignore.
 */
const IGNORE_ALL = '# benchbot\'s working state (worktrees, builds, the default store); never committed\n*\n';

/**
 * makeStateDir creates dir (and its parents). A directory named .benchbot
 * gets the .gitignore that hides it from git, unless it has one already
 * (a user's own is kept).
 */
export function makeStateDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (basename(dir) !== STATE_DIR_NAME) return;
  const ignore = join(dir, '.gitignore');
  if (existsSync(ignore)) return;
  try {
    writeFileSync(ignore, IGNORE_ALL, { flag: 'wx' });
  } catch (error) {
    // Another benchbot wrote it first; any other failure only costs a line in git status.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
}
