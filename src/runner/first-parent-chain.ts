import { spawnSync } from 'node:child_process';

/** MAX_FIRST_PARENT bounds the first-parent chain shipped for the recovery decision. */
export const MAX_FIRST_PARENT = 50_000;

/**
 * firstParentChain lists the first-parent commits of `head` in the checkout
 * `repoDir`, oldest first, back to the oldest of the commits `stopAt` found
 * on the chain (capped at MAX_FIRST_PARENT); empty when git cannot tell.
 */
export function firstParentChain(repoDir: string, head: string, stopAt: ReadonlySet<string>): string[] {
  const out = spawnSync('git', ['-C', repoDir, 'rev-list', '--first-parent', `--max-count=${MAX_FIRST_PARENT}`, head], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) return [];
  const chain = out.stdout.split('\n').filter((l) => l !== '');
  let last = -1;
  chain.forEach((sha, i) => {
    if (stopAt.has(sha)) last = i;
  });
  return (last === -1 ? chain : chain.slice(0, last + 1)).reverse();
}
