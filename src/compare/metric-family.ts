import type { MetricFamily } from '../model/comparison.ts';
import { normalizeTimeUnit } from '../formats/units.ts';

/**
 * PRIMARY_METRICS are the metric names that are a benchmark's main
 * measurement, most preferred first: Google Benchmark's `real_time` (its
 * `cpu_time` is the same measurement seen from the CPU's side), the `time`
 * every other reader reports, and a JMH throughput score.
 */
export const PRIMARY_METRICS: readonly string[] = ['real_time', 'time', 'throughput'];

/**
 * primaryMetrics picks each benchmark's primary metric: the first of
 * {@link PRIMARY_METRICS} it has, else its first metric in a time unit, else
 * its first metric. Every other metric of the benchmark is secondary: a
 * duplicate `cpu_time`, user counters, a throughput derived from the time,
 * B/op. Returns benchmark -> primary metric name.
 */
export function primaryMetrics(measurements: Iterable<{ benchmark: string; metric: string; unit: string }>): Map<string, string> {
  const seen = new Map<string, { metric: string; unit: string }[]>();
  for (const m of measurements) {
    const list = seen.get(m.benchmark) ?? [];
    if (list.length === 0) seen.set(m.benchmark, list);
    if (!list.some((x) => x.metric === m.metric)) list.push({ metric: m.metric, unit: m.unit });
  }
  const primary = new Map<string, string>();
  for (const [benchmark, list] of seen) {
    const byName = PRIMARY_METRICS.find((name) => list.some((x) => x.metric === name));
    const timed = list.find((x) => normalizeTimeUnit(x.unit.split('/')[0]) !== undefined);
    primary.set(benchmark, byName ?? timed?.metric ?? list[0].metric);
  }
  return primary;
}

/** familyOf says which FDR family one benchmark x metric belongs to, given {@link primaryMetrics}. */
export function familyOf(primary: ReadonlyMap<string, string>, benchmark: string, metric: string): MetricFamily {
  return primary.get(benchmark) === metric ? 'primary' : 'secondary';
}
