import { createHash } from 'node:crypto';
import { machineKey, type Fingerprint } from '../model/fingerprint.ts';
import type { Measurement } from '../model/measurement.ts';
import type { Store } from './store.ts';

/**
 * noise-memory: what each runner has learned about each benchmark's noise,
 * kept in the store's `state` table (one JSON entry per machine key and
 * repository, written by compare-and-set so two jobs never lose each
 * other's update). The machine key is the store's
 * (model/fingerprint.ts machineKey): the same machine and setup, whatever its load or tool
 * versions that day.
 *
 * A record holds `sigma`, the per-round noise of a benchmark x metric on
 * log values as compare/power.ts defines it, and `rounds`, how many rounds
 * of evidence it rests on. Evidence comes from every `benchbot run` (each
 * side's rounds on their own: their spread is noise whatever the change
 * between the sides) and from `benchbot calibrate` (A/A blocks of one
 * commit, which the nightly can run). New evidence is averaged in by
 * variance, weighted by rounds, and the total weight is capped at
 * MEMORY_ROUNDS so that the memory follows a machine whose noise changed.
 */

/** MEMORY_ROUNDS caps the evidence a record keeps, in rounds: about the last 5 runs of 40 rounds per side. */
export const MEMORY_ROUNDS = 400;

/** NoiseRecord is one benchmark x metric's noise on one machine. `updated` is an ISO time. */
export interface NoiseRecord {
  sigma: number;
  rounds: number;
  updated: string;
}

/** NoiseObservation is one new piece of evidence: a side's rounds of one benchmark x metric and their sigma. */
export interface NoiseObservation {
  benchmark: string;
  metric: string;
  sigma: number;
  rounds: number;
}

/** noiseKey is the record key of a benchmark x metric. */
export const noiseKey = (benchmark: string, metric: string): string => `${benchmark}\u0000${metric}`;

/** mergeNoise folds one observation into a record (pure). */
export function mergeNoise(old: NoiseRecord | undefined, observation: NoiseObservation, now: string, cap = MEMORY_ROUNDS): NoiseRecord {
  const fresh = Math.max(1, observation.rounds);
  if (old === undefined) return { sigma: observation.sigma, rounds: Math.min(fresh, cap), updated: now };
  const kept = Math.max(0, Math.min(old.rounds, cap - fresh));
  const variance = (kept * old.sigma ** 2 + fresh * observation.sigma ** 2) / (kept + fresh);
  return { sigma: Math.sqrt(variance), rounds: Math.min(cap, kept + fresh), updated: now };
}

/** memoryStateKey is the state-table key of one machine's memory for one repository. */
export function memoryStateKey(fingerprint: Fingerprint, repo: string | undefined): string {
  const repoHash = createHash('sha256').update(repo ?? '').digest('hex').slice(0, 16);
  return `noise-memory:${machineKey(fingerprint)}:${repoHash}`;
}

/** loadNoiseMemory reads a machine's memory for a repository (empty when it has none). */
export async function loadNoiseMemory(store: Store, fingerprint: Fingerprint, repo: string | undefined): Promise<Map<string, NoiseRecord>> {
  const entry = await store.getState(memoryStateKey(fingerprint, repo));
  return new Map(Object.entries(recordsOf(entry?.value)));
}

/**
 * learnNoise folds observations into a machine's memory and writes it back
 * by compare-and-set, retrying when another job wrote in between.
 */
export async function learnNoise(store: Store, fingerprint: Fingerprint, repo: string | undefined, observations: readonly NoiseObservation[], now: string): Promise<Map<string, NoiseRecord>> {
  const key = memoryStateKey(fingerprint, repo);
  for (let attempt = 0; attempt < 10; attempt++) {
    const entry = await store.getState(key);
    const records = recordsOf(entry?.value);
    for (const o of observations) {
      if (!(o.sigma >= 0 && Number.isFinite(o.sigma))) continue;
      const k = noiseKey(o.benchmark, o.metric);
      records[k] = mergeNoise(records[k], o, now);
    }
    const written = await store.compareAndSetState(key, entry?.version ?? null, { version: 1, records });
    if (written !== null) return new Map(Object.entries(records));
  }
  throw new Error(`noise memory ${key}: another writer kept changing it; try again`);
}

function recordsOf(value: unknown): Record<string, NoiseRecord> {
  const records: Record<string, NoiseRecord> = {};
  if (value === null || typeof value !== 'object') return records;
  const raw = (value as { records?: unknown }).records;
  if (raw === null || typeof raw !== 'object') return records;
  for (const [k, r] of Object.entries(raw as Record<string, unknown>)) {
    const rec = r as Partial<NoiseRecord>;
    if (typeof rec?.sigma === 'number' && Number.isFinite(rec.sigma) && rec.sigma >= 0 && typeof rec.rounds === 'number' && rec.rounds > 0) {
      records[k] = { sigma: rec.sigma, rounds: rec.rounds, updated: typeof rec.updated === 'string' ? rec.updated : '' };
    }
  }
  return records;
}

/**
 * storedRounds returns the stored rounds of one commit measured on this
 * machine (any role: an earlier PR's base, a nightly, a head that became
 * main), oldest first, one measurement per stored run and benchmark x
 * metric. The runner asks before it stores the run it is making.
 */
export async function storedRounds(store: Store, fingerprint: Fingerprint, repo: string | undefined, sha: string): Promise<Measurement[]> {
  const rows = await store.samplesFor({ repo, sha, machineKey: machineKey(fingerprint) });
  return rows.map(({ benchmark, metric, unit, better, values }) => ({ benchmark, metric, unit, better, values }));
}
