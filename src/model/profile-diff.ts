/**
 * A differential profile says where a benchmark's change lives: the same
 * benchmark profiled at base and at head (callgrind, with a fixed iteration
 * schedule, so both profiles are exact counts), and the functions whose cost
 * changed most, each with its share of the benchmark's whole change.
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
}

/** ProfileDiff is the differential profile of one benchmark, base against head. */
export interface ProfileDiff {
  benchmark: string;
  /** tool is the profiler that counted: callgrind (deterministic). */
  tool: 'callgrind';
  /** event is the cost counted, as the profiler names it (`Ir`: instructions executed). */
  event: string;
  base: ProfileSide;
  head: ProfileSide;
  /** change is head.total - base.total, per iteration. */
  change: number;
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

/** ProfileSource is the two callgrind files a differential profile was made from, and the iterations each covers. */
export interface ProfileSource {
  benchmark: string;
  base: { file: string; iterations: number };
  head: { file: string; iterations: number };
}
