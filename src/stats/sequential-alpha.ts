/**
 * sequential-alpha: how adaptive sampling splits its error budget alpha over
 * the looks it takes (by default after 10, 15, 20, 30 and 40 rounds per
 * side), so that stopping at the first decisive look does not inflate the
 * false-alarm rate.
 *
 * Look k is tested at alpha_k = f(t_k) - f(t_(k-1)), t_k = looks[k] /
 * looks[last] the information fraction, with a Lan-DeMets spending function
 * f (Lan & DeMets 1983). The alpha_k sum to alpha, so by the union bound
 * P(any false rejection) <= sum alpha_k = alpha whatever the correlation
 * between looks and whatever valid test runs at each look: the guarantee
 * needs no multivariate-normal integration, at the price of being somewhat
 * conservative (looks on nested samples are strongly correlated). A seeded
 * simulation under the null checks it (test/stats/sequential-alpha.test.ts).
 *
 * Default spending is Pocock-type, f(t) = alpha ln(1 + (e - 1) t): it spends
 * enough early (about 36 % of alpha at 10 of 40 rounds) that clear changes
 * stop at the first look, which is what adaptive sampling is for. The
 * O'Brien-Fleming type f(t) = 2 - 2 Phi(z_(1-alpha/2) / sqrt(t)) keeps almost
 * everything for the last look; `bonferroni` splits alpha equally.
 */

import { normalCdf, normalQuantile, normalSf } from './normal.ts';

/** DEFAULT_LOOKS are the rounds per side at which adaptive sampling looks. */
export const DEFAULT_LOOKS: readonly number[] = [10, 15, 20, 30, 40];

/** SpendingFunction names the alpha-spending shape. */
export type SpendingFunction = 'pocock' | 'obrien-fleming' | 'bonferroni';

/** SequentialAlphaOptions: overall `alpha` (default 0.05), `looks` (rounds per side, increasing), `spending` (default `pocock`). */
export interface SequentialAlphaOptions {
  alpha?: number;
  looks?: readonly number[];
  spending?: SpendingFunction;
}

/**
 * sequentialAlpha returns the significance level for each look, in look
 * order; they are positive and sum to alpha (the last one absorbs rounding so
 * the sum never exceeds it). Throws RangeError for alpha outside (0, 1) or
 * looks that are empty, non-positive or not increasing.
 */
export function sequentialAlpha(options: SequentialAlphaOptions = {}): number[] {
  const alpha = options.alpha ?? 0.05;
  const looks = options.looks ?? DEFAULT_LOOKS;
  const spending = options.spending ?? 'pocock';
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`sequentialAlpha: alpha must be in (0, 1), got ${alpha}`);
  if (looks.length === 0 || !(looks[0] > 0) || looks.some((l, i) => i > 0 && !(l > looks[i - 1]))) {
    throw new RangeError(`sequentialAlpha: looks must be positive and increasing, got [${looks.join(', ')}]`);
  }
  const last = looks[looks.length - 1];
  const spent = (t: number): number => {
    switch (spending) {
      case 'pocock':
        return alpha * Math.log(1 + (Math.E - 1) * t);
      case 'obrien-fleming':
        return 2 - 2 * normalCdf(normalQuantile(1 - alpha / 2) / Math.sqrt(t));
      case 'bonferroni':
        return alpha * t;
    }
  };
  const out: number[] = [];
  let previous = 0;
  for (let k = 0; k < looks.length; k++) {
    const cumulative = k === looks.length - 1 ? alpha : Math.min(alpha, spent(looks[k] / last));
    const level = spending === 'bonferroni' ? alpha / looks.length : cumulative - previous;
    out.push(level);
    previous = cumulative;
  }
  const total = out.reduce((a, b) => a + b, 0);
  if (total > alpha) out[out.length - 1] -= total - alpha;
  return out;
}

/**
 * groupSequentialLevels returns the nominal significance level of each look
 * when the looks are tested with exact group-sequential boundaries for the
 * same spending function (Lan & DeMets 1983): the boundary at look k is
 * chosen so that the probability of crossing it for the first time there,
 * under the null, is exactly f(t_k) - f(t_(k-1)). Because later looks
 * share most of their data with earlier ones, a path that did not cross
 * before is unlikely to be far out, so each look may test at a higher
 * nominal level than its share of alpha, and the overall error is still
 * alpha: the union bound of {@link sequentialAlpha} leaves that on the table.
 *
 * The crossing probabilities come from the canonical joint distribution of
 * the standardized statistics (Brownian motion in the information fraction
 * t_k = looks[k] / looks[last]; Jennison & Turnbull, "Group Sequential
 * Methods", ch. 19), integrated numerically over the continuation region
 * (Armitage, McPherson & Rowe 1969; Simpson's rule on 301 points). That
 * joint distribution holds asymptotically for rank and t statistics alike;
 * the seeded null simulation in test/stats/sequential-alpha.test.ts checks
 * the overall error of the U test at 10-40 rounds per side.
 *
 * `sides` 2 gives two-sided levels (a difference either way, the
 * regressed/improved decision); `sides` 1 one-sided levels (each of the two
 * one-sided tests of an equivalence decision, which a TOST at level a
 * makes with a 1 - 2a interval). The first look's level is f(t_1) either way.
 */
export function groupSequentialLevels(options: SequentialAlphaOptions & { sides?: 1 | 2 } = {}): number[] {
  const alpha = options.alpha ?? 0.05;
  const looks = options.looks ?? DEFAULT_LOOKS;
  const sides = options.sides ?? 2;
  // String(number) is the shortest text that reads back as the same double, so equal keys are exactly equal inputs.
  const key = `${alpha}|${options.spending ?? 'pocock'}|${sides}|${looks.join(',')}`;
  let levels = levelsCache.get(key);
  if (levels === undefined) {
    levels = computeGroupSequentialLevels(alpha, looks, sides, options);
    if (levelsCache.size >= LEVELS_CACHE_SIZE) levelsCache.delete(levelsCache.keys().next().value as string);
  } else {
    levelsCache.delete(key);
  }
  // Re-inserted so the Map's order is least recently used first; callers get a copy, never the cached array.
  levelsCache.set(key, levels);
  return levels.slice();
}

/**
 * LEVELS_CACHE_SIZE bounds the memo of groupSequentialLevels, in look
 * schedules. The integration takes ~14 ms and the app ran it for every
 * completed `/bench` (two schedules per report) with the same few inputs: a
 * repository has one alpha and one round budget, so 64 schedules cover many
 * repositories' settings and stay a few kB. Least recently used goes first.
 */
const LEVELS_CACHE_SIZE = 64;

/** levelsCache: groupSequentialLevels' results by exact inputs (the function is pure, so a hit is the same answer). */
const levelsCache = new Map<string, readonly number[]>();

/** KnownLevels are memoized group-sequential levels as plain data (input key, levels), to carry across a worker boundary. */
export type KnownLevels = Array<[key: string, levels: number[]]>;

/**
 * knownGroupSequentialLevels returns this thread's memo of
 * groupSequentialLevels. A worker thread has its own module state, so the
 * app's `/bench` recompute (a fresh worker per report) hands the memo in
 * and takes it back (bench-recompute.ts): without it every report paid the
 * integration again, 100-500 ms of CPU cold.
 */
export function knownGroupSequentialLevels(): KnownLevels {
  return [...levelsCache].map(([key, levels]) => [key, levels.slice()]);
}

/**
 * rememberGroupSequentialLevels puts entries from knownGroupSequentialLevels
 * (another thread's, the app's own) into this thread's memo, within its
 * bound, replacing any under the same key; malformed entries are skipped.
 */
export function rememberGroupSequentialLevels(entries: unknown): void {
  if (!Array.isArray(entries)) return;
  for (const entry of entries.slice(-LEVELS_CACHE_SIZE)) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !Array.isArray(entry[1]) || !entry[1].every((l: unknown) => typeof l === 'number' && l > 0 && l < 1)) continue;
    levelsCache.delete(entry[0]);
    if (levelsCache.size >= LEVELS_CACHE_SIZE) levelsCache.delete(levelsCache.keys().next().value as string);
    levelsCache.set(entry[0], (entry[1] as number[]).slice());
  }
}

function computeGroupSequentialLevels(alpha: number, looks: readonly number[], sides: 1 | 2, options: SequentialAlphaOptions): number[] {
  const increments = sequentialAlpha(options);
  const last = looks[looks.length - 1];
  const t = looks.map((l) => l / last);
  const points = 301;
  // Continuation density of S_(k-1) = Z sqrt(t), on a grid over its region.
  let grid: Float64Array = new Float64Array(0);
  let density: Float64Array = new Float64Array(0);
  const levels: number[] = [];
  const tail = (c: number) => (sides === 2 ? 2 : 1) * normalSf(c);
  for (let k = 0; k < looks.length; k++) {
    const target = increments[k];
    let c: number;
    if (k === 0) {
      c = sides === 2 ? normalQuantile(1 - target / 2) : normalQuantile(1 - target);
    } else {
      const delta = t[k] - t[k - 1];
      const sd = Math.sqrt(delta);
      const root = Math.sqrt(t[k]);
      const crossing = (cc: number): number => {
        let total = 0;
        for (let i = 0; i < grid.length; i++) {
          const u = grid[i];
          let p = normalSf((cc * root - u) / sd);
          if (sides === 2) p += normalCdf((-cc * root - u) / sd);
          total += simpson(i, grid.length) * density[i] * p;
        }
        return total * (grid[1] - grid[0]) / 3;
      };
      let lo = 0;
      let hi = 12;
      for (let i = 0; i < 100; i++) {
        const mid = (lo + hi) / 2;
        if (crossing(mid) > target) lo = mid;
        else hi = mid;
      }
      c = (lo + hi) / 2;
    }
    levels.push(Math.min(alpha, tail(c)));
    if (k === looks.length - 1) break;
    // Density of S_k over its continuation region, from the previous one.
    const root = Math.sqrt(t[k]);
    const upper = c * root;
    const lower = sides === 2 ? -upper : -8 * root;
    const next = new Float64Array(points);
    const nextGrid = new Float64Array(points);
    for (let j = 0; j < points; j++) nextGrid[j] = lower + ((upper - lower) * j) / (points - 1);
    if (k === 0) {
      for (let j = 0; j < points; j++) next[j] = normalPdf(nextGrid[j] / root) / root;
    } else {
      const sd = Math.sqrt(t[k] - t[k - 1]);
      const h = grid[1] - grid[0];
      for (let j = 0; j < points; j++) {
        let total = 0;
        for (let i = 0; i < grid.length; i++) total += simpson(i, grid.length) * density[i] * normalPdf((nextGrid[j] - grid[i]) / sd);
        next[j] = (total * h) / 3 / sd;
      }
    }
    grid = nextGrid;
    density = next;
  }
  return levels;
}

function simpson(i: number, n: number): number {
  return i === 0 || i === n - 1 ? 1 : i % 2 === 1 ? 4 : 2;
}

function normalPdf(z: number): number {
  return Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
}

/** LookLevels are the per-look levels of both decisions: two-sided for a difference, one-sided for each test of equivalence. */
export interface LookLevels {
  difference: number[];
  equivalence: number[];
}

/**
 * lookLevels is what an adaptive run tests each look at: exact
 * group-sequential levels (Pocock-type spending) for both kinds of decision,
 * each spending the same overall alpha.
 */
export function lookLevels(alpha: number, looks: readonly number[]): LookLevels {
  return { difference: groupSequentialLevels({ alpha, looks }), equivalence: groupSequentialLevels({ alpha, looks, sides: 1 }) };
}
