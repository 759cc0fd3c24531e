import type { Measurement } from '../model/measurement.ts';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, type Dialect } from './migrations.ts';
import type { SqlAccess, SqlConn } from './sql-conn.ts';
import { ingestRuns, ingestStream, type MeasurementRow } from './sql-ingest.ts';
import { getRun, listRunIds, listRuns, samplesFor, series } from './sql-run-queries.ts';
import { listSeries, seriesHistories, seriesWindows, type HistoryColumns, type WindowRow } from './sql-series-reads.ts';
import { compareAndSetState, deleteEffect, deleteState, finishEffect, getEffect, getState, listEffects, listState, putState, releaseEffect, renewEffect, takeEffect } from './sql-state.ts';
import { claimJobs, enqueueJob, failJob, finishJob, getJob, jobStats, pacingAhead, pruneJobs, releaseJob, renewJob, takePacingSlot } from './sql-jobs.ts';
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
  type SeriesHistory,
  type StateEntry,
  type EffectEntry,
  type EffectTake,
  type EnqueueOutcome,
  type ClaimJobsOptions,
  type JobLease,
  type JobRecord,
  type JobStats,
  type LeasedJob,
  type NewJob,
  type Store,
  type StoreCounts,
  type StoreOptions,
  type StoredRun,
} from './store.ts';

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

  /** access is this store as the query modules (sql-ingest, sql-run-queries, sql-series-reads, sql-state) take it. */
  private readonly access: SqlAccess;

  constructor(options: StoreOptions) {
    this.onSamples = options.onSamples;
    this.access = {
      read: (fn) => this.read(fn),
      write: (fn) => this.write(fn),
      insertSamples: (c, ids, measurements, progress) => this.insertSamples(c, ids, measurements, progress),
      insertMeasurements: (c, runId, timeMs, rows, encoded, wantIds) => this.insertMeasurements(c, runId, timeMs, rows, encoded, wantIds),
      encodeMeasurements: (rows, timeMs) => this.encodeMeasurements(rows, timeMs),
      afterIngest: (rows) => this.afterIngest(rows),
      windowRows: (c, seriesIds, limit, valuesLimit, sinceMs) => this.windowRows(c, seriesIds, limit, valuesLimit, sinceMs),
      historyColumns: (c, seriesIds) => this.historyColumns(c, seriesIds),
      readSamples: (c, ids) => this.readSamples(c, ids),
      onSamples: this.onSamples,
    };
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

  ingestRuns(runs: readonly IngestRun[]): Promise<IngestResult> {
    return ingestRuns(this.access, runs);
  }

  /** afterIngest runs after an ingest committed `rows` new measurements; the PostgreSQL adapter tidies up after big ones. */
  protected async afterIngest(_rows: number): Promise<void> {}

  ingestStream(runs: AsyncIterable<IngestRun> | Iterable<IngestRun>): Promise<IngestResult> {
    return ingestStream(this.access, runs);
  }

  getRun(id: string): Promise<StoredRun | undefined> {
    return getRun(this.access, id);
  }

  listRuns(query: RunQuery = {}): Promise<RunSummary[]> {
    return listRuns(this.access, query);
  }

  listRunIds(): Promise<string[]> {
    return listRunIds(this.access);
  }

  samplesFor(query: SampleQuery): Promise<RunSamples[]> {
    return samplesFor(this.access, query);
  }

  series(query: SeriesQuery): Promise<SeriesPoint[]> {
    return series(this.access, query);
  }

  seriesWindows(query: WindowQuery): AsyncIterable<SeriesWindow[]> {
    return seriesWindows(this.access, query);
  }

  listSeries(query: SeriesListQuery): Promise<SeriesInfo[]> {
    return listSeries(this.access, query);
  }

  seriesHistories(query: HistoryQuery): AsyncIterable<SeriesHistory[]> {
    return seriesHistories(this.access, query);
  }

  getState(key: string): Promise<StateEntry | undefined> {
    return getState(this.access, key);
  }

  putState(key: string, value: unknown): Promise<number> {
    return putState(this.access, key, value);
  }

  compareAndSetState(key: string, expectedVersion: number | null, value: unknown): Promise<number | null> {
    return compareAndSetState(this.access, key, expectedVersion, value);
  }

  deleteState(key: string, expectedVersion?: number): Promise<boolean> {
    return deleteState(this.access, key, expectedVersion);
  }

  listState(prefix: string): Promise<StateEntry[]> {
    return listState(this.access, prefix);
  }

  takeEffect(key: string, holder: string, nowMs: number, leaseMs: number): Promise<EffectTake> {
    return takeEffect(this.access, key, holder, nowMs, leaseMs);
  }

  renewEffect(key: string, holder: string, leaseUntil: number): Promise<boolean> {
    return renewEffect(this.access, key, holder, leaseUntil);
  }

  finishEffect(key: string, holder: string, githubId: number, result: Record<string, unknown>): Promise<boolean> {
    return finishEffect(this.access, key, holder, githubId, result);
  }

  releaseEffect(key: string, holder: string, back: EffectEntry | undefined | 'unknown'): Promise<boolean> {
    return releaseEffect(this.access, key, holder, back);
  }

  getEffect(key: string): Promise<EffectEntry | undefined> {
    return getEffect(this.access, key);
  }

  listEffects(prefix: string): Promise<EffectEntry[]> {
    return listEffects(this.access, prefix);
  }

  deleteEffect(key: string, version: number): Promise<boolean> {
    return deleteEffect(this.access, key, version);
  }

  enqueueJob(job: NewJob, nowMs: number): Promise<EnqueueOutcome> {
    return enqueueJob(this.access, job, nowMs);
  }

  claimJobs(options: ClaimJobsOptions): Promise<{ leased: LeasedJob[]; dead: string[] }> {
    return claimJobs(this.access, this.kind, options);
  }

  renewJob(job: JobLease, leaseMs: number, nowMs: number): Promise<boolean> {
    return renewJob(this.access, job, leaseMs, nowMs);
  }

  finishJob(job: JobLease, nowMs: number): Promise<boolean> {
    return finishJob(this.access, job, nowMs);
  }

  failJob(job: JobLease, error: string, retryAtMs: number | null, nowMs: number, attempt: 'failed' | 'waiting' = 'failed'): Promise<boolean> {
    return failJob(this.access, job, error, retryAtMs, nowMs, attempt);
  }

  releaseJob(job: JobLease, nowMs: number): Promise<boolean> {
    return releaseJob(this.access, job, nowMs);
  }

  getJob(id: string): Promise<JobRecord | undefined> {
    return getJob(this.access, id);
  }

  jobStats(nowMs: number): Promise<JobStats> {
    return jobStats(this.access, nowMs);
  }

  pruneJobs(olderThanMs: number, nowMs: number): Promise<number> {
    return pruneJobs(this.access, olderThanMs, nowMs);
  }

  takePacingSlot(key: string, spacingMs: number, nowMs: number): Promise<number> {
    return takePacingSlot(this.access, key, spacingMs, nowMs);
  }

  pacingAhead(nowMs: number): Promise<{ key: string; aheadMs: number }[]> {
    return pacingAhead(this.access, nowMs);
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
