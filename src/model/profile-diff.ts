/**
 * A differential profile says where a benchmark's change lives: the same
 * benchmark profiled at base and at head (callgrind, with a fixed iteration
 * schedule, so both profiles are exact counts; or `perf record`, whose
 * profiles are samples and carry a sampling error), and the functions whose
 * cost changed most, each with its share of the benchmark's whole change.
 *
 * Costs are per benchmark iteration (a side's count divided by the
 * iterations it ran), so two sides that ran different schedules still
 * compare. Two kinds of cost per function, as every profiler shows them:
 * `self` counts the instructions executed in the function's own code,
 * `inclusive` also those of everything it called (recursion counted once).
 * The self ranking answers "which code does more work"; the inclusive one
 * shows the call path down to it.
 */

/** ProfileSide is one side of a differential profile: what ran and its whole cost per iteration. */
export interface ProfileSide {
  /** sha is the commit profiled, when known. */
  sha?: string;
  /** iterations is how many benchmark iterations the profile covers; every cost is divided by it. */
  iterations: number;
  /** total is the benchmark's whole cost per iteration (the profile's `totals:` / `summary:` divided by iterations). */
  total: number;
  /** samples is how many perf samples the side's profile holds (sampled profiles only). */
  samples?: number;
  /** unnamed is how many of those perf could not name (`[unknown]`: a JIT without a perf map, a stripped binary). */
  unnamed?: number;
}

/**
 * FunctionChange is one function's cost at base and head, per iteration.
 * `share` is `change` over the benchmark's whole change (head.total -
 * base.total), null when that is zero; shares of the self ranking add up
 * to 1 over all functions, those of the inclusive ranking do not (a caller
 * and its callee both hold the callee's change).
 */
export interface FunctionChange {
  /** name is the function as the profiler names it (demangled C++ included): hostile text, shown only through the inert paths. */
  name: string;
  /** object is the file name (no directory) of the binary or library holding the function: hostile text too. */
  object: string;
  base: number;
  head: number;
  change: number;
  share: number | null;
  /**
   * error is the sampling standard error of `change` (sampled profiles
   * only): each side's sample count taken as a Poisson count, its variance
   * the count itself (a side with no sample counted as one).
   */
  error?: number;
  /** shareError is the standard error of `share` (delta method; null with share). */
  shareError?: number | null;
  /** noise is true when `change` is within 1.96 standard errors of zero: sampling alone could have made it. */
  noise?: boolean;
}

/** ProfileDiff is the differential profile of one benchmark, base against head. */
export interface ProfileDiff {
  benchmark: string;
  /** tool is the profiler: callgrind (deterministic counts) or perf (`perf record` samples). */
  tool: ProfileTool;
  /**
   * scope is `command` when the profile is of the whole bench command, not
   * of the benchmark alone (a harness that runs its benchmarks in one
   * process, which benchbot cannot narrow); absent: the benchmark.
   */
  scope?: 'command';
  /** event is the cost counted, as the profiler names it (`Ir`: instructions executed; perf's `cpu-clock`: nanoseconds of CPU time, `cycles`). */
  event: string;
  base: ProfileSide;
  head: ProfileSide;
  /** change is head.total - base.total, per iteration (0 for shares of a whole command: see `moved`). */
  change: number;
  /**
   * moved is set for a whole command's profile (scope `command`), whose
   * costs are shares of each side's samples (a time-budgeted harness takes
   * as long whatever changed): the share of the samples that moved between
   * functions; each function's `share` is its change over it.
   */
  moved?: number;
  /**
   * sampling is the sampling error of `change` (sampled profiles only) and
   * whether the whole change is within 1.96 of it: then no share means much.
   */
  sampling?: { error: number; noise: boolean };
  /** self lists the functions whose self cost changed most, largest absolute change first. */
  self: FunctionChange[];
  /**
   * inclusive lists the functions whose inclusive cost changed most, largest
   * absolute change first, but for the benchmark's frames (main, the harness
   * loop: functions whose inclusive cost is at least 99% of the whole
   * profile's on either side).
   */
  inclusive: FunctionChange[];
  /** omitted counts the functions with a changed cost that the two lists leave out (beyond their length). */
  omitted: { self: number; inclusive: number };
}

/** PROFILE_TOOLS are the profilers a differential profile can come from. */
export const PROFILE_TOOLS = ['callgrind', 'perf'] as const;
export type ProfileTool = (typeof PROFILE_TOOLS)[number];

/** ProfileSource is the two profiler files a differential profile was made from (callgrind's; perf script text when `tool` is perf), and the iterations each covers. */
export interface ProfileSource {
  benchmark: string;
  /** tool made the files; absent: callgrind. */
  tool?: ProfileTool;
  /** scope is `command` when the files profile the whole bench command (ProfileDiff.scope). */
  scope?: 'command';
  base: { file: string; iterations: number };
  head: { file: string; iterations: number };
}
