import { xoshiro128 } from '../stats/bootstrap.ts';

/** Side is which checkout a round measures. */
export type Side = 'base' | 'head';

/**
 * roundSchedule orders `rounds` rounds per side in ABBA blocks: each block of
 * four runs is base-head-head-base or head-base-base-head, chosen by a seeded
 * coin, so a linear drift of the machine (thermal, background load) cancels
 * within every block and no side always goes first. Pure: the same seed gives
 * the same order, which makes any run reproducible.
 */
export function roundSchedule(rounds: number, seed: number): Side[] {
  const random = xoshiro128(seed);
  const order: Side[] = [];
  for (let block = 0; block < Math.ceil(rounds / 2); block++) {
    const first: Side = random() < 0.5 ? 'base' : 'head';
    const second: Side = first === 'base' ? 'head' : 'base';
    order.push(first, second, second, first);
  }
  // An odd round count ends in a half block: keep it balanced (one of each).
  return order.slice(0, 2 * rounds);
}

/**
 * lookSchedule returns the rounds per side at which adaptive sampling looks:
 * the DESIGN.md looks (10, 15, 20, 30, 40) that fall between minRuns and
 * maxRuns, always including both ends.
 */
export function lookSchedule(minRuns: number, maxRuns: number, designLooks: readonly number[]): number[] {
  const looks = new Set([minRuns, ...designLooks.filter((l) => l > minRuns && l < maxRuns), maxRuns]);
  return [...looks].filter((l) => l >= minRuns && l <= maxRuns).sort((a, b) => a - b);
}

/** seedFromShas derives a reproducible round-order seed from the two commits, so a rerun of the same A/B has the same order. */
export function seedFromShas(base: string, head: string): number {
  return (Number.parseInt(base.slice(0, 7), 16) ^ Number.parseInt(head.slice(0, 7), 16)) >>> 0;
}
