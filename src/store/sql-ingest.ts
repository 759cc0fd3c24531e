/**
 * sql-ingest: the write path shared by both adapters. A run is validated,
 * summarized and packed before its transaction (prepare), then written with
 * its fingerprint, series and measurements (ingester).
 */
import { machineKey } from '../model/fingerprint.ts';
import { medianSorted, sortedCopy } from '../stats/order-statistics.ts';
import { quantileCi } from '../stats/quantile-ci.ts';
import { packMany } from './packed-values.ts';
import { canonicalJson, fingerprintContentKey, runKey } from './run-key.ts';
import type { SqlAccess, SqlConn } from './sql-conn.ts';
import { StoreError, type IngestResult, type IngestRun } from './store.ts';
import { validateRun } from './validate-run.ts';

/**
 * PACK_LIMIT is the most samples a measurement keeps packed in
 * `measurements.vals`; bigger ones (a 2 M-sample capture) go to the
 * `samples` table in batches, with progress reported as they are written.
 */
export const PACK_LIMIT = 4096;

/** MeasurementRow is one measurement as ingest writes it. */
export interface MeasurementRow {
  ordinal: number;
  benchmark: string;
  metric: string;
  unit: string;
  better: string;
  n: number;
  median: number | null;
  lo: number | null;
  hi: number | null;
  seriesId: number;
  vals: Uint8Array | null;
}

/** CI_RANKS caches, per sample count, the 1-based order statistics that bound the median's 95% CI. */
const CI_RANKS = new Map<number, [number, number]>();

/** SMALL_SORT is the most samples summarize sorts by insertion into a reused buffer (a typed-array sort per measurement was a tenth of a big import). */
const SMALL_SORT = 64;
const scratch = new Float64Array(SMALL_SORT);

/** summarize is what ingest precomputes of a measurement: its median and the median's 95% order-statistic CI (stats/quantile-ci.ts), from one sort. */
function summarize(values: readonly number[]): { median: number | null; lo: number | null; hi: number | null } {
  if (values.length === 0) return { median: null, lo: null, hi: null };
  const sorted = values.length <= SMALL_SORT ? insertionSorted(values) : sortedCopy(values);
  let ranks = CI_RANKS.get(sorted.length);
  if (!ranks) {
    const ci = quantileCi(Array.from(sorted, (_, i) => i)) as NonNullable<ReturnType<typeof quantileCi>>;
    CI_RANKS.set(sorted.length, (ranks = [ci.lowerRank, ci.upperRank]));
  }
  return { median: medianSorted(sorted), lo: sorted[ranks[0] - 1], hi: sorted[ranks[1] - 1] };
}

/** insertionSorted sorts a few values into `scratch` in the order of a Float64Array sort (-0 before 0); the view is valid until the next call. */
function insertionSorted(values: readonly number[]): Float64Array {
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    let j = i - 1;
    while (j >= 0 && (scratch[j] > v || (scratch[j] === 0 && v === 0 && Object.is(v, -0) && !Object.is(scratch[j], -0)))) {
      scratch[j + 1] = scratch[j];
      j--;
    }
    scratch[j + 1] = v;
  }
  return scratch.subarray(0, n);
}

/**
 * measurementRows is what ingest writes of a run's measurements, computed
 * before its transaction needs them (while the database writes the run
 * before): summaries, and the samples packed into one buffer for the whole
 * run, each row's `vals` a view of it. `seriesId` is filled in by ingest.
 */
function measurementRows(run: IngestRun): MeasurementRow[] {
  const packed = packMany(run.measurements.map((m) => (m.values.length <= PACK_LIMIT ? m.values : null)));
  return run.measurements.map((m, i) => ({
    ordinal: i, benchmark: m.benchmark, metric: m.metric, unit: m.unit, better: m.better, n: m.values.length,
    ...summarize(m.values), seriesId: 0, vals: packed[i],
  }));
}

/** IngestCache keeps series ids known within one write transaction (rolled back with it). */
type IngestCache = Map<string, Map<string, number>>;

/** PreparedRun is a validated run with its keys, sample count and measurement rows, computed before the transaction needs them. */
interface PreparedRun {
  run: IngestRun;
  key: string;
  fpKey: string;
  machineKey: string;
  fpBody: string;
  samples: number;
  rows: MeasurementRow[];
  encoded: unknown;
}

export async function ingestRuns(db: SqlAccess, runs: readonly IngestRun[]): Promise<IngestResult> {
  const prepared = runs.map((r, i) => prepare(db, r, runs.length > 1 ? i : undefined));
  const total = prepared.reduce((sum, p) => sum + p.samples, 0);
  let rows = 0;
  const result = await db.write(async (c) => {
    const ingest = ingester(db, c, total);
    for (const p of prepared) await ingest(p);
    rows = ingest.rows();
    return ingest.result;
  });
  await db.afterIngest(rows);
  return result;
}

/** prepare validates a run and computes all of its writes that need no database (in a stream, while the run before is written). */
function prepare(db: SqlAccess, value: IngestRun, index: number | undefined): PreparedRun {
  const run = validateRun(value, (path, message) => {
    throw new StoreError(`invalid run${index !== undefined ? ` #${index + 1}` : ''}: ${path}: ${message}`);
  });
  const rows = measurementRows(run);
  return {
    run, key: runKey(run), fpKey: fingerprintContentKey(run.fingerprint), machineKey: machineKey(run.fingerprint), fpBody: canonicalJson(run.fingerprint),
    samples: run.measurements.reduce((sum, m) => sum + m.values.length, 0), rows, encoded: db.encodeMeasurements(rows, Date.parse(run.time)),
  };
}

export async function ingestStream(db: SqlAccess, runs: AsyncIterable<IngestRun> | Iterable<IngestRun>): Promise<IngestResult> {
  // The source's own error (a FormatError naming a line) is what the caller must see, not the adapter's wrapping of it.
  let sourceError: { error: unknown } | undefined;
  const source = (Symbol.asyncIterator in runs ? runs[Symbol.asyncIterator]() : runs[Symbol.iterator]()) as AsyncIterator<IngestRun> | Iterator<IngestRun>;
  const next = async (): Promise<IteratorResult<IngestRun>> => {
    try {
      return await source.next();
    } catch (error) {
      sourceError = { error };
      throw error;
    }
  };
  let rows = 0;
  let result: IngestResult;
  try {
    result = await db.write(async (c) => {
      const ingest = ingester(db, c, 0);
      // One run read ahead: parsing and checking the next run overlaps the database writing this one (PostgreSQL works in another process).
      let i = 0;
      const ahead = () => next().then((item) => (item.done ? undefined : prepare(db, item.value, i++)));
      for (let run = await ahead(); run !== undefined; ) {
        const following = ahead();
        following.catch(() => undefined);
        await ingest(run);
        run = await following;
      }
      rows = ingest.rows();
      return ingest.result;
    });
  } catch (error) {
    throw sourceError ? sourceError.error : error;
  }
  await db.afterIngest(rows);
  return result;
}

/** ingester writes prepared runs inside one transaction, counting what was new and reporting samples written. */
function ingester(db: SqlAccess, c: SqlConn, total: number): ((p: PreparedRun) => Promise<void>) & { result: IngestResult; rows: () => number } {
  const result: IngestResult = { ids: [], created: 0 };
  const cache: IngestCache = new Map();
  let written = 0;
  let measurementRows = 0;
  const ingest = async ({ run, key, fpKey, machineKey, fpBody, samples, rows, encoded }: PreparedRun): Promise<void> => {
    result.ids.push(key);
    await c.run('INSERT INTO fingerprints (key, machine_key, body) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', [fpKey, machineKey, fpBody]);
    const [fp] = await c.all('SELECT id FROM fingerprints WHERE key = ?', [fpKey]);
    const timeMs = Date.parse(run.time);
    const inserted = await c.all(
      `INSERT INTO runs (key, repo, branch, sha, ref, role, time, time_ms, harness, fingerprint_id, warnings, hints)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id`,
      [key, run.repo ?? null, run.branch ?? null, run.sha, run.ref ?? null, run.role, run.time, timeMs, run.harness, Number(fp.id), JSON.stringify(run.warnings), JSON.stringify(run.hints)],
    );
    // Already stored: a retry or a re-import changes nothing.
    if (inserted.length === 0) return;
    result.created++;
    const runId = Number(inserted[0].id);
    const seriesIds = await seriesIdsFor(c, cache, run, machineKey);
    rows.forEach((r, i) => (r.seriesId = seriesIds[i]));
    const big = rows.flatMap((r, i) => (r.vals === null ? [i] : []));
    const ids = (await db.insertMeasurements(c, runId, timeMs, rows, encoded, big.length > 0)) ?? [];
    measurementRows += rows.length;
    const packed = samples - big.reduce((sum, i) => sum + rows[i].n, 0);
    if (packed > 0) {
      written += packed;
      db.onSamples?.(written, Math.max(total, written));
    }
    if (big.length > 0) {
      const before = written;
      await db.insertSamples(c, big.map((i) => ids[i]), big.map((i) => run.measurements[i]), (n) => {
        written = before + n;
        db.onSamples?.(written, Math.max(total, written));
      });
    }
  };
  return Object.assign(ingest, { result, rows: () => measurementRows });
}

/** seriesIdsFor returns the series id of each measurement of a run, creating the series it is the first of. */
async function seriesIdsFor(c: SqlConn, cache: IngestCache, run: IngestRun, machineKey: string): Promise<number[]> {
  const repo = run.repo ?? '';
  const branch = run.branch ?? '';
  const group = `${repo}\u0000${branch}\u0000${run.role}\u0000${machineKey}`;
  let known = cache.get(group);
  if (!known) {
    known = new Map();
    const rows = await c.all('SELECT id, benchmark, metric FROM series WHERE repo = ? AND branch = ? AND role = ? AND machine_key = ?', [repo, branch, run.role, machineKey]);
    for (const r of rows) known.set(`${r.benchmark}\u0000${r.metric}`, Number(r.id));
    cache.set(group, known);
  }
  const ids: number[] = [];
  for (const m of run.measurements) {
    const k = `${m.benchmark}\u0000${m.metric}`;
    let id = known.get(k);
    if (id === undefined) {
      // ON CONFLICT: a concurrent writer may have named the series first; then read its id.
      const [row] = await c.all('INSERT INTO series (repo, branch, role, machine_key, benchmark, metric) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id', [repo, branch, run.role, machineKey, m.benchmark, m.metric]);
      id = Number((row ?? (await c.all('SELECT id FROM series WHERE repo = ? AND branch = ? AND role = ? AND machine_key = ? AND benchmark = ? AND metric = ?', [repo, branch, run.role, machineKey, m.benchmark, m.metric]))[0]).id);
      known.set(k, id);
    }
    ids.push(id);
  }
  return ids;
}
