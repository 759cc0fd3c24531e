/**
 * Direction says which way is better for a metric: `lower` for times and
 * costs (ns/op, allocs/op, instructions), `higher` for rates (ops/s,
 * bytes_per_second). It is decided from metric and unit, never from the tool.
 */
export type Direction = 'lower' | 'higher';

/**
 * Measurement is one benchmark x one metric as a harness reported it.
 *
 * `benchmark` is the full name including parameters (`BM_Sort/1024`,
 * `BenchmarkParse-8`), `unit` is the harness's own unit (`ns`, `s`, `ops/s`,
 * `B/op`, or `count` for dimensionless counters), and `values` holds one
 * number per repetition, sample or round, in that unit and in the order the
 * harness produced them.
 */
export interface Measurement {
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  values: number[];
}

/**
 * ReadWarning is something a reader noticed that the user should see but that
 * does not invalidate the rest of the input: a benchmark that errored or was
 * skipped, a non-zero exit code, only summary statistics being available.
 * `benchmark` names the affected benchmark when there is one.
 */
export interface ReadWarning {
  message: string;
  benchmark?: string;
  /** `error` marks a benchmark whose results are missing because it failed. */
  kind?: 'error' | 'skipped' | 'summary-only' | 'exit-code' | 'note';
}

/**
 * FingerprintHints are facts about the machine that a harness printed itself
 * (Google Benchmark's `context`, Go's `goos`/`goarch`/`cpu` lines). They feed
 * the run's Fingerprint and the hygiene warnings (debug build, CPU scaling).
 */
export type FingerprintHints = Record<string, string | number | boolean>;
