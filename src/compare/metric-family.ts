import type { MetricFamily } from '../model/comparison.ts';
import { normalizeTimeUnit } from '../model/units.ts';
import { isWorkMetric } from '../model/work-metrics.ts';

/**
 * PRIMARY_METRICS are the metric names that are a benchmark's main
 * measurement, most preferred first: Google Benchmark's `real_time` (its
 * `cpu_time` is the same measurement seen from the CPU's side), the `time`
 * every other reader reports, and a JMH throughput score.
 */
export const PRIMARY_METRICS: readonly string[] = ['real_time', 'time', 'throughput'];

/**
 * CPU_TIME_QUIETER: Google Benchmark's `cpu_time` becomes the primary metric
 * instead of `real_time` when its per-round noise is below this share of
 * real_time's. On a shared machine real_time counts the time a benchmark
 * waited for a CPU: on this project's 2-core VM at load 13, the demo
 * suite's real_time had a robust CV of 30-50% and its cpu_time 0.4-2.7%
 * (bench/results/round-design-*.txt). The noise is each side's own spread,
 * never the difference between the sides, so the choice cannot favour a
 * verdict; the factor 2 keeps it from flipping on a quiet machine, where
 * the two agree and real_time stays primary.
 */
export const CPU_TIME_QUIETER = 0.5;

/**
 * primaryMetrics picks each benchmark's primary metric: the first of
 * {@link PRIMARY_METRICS} it has (with `cpu_time` standing in for
 * `real_time` when `noise` says it is much quieter, see
 * {@link CPU_TIME_QUIETER}), else its first metric in a time unit, else its
 * first metric. Every other metric of the benchmark is secondary: the
 * duplicate time, user counters, a throughput derived from the time, B/op.
 * `noise` returns a metric's per-round noise (compare/power.ts noiseSigma),
 * undefined when unknown. Returns benchmark -> primary metric name.
 */
export function primaryMetrics<M extends { benchmark: string; metric: string; unit: string }>(measurements: Iterable<M>, noise: (m: M) => number | undefined = () => undefined): Map<string, string> {
  const seen = new Map<string, M[]>();
  for (const m of measurements) {
    const list = seen.get(m.benchmark) ?? [];
    if (list.length === 0) seen.set(m.benchmark, list);
    if (!list.some((x) => x.metric === m.metric)) list.push(m);
  }
  const primary = new Map<string, string>();
  for (const [benchmark, list] of seen) {
    const byName = PRIMARY_METRICS.find((name) => list.some((x) => x.metric === name));
    const timed = list.find((x) => normalizeTimeUnit(x.unit.split('/')[0]) !== undefined);
    let choice = byName ?? timed?.metric ?? list[0].metric;
    const real = list.find((x) => x.metric === 'real_time');
    const cpu = list.find((x) => x.metric === 'cpu_time');
    if (choice === 'real_time' && real && cpu) {
      const [r, c] = [noise(real), noise(cpu)];
      if (r !== undefined && c !== undefined && c < CPU_TIME_QUIETER * r) choice = 'cpu_time';
    }
    primary.set(benchmark, choice);
  }
  return primary;
}

/**
 * familyOf says which family one benchmark x metric belongs to, given
 * {@link primaryMetrics}: counted work (model/work-metrics.ts) its own,
 * `work`, that no FDR control runs over; else the FDR family.
 */
export function familyOf(primary: ReadonlyMap<string, string>, benchmark: string, metric: string): MetricFamily {
  if (isWorkMetric(metric)) return 'work';
  return primary.get(benchmark) === metric ? 'primary' : 'secondary';
}
