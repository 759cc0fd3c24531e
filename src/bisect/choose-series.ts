/**
 * choose-series: which benchmark x metric a bisection follows, decided from
 * the good and bad ends' measurements alone. Pure: the bisect jobs
 * (src/jobs/bisect-session.ts, src/jobs/bisect-oracle.ts) measure the ends
 * and call this; the state machine (create-bisect.ts) then follows only the
 * chosen series' values.
 */

import type { Direction, Measurement } from '../model/measurement.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { ratioWithCi } from '../stats/hodges-lehmann.ts';
import { countedChange } from '../compare/work-verdict.ts';

/** SeriesChoice names the benchmark x metric a bisection follows. */
export interface SeriesChoice {
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
}

/**
 * SeriesFilter narrows the choice: `benchmarks` (empty: any), `metric`
 * (undefined: any), and `threshold`, the smallest change that matters as a
 * fraction (0.02 is 2%). `counted`: the bisection can count work, so work
 * metrics may be followed (default false: a bisection that measures wall
 * time could not measure them at its probes).
 */
export interface SeriesFilter {
  benchmarks: readonly string[];
  metric?: string;
  threshold: number;
  counted?: boolean;
}

/** valuesOf returns one benchmark x metric's values from pooled measurements, or undefined. */
export function valuesOf(measurements: readonly Measurement[], choice: Pick<SeriesChoice, 'benchmark' | 'metric'>): number[] | undefined {
  return measurements.find((m) => m.benchmark === choice.benchmark && m.metric === choice.metric)?.values;
}

/**
 * chooseSeries picks what to bisect among the benchmark x metrics both ends
 * have (restricted to `benchmarks` and `metric` when given): counted work
 * (instructions, estimated cycles) that worsened beyond the threshold with
 * repeats that agree (workEndsDiffer) first, because one repeat per probe
 * decides it on any machine; else the series whose good-to-bad change is
 * significant and largest in the worse direction; when none is, the
 * largest change of any kind (the bisection will then report it as not
 * reproducible, with its numbers). Wall time regressed while the counts
 * did not move (a layout, memory or frequency effect) is followed on wall
 * time. Null when the ends share nothing with at least two values on each
 * side (one for counted work).
 */
export function chooseSeries(good: readonly Measurement[], bad: readonly Measurement[], filter: SeriesFilter): SeriesChoice | null {
  let best: { choice: SeriesChoice; score: number } | null = null;
  for (const g of good) {
    if (filter.benchmarks.length > 0 && !filter.benchmarks.includes(g.benchmark)) continue;
    if (filter.metric !== undefined && g.metric !== filter.metric) continue;
    const work = isWorkMetric(g.metric);
    if (work && filter.counted !== true) continue;
    const b = valuesOf(bad, g);
    if (!b || b.length < (work ? 1 : 2) || g.values.length < (work ? 1 : 2)) continue;
    const sign = g.better === 'lower' ? 1 : -1;
    let score: number;
    if (work) {
      const e = workEndsDiffer(g.values, b, filter.threshold);
      const shift = e.change === null ? 0 : Math.log(e.change.ratio) * sign;
      score = (e.differs && shift > 0 ? 2000 : 0) + Math.abs(shift);
    } else {
      const r = ratioWithCi(g.values, b);
      const shift = r === null ? 0 : Math.log(r.ratio) * sign;
      // Significant worsening beyond the threshold ranks above any change that is not.
      const worse = r !== null && r.excludesOne && shift >= Math.log1p(filter.threshold);
      score = (worse ? 1000 : 0) + Math.abs(shift);
    }
    if (best === null || score > best.score) best = { choice: { benchmark: g.benchmark, metric: g.metric, unit: g.unit, better: g.better }, score };
  }
  return best?.choice ?? null;
}

/**
 * EndsDiffer is the good-to-bad change of one series: `ratio` bad/good with
 * its CI (`lower`, `upper`), null without two comparable values on each
 * side, and `differs`, true when the CI excludes 1 and the change is at
 * least the threshold in either direction.
 */
export interface EndsDiffer {
  change: { ratio: number; lower: number; upper: number } | null;
  differs: boolean;
}

/**
 * endsDiffer says whether good and bad differ in one series: the
 * Hodges-Lehmann ratio's 95% CI excludes 1 and the change reaches the
 * threshold either way. The bisect oracle asks this of its references
 * before it classifies anything: no difference, nothing to bisect.
 */
export function endsDiffer(good: readonly number[], bad: readonly number[], threshold: number, metric?: string): EndsDiffer {
  if (metric !== undefined && isWorkMetric(metric)) return workEndsDiffer(good, bad, threshold);
  const r = ratioWithCi(good, bad);
  if (r === null) return { change: null, differs: false };
  return { change: { ratio: r.ratio, lower: r.lower, upper: r.upper }, differs: r.excludesOne && Math.abs(Math.log(r.ratio)) >= Math.log1p(threshold) };
}

/**
 * workEndsDiffer is endsDiffer for counted work, by the PR check's rule for
 * it (compare/work-verdict.ts judgeWork): the ratio of medians bad / good,
 * differing when it is beyond the threshold and the repeats agree (each
 * side's spread at most a quarter of the change with 3 repeats, or 2 equal
 * ones; one count a side decides nothing). `lower`..`upper` is the range of
 * bad/good over every pair of repeats.
 */
export function workEndsDiffer(good: readonly number[], bad: readonly number[], threshold: number): EndsDiffer {
  const c = countedChange(good, bad, threshold);
  if (c === null) return { change: null, differs: false };
  return { change: { ratio: c.ratio, lower: c.range[0], upper: c.range[1] }, differs: c.moved };
}
