import { spawnSync } from 'node:child_process';
import type { Commit } from '../bisect/create-bisect.ts';
import { RunnerError } from './git-checkout.ts';

/**
 * MergeCommit is one candidate of a bisection: a commit on the first-parent
 * line of the bad commit. `author` is the pull request's author when it can
 * be told: for a true merge, the author of the merged branch's tip (the
 * merge commit itself is authored by whoever pressed the button); else the
 * commit's author. `time` is the committer date, ISO 8601; `parent` the
 * first parent (what the culprit is confirmed against).
 */
export interface MergeCommit extends Commit {
  author: string;
  authorEmail: string;
  time: string;
  merge: boolean;
}

/**
 * parsePrNumber reads the pull request number from a merge subject as
 * GitHub writes it: `Merge pull request #123 from owner/branch` (merge
 * button) or `Title of the change (#123)` at the end (squash and merge).
 * Anything else is undefined.
 */
export function parsePrNumber(subject: string): number | undefined {
  const merge = /^Merge pull request #(\d+)\b/.exec(subject);
  if (merge) return Number(merge[1]);
  const squash = /\(#(\d+)\)\s*$/.exec(subject);
  return squash ? Number(squash[1]) : undefined;
}

function git(repo: string, args: string[]): string {
  const run = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) throw new RunnerError(`git is not installed or not on PATH (${run.error.message}); install git`);
  if (run.status !== 0) throw new RunnerError(`git ${args.join(' ')} failed in ${repo}: ${run.stderr.trim().split('\n')[0]}`);
  return run.stdout;
}

const FIELD = '\u001f';
const RECORD = '\u001e';

/**
 * firstParentMerges lists the bisection candidates between two commits,
 * oldest first, ending with `bad` itself: the commits of
 * `git rev-list --first-parent good..bad` that are merges or carry a pull
 * request number (squash merges), since each of those is one pull request
 * landing on the branch. A range with neither (a branch of direct pushes)
 * falls back to every first-parent commit. Throws RunnerError when good is
 * not an ancestor of bad (the range would be meaningless) or the range is
 * empty.
 */
export function firstParentMerges(repo: string, good: string, bad: string): MergeCommit[] {
  const ancestor = spawnSync('git', ['-C', repo, 'merge-base', '--is-ancestor', good, bad]);
  if (ancestor.status !== 0) throw new RunnerError(`--good ${good.slice(0, 12)} is not an ancestor of --bad ${bad.slice(0, 12)}; give a good commit from the history of the bad one`);
  const format = ['%H', '%P', '%s', '%an', '%ae', '%cI'].join(FIELD) + RECORD;
  const text = git(repo, ['log', '--first-parent', '--reverse', `--format=${format}`, `${good}..${bad}`]);
  const all: MergeCommit[] = [];
  for (const record of text.split(RECORD)) {
    const line = record.replace(/^\n/, '');
    if (line === '') continue;
    const [sha, parents, subject, author, authorEmail, time] = line.split(FIELD);
    const parentList = parents.split(' ').filter((p) => p !== '');
    const commit: MergeCommit = { sha, subject, author, authorEmail, time, merge: parentList.length > 1 };
    // A culprit is confirmed against its first parent, which need not be a candidate (a direct push between merges).
    if (parentList.length > 0) commit.parent = parentList[0];
    const pr = parsePrNumber(subject);
    if (pr !== undefined) commit.pr = pr;
    if (commit.merge) {
      // The PR's author wrote the merged branch, not the merge commit.
      const [name, email] = git(repo, ['log', '-1', `--format=%an${FIELD}%ae`, parentList[1]]).trim().split(FIELD);
      commit.author = name;
      commit.authorEmail = email;
    }
    all.push(commit);
  }
  if (all.length === 0) throw new RunnerError(`no commits between --good ${good.slice(0, 12)} and --bad ${bad.slice(0, 12)}; is --bad the later one?`);
  const landed = all.filter((c) => c.merge || c.pr !== undefined);
  const candidates = landed.length > 0 ? landed : all;
  const last = all[all.length - 1];
  if (candidates[candidates.length - 1].sha !== last.sha) candidates.push(last);
  return candidates;
}
