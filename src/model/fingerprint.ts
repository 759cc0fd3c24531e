import { createHash } from 'node:crypto';

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

/**
 * MACHINE_KEY_FIELDS are the fields two runs must share to be compared
 * fairly; they are the machine fields fingerprintDifferences (compare/hygiene.ts)
 * checks. Left out on purpose: the load average (it changes every minute and
 * has its own guard), tool versions (base and head of one PR always share
 * them, and a toolchain upgrade is a change history should show, not hide),
 * runner labels (scheduling names, not hardware) and the harness's build type.
 */
export const MACHINE_KEY_FIELDS = ['cpuModel', 'cores', 'governor', 'turbo', 'smt', 'isolatedCpus', 'kernel', 'memoryBytes', 'virtualization', 'hostName'] as const;

/** HOST_FIELDS identify the machine alone, whatever its setup; a change of any of them is another machine, another nightly series. */
export const HOST_FIELDS = ['cpuModel', 'cores', 'memoryBytes', 'virtualization', 'hostName'] as const;

/**
 * machineKey is the machine key of a fingerprint: the SHA-256 (64 hex
 * digits) of the MACHINE_KEY_FIELDS it has, in a fixed order. Equal keys
 * mean "same machine, same setup", whatever the load average or tool
 * versions. It is what the store keeps runs by (column `machine_key`).
 */
export function machineKey(fp: Fingerprint): string {
  return fieldsHash(fp, MACHINE_KEY_FIELDS);
}

/**
 * hostKey is the machine key of a nightly series: the short form
 * (shortMachineKey) of the SHA-256 of the HOST_FIELDS a fingerprint has, so
 * a kernel, governor or toolchain change on one machine stays in its series
 * and starts a segment there. It is the MACHINE part of series names.
 */
export function hostKey(fp: Fingerprint): string {
  return shortMachineKey(fieldsHash(fp, HOST_FIELDS));
}

/** shortMachineKey is a machine key's first 12 hex digits: how series names show a machine. */
export function shortMachineKey(key: string): string {
  return key.slice(0, 12);
}

function fieldsHash(fp: Fingerprint, fields: readonly (keyof Fingerprint)[]): string {
  const parts: [string, unknown][] = [];
  for (const field of fields) if (fp[field] !== undefined) parts.push([field, fp[field]]);
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
