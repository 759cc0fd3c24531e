import { createHash } from 'node:crypto';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { IngestRun } from './store.ts';

/**
 * canonicalJson is JSON with object keys sorted at every level and undefined
 * members dropped, so equal content always hashes alike whatever the key
 * order it was built in.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** fingerprintContentKey is the SHA-256 (hex) of a fingerprint's canonical JSON: one stored row per distinct content. */
export function fingerprintContentKey(fingerprint: Fingerprint): string {
  return createHash('sha256').update(canonicalJson(fingerprint)).digest('hex');
}

/**
 * runKey is the id of a run: the caller's `key` when given, else the SHA-256
 * (hex) of the run's canonical JSON, which makes a retried ingest of the same
 * run a no-op.
 */
export function runKey(run: IngestRun): string {
  if (run.key !== undefined) return run.key;
  const hash = createHash('sha256');
  const { measurements, key: _key, ...rest } = run;
  hash.update(canonicalJson(rest));
  // Measurements hashed piecewise: one JSON string of millions of samples is needless memory.
  for (const m of measurements) {
    hash.update('\u0000');
    hash.update(canonicalJson({ ...m, values: undefined }));
    hash.update(Float64Array.from(m.values));
  }
  return hash.digest('hex');
}
