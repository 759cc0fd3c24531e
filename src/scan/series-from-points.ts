/**
 * series-from-points: groups the store's nightly SeriesPoints (store.series
 * with `values: true`, oldest first) into scan Series, one per benchmark x
 * metric x machine key on one branch. Points of different machine keys
 * never share a series: a new machine starts a new history.
 */

import type { SeriesPoint } from '../store/store.ts';
import type { Series } from './series.ts';

/**
 * seriesFromPoints groups points (oldest first) into series on `branch`; a
 * point without values uses its median as its one value. A series' harness
 * is its newest point's that has one.
 */
export function seriesFromPoints(points: readonly SeriesPoint[], branch: string): Series[] {
  const bySeries = new Map<string, Series & { nights: Series['nights'][number][] }>();
  for (const p of points) {
    const id = `${p.benchmark}\u0000${p.metric}\u0000${p.machineKey}`;
    let s = bySeries.get(id);
    if (!s) {
      s = { benchmark: p.benchmark, metric: p.metric, unit: p.unit, better: p.better, machineKey: p.machineKey, branch, nights: [] };
      bySeries.set(id, s);
    }
    const values = p.values ?? (p.median === null ? [] : [p.median]);
    s.nights.push({ sha: p.sha, time: p.time, values, ...(p.median === null ? {} : { median: p.median }) });
    // The newest night's harness: a suite that moved to another harness is judged as it is measured now.
    if (p.harness !== undefined) s.harness = p.harness;
  }
  return [...bySeries.values()];
}
