import type { Fingerprint } from './fingerprint.ts';
import type { FingerprintHints, Measurement, ReadWarning } from './measurement.ts';

/** RunRole says why a run was made. */
export type RunRole = 'base' | 'head' | 'nightly' | 'bisect';

/**
 * Run is one execution of a suite at one commit on one machine. `time` is an
 * ISO 8601 timestamp supplied by the edge that made the run (the core has no
 * clock).
 */
export interface Run {
  sha: string;
  ref?: string;
  role: RunRole;
  fingerprint: Fingerprint;
  time: string;
  harness: string;
  measurements: Measurement[];
  warnings: ReadWarning[];
  hints: FingerprintHints;
}
