import type { Measurement } from '../model/measurement.ts';
import type { RunRole } from '../model/run.ts';
import { machineKey, type Fingerprint } from '../model/fingerprint.ts';
import { medianSorted, sortedCopy } from '../stats/order-statistics.ts';
import { quantileCi } from '../stats/quantile-ci.ts';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, type Dialect } from './migrations.ts';
import { canonicalJson, fingerprintContentKey, runKey } from './run-key.ts';
import {
  StoreError,
  type IngestResult,
  type IngestRun,
  type RunQuery,
  type RunSamples,
  type RunSummary,
  type SampleQuery,
  type SeriesPoint,
  type SeriesQuery,
  type SeriesWindow,
  type SeriesInfo,
  type SeriesListQuery,
  type WindowQuery,
  type HistoryQuery,
  type RunRef,
  type SeriesHistory,
  type StateEntry,
  type Store,
  type StoreCounts,
  type StoreOptions,
  type StoredRun,
} from './store.ts';
import { validateRun } from './validate-run.ts';
import { packMany, unpackValues } from './packed-values.ts';

/** SqlValue is what the adapters bind: both drivers take these as they are. */
export type SqlValue = string | number | null | Uint8Array;
export type Row = Record<string, unknown>;

/**
 * SqlConn is the little the shared queries need from a connection. SQL is
 * written with `?` placeholders; the PostgreSQL adapter numbers them.
 */
export interface SqlConn {
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
  exec(sql: string): Promise<void>;
}

/** DEFAULT_LIST_LIMIT is how many runs listRuns returns without a limit. */
export const DEFAULT_LIST_LIMIT = 100;

/**
 * PACK_LIMIT is the most samples a measurement keeps packed in
 * `measurements.vals`; bigger ones (a 2 M-sample capture) go to the
 * `samples` table in batches, with progress reported as they are written.
 */
export const PACK_LIMIT = 4096;

/** DEFAULT_WINDOW_BATCH is how many series seriesWindows reads per batch. */
export const DEFAULT_WINDOW_BATCH = 500;

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

/**
 * WindowRow is one point of a series window as the adapters read it, newest
 * first per series: [series_id, id, run_id, unit, better, n, median, vals]
 * (arrays: a row object per point cost more than the query).
 */
export type WindowRow = [seriesId: unknown, id: unknown, runId: unknown, unit: unknown, better: unknown, n: unknown, median: unknown, vals: unknown];

/** HistoryColumns is one series' nights as historyColumns reads them, oldest first: run ids, sample counts, medians, CI bounds (NaN for NULL). */
export interface HistoryColumns {
  run: Float64Array;
  n: Int32Array;
  median: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
}

/** historyFromRows puts one series' rows [run_id, n, median, lo, hi] in columns. */
export function historyFromRows(rows: readonly unknown[][]): HistoryColumns {
  const count = rows.length;
  const h: HistoryColumns = { run: new Float64Array(count), n: new Int32Array(count), median: new Float64Array(count), lo: new Float64Array(count), hi: new Float64Array(count) };
  for (let k = 0; k < count; k++) {
    const [run, n, med, lo, hi] = rows[k];
    h.run[k] = Number(run);
    h.n[k] = Number(n);
    h.median[k] = med === null ? NaN : Number(med);
    h.lo[k] = lo === null ? NaN : Number(lo);
    h.hi[k] = hi === null ? NaN : Number(hi);
  }
  return h;
}

/**
 * HISTORY_ORDER orders a series' nights in historyColumns: the order of the
 * covering index (series_id, time_ms, run_id, n, median, lo, hi), so the
 * read needs no sort and never touches the table (two measurements of one
 * series in one run, a duplicated name, keep no particular order).
 */
export const HISTORY_ORDER = 'ORDER BY time_ms, run_id';

/** windowValuesColumn is the select expression of a window's `vals`: the blob only for the newest `valuesLimit` points. */
export function windowValuesColumn(limit: number | null, valuesLimit: number): string {
  if (valuesLimit === 0) return 'NULL';
  if (valuesLimit === Infinity || (limit !== null && valuesLimit >= limit)) return 'm.vals';
  return `CASE WHEN row_number() OVER (ORDER BY m.time_ms DESC, m.id DESC) <= ${Math.floor(valuesLimit)} THEN m.vals END`;
}

/** RunInfo is what a window point needs of its run, read once per run. */
interface RunInfo {
  key: string;
  sha: string;
  role: RunRole;
  time: string;
  fingerprintId: number;
}

/** IngestCache keeps series ids known within one write transaction (rolled back with it). */
type IngestCache = Map<string, Map<string, number>>;

/**
 * SqlStore implements the Store port once over SqlConn; the adapters supply
 * connections, transactions, the migration lock and the bulk sample insert,
 * which is where the dialects really differ.
 */
export abstract class SqlStore implements Store {
  abstract readonly kind: 'sqlite' | 'postgres';
  abstract readonly location: string;
  protected abstract readonly dialect: Dialect;
  protected readonly onSamples: StoreOptions['onSamples'];

  constructor(options: StoreOptions) {
    this.onSamples = options.onSamples;
  }

  /** read runs fn on a connection outside any write transaction. */
  protected abstract read<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  /** write runs fn in one write transaction: committed when fn resolves, rolled back when it throws. */
  protected abstract write<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  /** writeLocked is write() holding the store-wide migration lock. */
  protected abstract writeLocked<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  /** insertSamples writes every value of the measurements (ids in the same order) as rows, calling progress per batch. */
  protected abstract insertSamples(c: SqlConn, ids: readonly number[], measurements: readonly Measurement[], progress: (written: number) => void): Promise<void>;
  /**
   * insertMeasurements writes one run's measurements and, when `wantIds`,
   * returns their ids in the order given. Without, an adapter may return
   * before the database has written them, as long as its transaction waits
   * for them (and fails with their error) before it commits. `encoded` is
   * what encodeMeasurements made of the rows.
   */
  protected abstract insertMeasurements(c: SqlConn, runId: number, timeMs: number, rows: readonly MeasurementRow[], encoded: unknown, wantIds: boolean): Promise<number[] | undefined>;
  /** encodeMeasurements prepares a run's rows (time `timeMs`) for insertMeasurements ahead of its transaction (all but run and series ids); nothing by default. */
  protected encodeMeasurements(_rows: readonly MeasurementRow[], _timeMs: number): unknown {
    return undefined;
  }
  /**
   * windowRows reads the newest `limit` points (null: all) of each series
   * at or after `sinceMs` (null: any time), grouped by series in the order
   * given, newest first; `vals` only for the newest `valuesLimit` of each
   * (Infinity: all), else null.
   */
  protected abstract windowRows(c: SqlConn, seriesIds: readonly number[], limit: number | null, valuesLimit: number, sinceMs?: number | null): Promise<WindowRow[]>;
  /** historyColumns reads each series' nights, oldest first (HISTORY_ORDER); series without any are missing from the map. */
  protected abstract historyColumns(c: SqlConn, seriesIds: readonly number[]): Promise<Map<number, HistoryColumns>>;
  /** readSamples returns the values of each measurement id, in index order (missing ids map to nothing). */
  protected abstract readSamples(c: SqlConn, ids: readonly number[]): Promise<Map<number, number[]>>;
  abstract close(): Promise<void>;

  async migrate(): Promise<number> {
    return this.writeLocked(async (c) => {
      // Only create it when missing: a role that may read and insert but not create tables (docs/security.md) must still open a migrated store.
      if (!(await this.hasMigrationsTable(c))) await this.applyDdl(c, SCHEMA_MIGRATIONS_DDL, 'create the schema_migrations table');
      const applied = new Set((await c.all('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
      const known = MIGRATIONS[MIGRATIONS.length - 1].version;
      const newest = Math.max(0, ...applied);
      if (newest > known) {
        throw new StoreError(`${this.location}: the store's schema is at version ${newest}, newer than this benchbot knows (${known}); upgrade benchbot`);
      }
      let count = 0;
      for (const m of MIGRATIONS) {
        if (applied.has(m.version)) continue;
        await this.applyDdl(c, m.sql[this.dialect], `apply schema migration ${m.version} (${m.name})`);
        await c.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [m.version, m.name, new Date().toISOString()]);
        count++;
      }
      return count;
    });
  }

  private async applyDdl(c: SqlConn, sql: string, what: string): Promise<void> {
    try {
      await c.exec(sql);
    } catch (error) {
      const e = error as { message?: string; code?: string };
      const denied = e.code === '42501' ? '; this role may not create tables (a role limited to reading and inserting, as docs/security.md recommends, must not): run one benchbot command with the owner role first to migrate, e.g. benchbot scan --store OWNER_URL' : '';
      throw new StoreError(`${this.location}: cannot ${what}: ${e.message ?? String(error)}${denied}`, { cause: error });
    }
  }

  private async hasMigrationsTable(c: SqlConn): Promise<boolean> {
    const rows = this.dialect === 'postgres'
      ? await c.all("SELECT 1 AS present WHERE to_regclass('schema_migrations') IS NOT NULL")
      : await c.all("SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'");
    return rows.length > 0;
  }

  async ingestRun(run: IngestRun): Promise<string> {
    return (await this.ingestRuns([run])).ids[0];
  }

  async ingestRuns(runs: readonly IngestRun[]): Promise<IngestResult> {
    const prepared = runs.map((r, i) => this.prepare(r, runs.length > 1 ? i : undefined));
    const total = prepared.reduce((sum, p) => sum + p.samples, 0);
    let rows = 0;
    const result = await this.write(async (c) => {
      const ingest = this.ingester(c, total);
      for (const p of prepared) await ingest(p);
      rows = ingest.rows();
      return ingest.result;
    });
    await this.afterIngest(rows);
    return result;
  }

  /** prepare validates a run and computes all of its writes that need no database (in a stream, while the run before is written). */
  private prepare(value: IngestRun, index: number | undefined): PreparedRun {
    const run = validateRun(value, (path, message) => {
      throw new StoreError(`invalid run${index !== undefined ? ` #${index + 1}` : ''}: ${path}: ${message}`);
    });
    const rows = measurementRows(run);
    return {
      run, key: runKey(run), fpKey: fingerprintContentKey(run.fingerprint), machineKey: machineKey(run.fingerprint), fpBody: canonicalJson(run.fingerprint),
      samples: run.measurements.reduce((sum, m) => sum + m.values.length, 0), rows, encoded: this.encodeMeasurements(rows, Date.parse(run.time)),
    };
  }

  /** afterIngest runs after an ingest committed `rows` new measurements; the PostgreSQL adapter tidies up after big ones. */
  protected async afterIngest(_rows: number): Promise<void> {}

  async ingestStream(runs: AsyncIterable<IngestRun> | Iterable<IngestRun>): Promise<IngestResult> {
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
      result = await this.write(async (c) => {
        const ingest = this.ingester(c, 0);
        // One run read ahead: parsing and checking the next run overlaps the database writing this one (PostgreSQL works in another process).
        let i = 0;
        const ahead = () => next().then((item) => (item.done ? undefined : this.prepare(item.value, i++)));
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
    await this.afterIngest(rows);
    return result;
  }

  /** ingester writes prepared runs inside one transaction, counting what was new and reporting samples written. */
  private ingester(c: SqlConn, total: number): ((p: PreparedRun) => Promise<void>) & { result: IngestResult; rows: () => number } {
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
      const seriesIds = await this.seriesIdsFor(c, cache, run, machineKey);
      rows.forEach((r, i) => (r.seriesId = seriesIds[i]));
      const big = rows.flatMap((r, i) => (r.vals === null ? [i] : []));
      const ids = (await this.insertMeasurements(c, runId, timeMs, rows, encoded, big.length > 0)) ?? [];
      measurementRows += rows.length;
      const packed = samples - big.reduce((sum, i) => sum + rows[i].n, 0);
      if (packed > 0) {
        written += packed;
        this.onSamples?.(written, Math.max(total, written));
      }
      if (big.length > 0) {
        const before = written;
        await this.insertSamples(c, big.map((i) => ids[i]), big.map((i) => run.measurements[i]), (n) => {
          written = before + n;
          this.onSamples?.(written, Math.max(total, written));
        });
      }
    };
    return Object.assign(ingest, { result, rows: () => measurementRows });
  }

  /** seriesIdsFor returns the series id of each measurement of a run, creating the series it is the first of. */
  private async seriesIdsFor(c: SqlConn, cache: IngestCache, run: IngestRun, machineKey: string): Promise<number[]> {
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

  async getRun(id: string): Promise<StoredRun | undefined> {
    return this.read(async (c) => {
      const [r] = await c.all(
        `SELECT r.id, r.key, r.repo, r.branch, r.sha, r.ref, r.role, r.time, r.harness, r.warnings, r.hints, f.machine_key, f.body AS fp_body
         FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id WHERE r.key = ?`,
        [id],
      );
      if (!r) return undefined;
      const rows = await c.all('SELECT id, benchmark, metric, unit, better, vals FROM measurements WHERE run_id = ? ORDER BY ordinal', [Number(r.id)]);
      const values = await this.valuesOf(c, rows);
      const run: StoredRun = {
        id: String(r.key),
        sha: String(r.sha),
        role: r.role as RunRole,
        fingerprint: JSON.parse(String(r.fp_body)),
        time: String(r.time),
        harness: String(r.harness),
        measurements: rows.map((m) => ({
          benchmark: String(m.benchmark),
          metric: String(m.metric),
          unit: String(m.unit),
          better: m.better === 'higher' ? 'higher' : 'lower',
          values: values.get(Number(m.id)) ?? [],
        })),
        warnings: JSON.parse(String(r.warnings)),
        hints: JSON.parse(String(r.hints)),
        machineKey: String(r.machine_key),
      };
      if (r.ref !== null) run.ref = String(r.ref);
      if (r.repo !== null) run.repo = String(r.repo);
      if (r.branch !== null) run.branch = String(r.branch);
      return run;
    });
  }

  async listRuns(query: RunQuery = {}): Promise<RunSummary[]> {
    const limit = query.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isInteger(limit) || limit < 1) throw new StoreError(`listRuns: limit must be a positive integer, got ${limit}`);
    const where = new Where();
    where.eq('r.repo', query.repo).eq('r.branch', query.branch).eq('r.role', query.role).eq('r.sha', query.sha);
    if (query.before !== undefined) {
      const ms = Date.parse(query.before);
      if (!Number.isFinite(ms)) throw new StoreError(`listRuns: before must be an ISO 8601 time, got ${JSON.stringify(query.before)}`);
      where.add('r.time_ms < ?', ms);
    }
    return this.read(async (c) => {
      const rows = await c.all(
        `SELECT r.key, r.repo, r.branch, r.sha, r.ref, r.role, r.time, r.harness, f.machine_key,
                (SELECT count(*) FROM measurements m WHERE m.run_id = r.id) AS n
         FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id ${where.sql()}
         ORDER BY r.time_ms DESC, r.id DESC LIMIT ?`,
        [...where.params, limit],
      );
      return rows.map((r) => {
        const s: RunSummary = {
          id: String(r.key),
          sha: String(r.sha),
          role: r.role as RunRole,
          time: String(r.time),
          harness: String(r.harness),
          machineKey: String(r.machine_key),
          measurements: Number(r.n),
        };
        if (r.repo !== null) s.repo = String(r.repo);
        if (r.branch !== null) s.branch = String(r.branch);
        if (r.ref !== null) s.ref = String(r.ref);
        return s;
      });
    });
  }

  async listRunIds(): Promise<string[]> {
    return this.read(async (c) => (await c.all('SELECT key FROM runs ORDER BY time_ms, id')).map((r) => String(r.key)));
  }

  async samplesFor(query: SampleQuery): Promise<RunSamples[]> {
    const where = new Where();
    where.eq('r.repo', query.repo).eq('r.sha', query.sha).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.machineKey);
    return this.read(async (c) => {
      const rows = await c.all(`SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key, m.benchmark, m.metric, m.unit, m.better, m.vals ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`, where.params);
      const values = await this.valuesOf(c, rows);
      return rows.map((r) => ({
        runId: String(r.key),
        sha: String(r.sha),
        role: r.role as RunRole,
        time: String(r.time),
        machineKey: String(r.machine_key),
        benchmark: String(r.benchmark),
        metric: String(r.metric),
        unit: String(r.unit),
        better: r.better === 'higher' ? 'higher' : 'lower',
        values: values.get(Number(r.id)) ?? [],
      }));
    });
  }

  async series(query: SeriesQuery): Promise<SeriesPoint[]> {
    const where = new Where();
    where.eq('r.repo', query.repo).eq('r.branch', query.branch).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.machineKey);
    // Through the series table and the per-series index: measurements have no index by name.
    if (query.benchmark !== undefined) where.add('m.series_id IN (SELECT id FROM series WHERE benchmark = ?)', query.benchmark);
    if (query.since !== undefined) {
      const ms = Date.parse(query.since);
      if (!Number.isFinite(ms)) throw new StoreError(`series: since must be an ISO 8601 time, got ${JSON.stringify(query.since)}`);
      where.add('r.time_ms >= ?', ms);
    }
    return this.read(async (c) => {
      const rows = await c.all(
        `SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key, ${query.fingerprints ? 'f.body AS fp_body, ' : ''}m.benchmark, m.metric, m.unit, m.better, m.n, m.median${query.values ? ', m.vals' : ''} ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`,
        where.params,
      );
      const values = query.values ? await this.valuesOf(c, rows) : undefined;
      return rows.map((r) => {
        const p: SeriesPoint = {
          runId: String(r.key),
          sha: String(r.sha),
          role: r.role as RunRole,
          time: String(r.time),
          machineKey: String(r.machine_key),
          benchmark: String(r.benchmark),
          metric: String(r.metric),
          unit: String(r.unit),
          better: r.better === 'higher' ? 'higher' : 'lower',
          n: Number(r.n),
          median: r.median === null ? null : Number(r.median),
        };
        if (values) p.values = values.get(Number(r.id)) ?? [];
        if (query.fingerprints) p.fingerprint = JSON.parse(String(r.fp_body));
        return p;
      });
    });
  }

  async *seriesWindows(query: WindowQuery): AsyncIterable<SeriesWindow[]> {
    const nights = query.nights ?? null;
    const valuesNights = query.valuesNights ?? 0;
    const batch = query.batch ?? DEFAULT_WINDOW_BATCH;
    for (const [name, v] of [['nights', nights ?? 1], ['valuesNights', valuesNights === Infinity ? 1 : valuesNights + 1], ['batch', batch]] as const) {
      if (!Number.isInteger(v) || v < 1) throw new StoreError(`seriesWindows: ${name} must be a positive whole number, got ${name === 'nights' ? nights : name === 'batch' ? batch : valuesNights}`);
    }
    const sinceMs = query.since === undefined ? null : Date.parse(query.since);
    if (sinceMs !== null && !Number.isFinite(sinceMs)) throw new StoreError(`seriesWindows: since must be an ISO 8601 time, got ${JSON.stringify(query.since)}`);
    const all = await this.read((c) => this.seriesRows(c, { ...query, role: query.role }, query.series));
    const runs = new Map<number, RunInfo>();
    const fingerprints = new Map<number, Fingerprint>();
    for (let start = 0; start < all.length; start += batch) {
      const slice = all.slice(start, start + batch);
      yield await this.read(async (c) => {
        const ids = slice.map((r) => Number(r.id));
        const marks = ids.map(() => '?').join(', ');
        const summary = new Map<number, { points: number; firstMs: number }>();
        for (const r of await c.all(`SELECT series_id, count(*) AS points, min(time_ms) AS first_ms FROM measurements WHERE series_id IN (${marks}) GROUP BY series_id`, ids)) {
          summary.set(Number(r.series_id), { points: Number(r.points), firstMs: Number(r.first_ms) });
        }
        const rows = await this.windowRows(c, ids, nights, valuesNights, sinceMs);
        await this.loadRuns(c, rows.map((r) => Number(r[2])), runs, query.fingerprints ? fingerprints : undefined);
        const bySeries = new Map<number, WindowRow[]>();
        for (const r of rows) {
          const id = Number(r[0]);
          let list = bySeries.get(id);
          if (!list) bySeries.set(id, (list = []));
          list.push(r);
        }
        // Rows stored before migration 2 keep their samples in the samples table.
        const wanted = new Set<number>();
        for (const list of bySeries.values()) list.slice(0, valuesNights).forEach((r) => r[7] === null && Number(r[5]) > 0 && wanted.add(Number(r[1])));
        const old = wanted.size > 0 ? await this.readSamples(c, [...wanted]) : new Map<number, number[]>();
        return slice.map((s) => {
          const id = Number(s.id);
          const sum = summary.get(id) ?? { points: 0, firstMs: 0 };
          const list = bySeries.get(id) ?? [];
          const window: SeriesPoint[] = new Array(list.length);
          const machineKey = String(s.machine_key);
          const benchmark = String(s.benchmark);
          const metric = String(s.metric);
          for (let i = 0; i < list.length; i++) {
            const [, mid, runId, unit, better, n, med, vals] = list[i];
            const run = runs.get(Number(runId)) as RunInfo;
            const p: SeriesPoint = {
              runId: run.key, sha: run.sha, role: run.role, time: run.time, machineKey, benchmark, metric,
              unit: String(unit), better: better === 'higher' ? 'higher' : 'lower', n: Number(n), median: med === null ? null : Number(med),
            };
            if (i < valuesNights) p.values = vals !== null ? unpackValues(vals as Uint8Array) : (old.get(Number(mid)) ?? []);
            if (query.fingerprints) p.fingerprint = fingerprints.get(run.fingerprintId);
            window[list.length - 1 - i] = p;
          }
          const w: SeriesWindow = {
            role: s.role as RunRole, machineKey: String(s.machine_key), benchmark: String(s.benchmark), metric: String(s.metric),
            points: sum.points, firstTime: new Date(sum.firstMs).toISOString(), window,
          };
          if (s.repo !== '') w.repo = String(s.repo);
          if (s.branch !== '') w.branch = String(s.branch);
          return w;
        });
      });
    }
  }

  async listSeries(query: SeriesListQuery): Promise<SeriesInfo[]> {
    return this.read(async (c) => {
      const rows = await this.seriesRows(c, query);
      const machines = new Map<string, Fingerprint>();
      if (query.machines) {
        const keys = [...new Set(rows.map((r) => String(r.machine_key)))];
        for (let i = 0; i < keys.length; i += 500) {
          const chunk = keys.slice(i, i + 500);
          // One fingerprint per machine key: they differ only in what is not the machine (load, tool versions).
          for (const r of await c.all(`SELECT machine_key, min(body) AS body FROM fingerprints WHERE machine_key IN (${chunk.map(() => '?').join(', ')}) GROUP BY machine_key`, chunk)) {
            machines.set(String(r.machine_key), JSON.parse(String(r.body)));
          }
        }
      }
      return rows.map((r) => {
        const info: SeriesInfo = { id: Number(r.id), role: r.role as RunRole, machineKey: String(r.machine_key), benchmark: String(r.benchmark), metric: String(r.metric) };
        if (r.repo !== '') info.repo = String(r.repo);
        if (r.branch !== '') info.branch = String(r.branch);
        const machine = machines.get(info.machineKey);
        if (machine) info.machine = machine;
        return info;
      });
    });
  }

  /** seriesRows reads the series rows that match the filters, by id, or only the given ids in their order. */
  private async seriesRows(c: SqlConn, query: SeriesListQuery, ids?: readonly number[]): Promise<Row[]> {
    const where = new Where();
    where.eq('role', query.role).eq('repo', query.repo).eq('branch', query.branch).eq('benchmark', query.benchmark).eq('metric', query.metric).eq('machine_key', query.machineKey);
    const columns = 'SELECT id, repo, branch, role, machine_key, benchmark, metric FROM series';
    if (ids === undefined) return c.all(`${columns} ${where.sql()} ORDER BY id`, where.params);
    const byId = new Map<number, Row>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const conditions = [...where.conditions, `id IN (${chunk.map(() => '?').join(', ')})`];
      for (const r of await c.all(`${columns} WHERE ${conditions.join(' AND ')}`, [...where.params, ...chunk])) byId.set(Number(r.id), r);
    }
    return [...new Set(ids)].flatMap((id): Row[] => {
      const r = byId.get(id);
      return r ? [r] : [];
    });
  }

  async *seriesHistories(query: HistoryQuery): AsyncIterable<SeriesHistory[]> {
    const valuesNights = query.valuesNights ?? 0;
    const batch = query.batch ?? DEFAULT_WINDOW_BATCH;
    if (!Number.isInteger(valuesNights) || valuesNights < 0) throw new StoreError(`seriesHistories: valuesNights must be a whole number, got ${valuesNights}`);
    if (!Number.isInteger(batch) || batch < 1) throw new StoreError(`seriesHistories: batch must be a positive whole number, got ${batch}`);
    const where = new Where();
    where.eq('role', query.role).eq('repo', query.repo).eq('branch', query.branch).eq('benchmark', query.benchmark).eq('metric', query.metric).eq('machine_key', query.machineKey);
    const all = await this.read((c) => c.all(`SELECT id, repo, branch, role, machine_key, benchmark, metric FROM series ${where.sql()} ORDER BY id`, where.params));
    const runs = new Map<number, RunInfo>();
    const fingerprints = new Map<number, Fingerprint>();
    const refs = new Map<number, RunRef>();
    const refOf = (id: number): RunRef => {
      let ref = refs.get(id);
      if (!ref) {
        const r = runs.get(id) as RunInfo;
        refs.set(id, (ref = { id: r.key, sha: r.sha, role: r.role, time: r.time, fingerprint: fingerprints.get(r.fingerprintId) as Fingerprint }));
      }
      return ref;
    };
    // The next batch is read while the caller works on this one (on PostgreSQL, by the server, on another connection).
    const readBatch = (start: number) => {
      const slice = all.slice(start, start + batch);
      const read = this.read(async (c) => {
        const ids = slice.map((r) => Number(r.id));
        const columns = await this.historyColumns(c, ids);
        const newest = await this.windowRows(c, ids, Math.max(1, valuesNights), valuesNights);
        const runIds = new Set<number>();
        for (const h of columns.values()) for (const id of h.run) runIds.add(id);
        await this.loadRuns(c, runIds, runs, fingerprints);
        const newestOf = new Map<number, WindowRow[]>();
        for (const r of newest) {
          const id = Number(r[0]);
          if (!newestOf.has(id)) newestOf.set(id, []);
          (newestOf.get(id) as WindowRow[]).push(r);
        }
        const old = new Set<number>();
        for (const list of newestOf.values()) for (const r of list.slice(0, valuesNights)) if (r[7] === null && Number(r[5]) > 0) old.add(Number(r[1]));
        const oldValues = old.size > 0 ? await this.readSamples(c, [...old]) : new Map<number, number[]>();
        const out: SeriesHistory[] = [];
        for (const s of slice) {
          const h = columns.get(Number(s.id));
          const top = newestOf.get(Number(s.id)) ?? [];
          if (!h || top.length === 0) continue;
          const count = h.run.length;
          const refs = new Array<RunRef>(count);
          for (let k = 0; k < count; k++) refs[k] = refOf(h.run[k]);
          const history: SeriesHistory = {
            role: s.role as RunRole, machineKey: String(s.machine_key), benchmark: String(s.benchmark), metric: String(s.metric),
            unit: String(top[0][3]), better: top[0][4] === 'higher' ? 'higher' : 'lower',
            runs: refs, n: h.n, median: h.median, lo: h.lo, hi: h.hi,
            values: new Array<number[] | undefined>(count).fill(undefined),
          };
          // The newest rows by (time, id) and by (time, run) agree but for a duplicated name within one run.
          top.slice(0, valuesNights).forEach((r, i) => {
            history.values[count - 1 - i] = r[7] !== null ? unpackValues(r[7] as Uint8Array) : (oldValues.get(Number(r[1])) ?? []);
          });
          if (s.repo !== '') history.repo = String(s.repo);
          if (s.branch !== '') history.branch = String(s.branch);
          out.push(history);
        }
        return out;
      });
      read.catch(() => undefined);
      return read;
    };
    let next = all.length > 0 ? readBatch(0) : undefined;
    for (let start = 0; next !== undefined; start += batch) {
      const current = next;
      next = start + batch < all.length ? readBatch(start + batch) : undefined;
      yield await current;
    }
  }

  /** loadRuns reads the runs (and, when asked, fingerprints) the rows refer to that are not known yet. */
  private async loadRuns(c: SqlConn, runIds: Iterable<number>, runs: Map<number, RunInfo>, fingerprints: Map<number, Fingerprint> | undefined): Promise<void> {
    const wanted = [...new Set(runIds)];
    const missing = wanted.filter((id) => !runs.has(id));
    for (let i = 0; i < missing.length; i += 500) {
      const ids = missing.slice(i, i + 500);
      for (const r of await c.all(`SELECT id, key, sha, role, time, fingerprint_id FROM runs WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)) {
        runs.set(Number(r.id), { key: String(r.key), sha: String(r.sha), role: r.role as RunRole, time: String(r.time), fingerprintId: Number(r.fingerprint_id) });
      }
    }
    if (!fingerprints) return;
    // From every run asked for, not only the new ones: a batch read beside this one may have read a run and not yet its fingerprint.
    const fps = [...new Set(wanted.map((id) => runs.get(id)?.fingerprintId as number).filter((id) => id !== undefined && !fingerprints.has(id)))];
    for (let i = 0; i < fps.length; i += 500) {
      const ids = fps.slice(i, i + 500);
      for (const r of await c.all(`SELECT id, body FROM fingerprints WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)) fingerprints.set(Number(r.id), JSON.parse(String(r.body)));
    }
  }

  /** valuesOf returns the raw samples of measurement rows (with `id`, `vals`): packed ones decoded, older ones from the samples table. */
  private async valuesOf(c: SqlConn, rows: readonly Row[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    const unpacked: number[] = [];
    for (const r of rows) {
      if (r.vals === null || r.vals === undefined) unpacked.push(Number(r.id));
      else out.set(Number(r.id), unpackValues(r.vals as Uint8Array));
    }
    if (unpacked.length > 0) for (const [id, values] of await this.readSamples(c, unpacked)) out.set(id, values);
    return out;
  }

  async getState(key: string): Promise<StateEntry | undefined> {
    checkStateKey(key);
    return this.read(async (c) => {
      const [r] = await c.all('SELECT value, version FROM state WHERE key = ?', [key]);
      return r ? { key, value: JSON.parse(String(r.value)), version: Number(r.version) } : undefined;
    });
  }

  async putState(key: string, value: unknown): Promise<number> {
    checkStateKey(key);
    const text = stateJson(key, value);
    return this.write(async (c) => {
      const [r] = await c.all(
        `INSERT INTO state (key, value, version, updated_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = state.version + 1, updated_at = excluded.updated_at
         RETURNING version`,
        [key, text, new Date().toISOString()],
      );
      return Number(r.version);
    });
  }

  async compareAndSetState(key: string, expectedVersion: number | null, value: unknown): Promise<number | null> {
    checkStateKey(key);
    const text = stateJson(key, value);
    if (expectedVersion !== null && !Number.isInteger(expectedVersion)) throw new StoreError(`state ${JSON.stringify(key)}: expectedVersion must be an integer or null`);
    return this.write(async (c) => {
      const now = new Date().toISOString();
      const rows =
        expectedVersion === null
          ? await c.all('INSERT INTO state (key, value, version, updated_at) VALUES (?, ?, 1, ?) ON CONFLICT (key) DO NOTHING RETURNING version', [key, text, now])
          : await c.all('UPDATE state SET value = ?, version = version + 1, updated_at = ? WHERE key = ? AND version = ? RETURNING version', [text, now, key, expectedVersion]);
      return rows.length === 0 ? null : Number(rows[0].version);
    });
  }

  async deleteState(key: string, expectedVersion?: number): Promise<boolean> {
    checkStateKey(key);
    return this.write(async (c) =>
      expectedVersion === undefined
        ? (await c.run('DELETE FROM state WHERE key = ?', [key])) > 0
        : (await c.run('DELETE FROM state WHERE key = ? AND version = ?', [key, expectedVersion])) > 0,
    );
  }

  async listState(prefix: string): Promise<StateEntry[]> {
    // substr counts characters (code points) in both dialects, so no LIKE escaping and no collation surprises.
    const length = [...prefix].length;
    return this.read(async (c) =>
      (await c.all('SELECT key, value, version FROM state WHERE substr(key, 1, ?) = ? ORDER BY key', [length, prefix])).map((r) => ({
        key: String(r.key),
        value: JSON.parse(String(r.value)),
        version: Number(r.version),
      })),
    );
  }

  async counts(): Promise<StoreCounts> {
    return this.read(async (c) => {
      const [r] = await c.all(
        `SELECT (SELECT count(*) FROM runs) AS runs, (SELECT count(*) FROM fingerprints) AS fingerprints,
                (SELECT count(*) FROM measurements) AS measurements,
                (SELECT count(*) FROM samples) + (SELECT coalesce(sum(n), 0) FROM measurements WHERE vals IS NOT NULL) AS samples,
                (SELECT count(*) FROM state) AS state`,
      );
      return { runs: Number(r.runs), fingerprints: Number(r.fingerprints), measurements: Number(r.measurements), samples: Number(r.samples), state: Number(r.state) };
    });
  }
}

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

const MEASUREMENT_FROM = 'FROM measurements m JOIN runs r ON r.id = m.run_id JOIN fingerprints f ON f.id = r.fingerprint_id';

/** Where collects `AND`ed conditions with their parameters; undefined filters are skipped. */
class Where {
  readonly conditions: string[] = [];
  readonly params: SqlValue[] = [];

  eq(column: string, value: string | undefined): this {
    if (value !== undefined) this.add(`${column} = ?`, value);
    return this;
  }

  add(condition: string, value: SqlValue): this {
    this.conditions.push(condition);
    this.params.push(value);
    return this;
  }

  sql(): string {
    return this.conditions.length === 0 ? '' : `WHERE ${this.conditions.join(' AND ')}`;
  }
}

function checkStateKey(key: string): void {
  if (typeof key !== 'string' || key === '' || key.includes('\u0000')) throw new StoreError(`state key must be a non-empty string without NUL, got ${JSON.stringify(key)}`);
}

function stateJson(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StoreError(`state ${JSON.stringify(key)}: value is not JSON-serializable (${error instanceof Error ? error.message : String(error)})`);
  }
  if (text === undefined) throw new StoreError(`state ${JSON.stringify(key)}: value is not JSON-serializable (got ${typeof value})`);
  return text;
}
