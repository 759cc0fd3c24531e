/**
 * Fingerprint says what machine and environment produced a run. Every field
 * is optional because not every machine exposes it (containers hide the
 * governor, devices hide most of /sys). Two runs whose fingerprints differ in
 * a field that matters are never compared silently.
 */
export interface Fingerprint {
  cpuModel?: string;
  cores?: number;
  /** cpufreq scaling governor, e.g. `performance` or `powersave`. */
  governor?: string;
  /** true when turbo / boost is enabled. */
  turbo?: boolean;
  /** true when simultaneous multithreading is on. */
  smt?: boolean;
  isolatedCpus?: string;
  kernel?: string;
  memoryBytes?: number;
  loadAverage?: number;
  /** `container`, `vm` or `bare-metal` when it can be told. */
  virtualization?: string;
  runnerLabels?: string[];
  toolVersions?: Record<string, string>;
  hostName?: string;
  /** Build type the harness reported, e.g. Google Benchmark's `library_build_type`. */
  buildType?: string;
}
