/**
 * Work metrics count the work a benchmark did instead of timing it: each
 * benchmark runs under valgrind with an iteration schedule it cannot vary,
 * and benchbot records per iteration the instructions it executed
 * (callgrind's `Ir`, inclusive of the benchmark function) and an estimated
 * cycle count from valgrind's cache simulation. Counted work does not see
 * other processes, frequency changes or the timer, so a few repeats per side
 * decide where wall time needs dozens of rounds; what it cannot see (layout,
 * memory, frequency effects) is why wall time stays beside it.
 *
 * The names are the metric names stored, compared and shown. `perf stat`'s
 * whole-process counters (`--counters`) are stored under the pseudo-benchmark
 * `command`, never beside a benchmark's own work metrics, and count the
 * harness and the process start too; a run does not ask for both.
 */
export const INSTRUCTIONS_METRIC = 'instructions';

/**
 * ESTIMATED_CYCLES_METRIC is `L1 hits + 5 x LL hits + 35 x RAM accesses`
 * from callgrind's cache simulation, the weighting iai-callgrind and
 * CodSpeed document: an instruction count that also charges for misses.
 */
export const ESTIMATED_CYCLES_METRIC = 'estimated_cycles';

/** WORK_METRICS are the metrics counted under valgrind, instructions first. */
export const WORK_METRICS: readonly string[] = [INSTRUCTIONS_METRIC, ESTIMATED_CYCLES_METRIC];

/** WORK_UNIT is the unit of every work metric: a count per benchmark iteration. */
export const WORK_UNIT = 'count';

/** isWorkMetric says whether a metric name is one of {@link WORK_METRICS}. */
export function isWorkMetric(metric: string): boolean {
  return WORK_METRICS.includes(metric);
}
