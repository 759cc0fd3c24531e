import type { SeriesPoint, Store, WindowQuery } from './store.ts';

/**
 * recentPoints is `store.series` for the newest `nights` of each series
 * (fingerprints included, raw samples for the newest `valuesNights`, by
 * default all of them; older points have none): what the nightly scan needs,
 * read through the per-series index, so a year of a 10,000-series history
 * costs the scan its window, not the year. Points are oldest first within
 * each series; `since` is the oldest point's time (ISO), for reading the
 * A/B runs of the same nights, or undefined when there is none.
 */
export async function recentPoints(store: Store, query: Omit<WindowQuery, 'fingerprints'> & { nights: number }): Promise<{ points: SeriesPoint[]; since?: string }> {
  const points: SeriesPoint[] = [];
  let oldest = Infinity;
  for await (const batch of store.seriesWindows({ ...query, valuesNights: query.valuesNights ?? query.nights, fingerprints: true })) {
    for (const w of batch) {
      for (const p of w.window) points.push(p);
      if (w.window.length > 0) oldest = Math.min(oldest, Date.parse(w.window[0].time));
    }
  }
  return { points, ...(Number.isFinite(oldest) ? { since: new Date(oldest).toISOString() } : {}) };
}
