import type { Direction } from './measurement.ts';

/**
 * Verdict for one measurement. `regressed` and `improved` need a significant
 * change beyond the threshold; `unchanged` needs the ratio's CI inside the
 * threshold band; anything else is `inconclusive`. `new` and `removed` mark a
 * benchmark present on one side only, `error` one that failed on a side.
 */
export type Verdict = 'regressed' | 'improved' | 'unchanged' | 'inconclusive' | 'new' | 'removed' | 'error';

/** SideSummary is one side of a comparison: sample size, median and its CI. */
export interface SideSummary {
  n: number;
  median: number;
  ci: [number, number];
}

/**
 * Comparison pairs base and head for one benchmark x metric. `ratio` is
 * head/base in the metric's own unit (so for a `higher` metric a ratio above 1
 * is good), with the Hodges-Lehmann CI; `p` is the two-sided Mann-Whitney
 * p-value and `q` the Benjamini-Hochberg q-value across the whole suite.
 */
export interface Comparison {
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  base: SideSummary | null;
  head: SideSummary | null;
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  q: number | null;
  verdict: Verdict;
  warnings: string[];
}
