import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Measurement } from '../model/measurement.ts';
import type { Dialect } from './migrations.ts';
import type { Row, SqlConn, SqlValue } from './sql-conn.ts';
import type { MeasurementRow } from './sql-ingest.ts';
import { HISTORY_ORDER, historyFromRows, windowValuesColumn, type HistoryColumns, type WindowRow } from './sql-series-reads.ts';
import { SqlStore } from './sql-store.ts';
import { makeStateDir } from '../runner/state-dir.ts';
import { StoreError, type IngestResult, type IngestRun, type StoreOptions } from './store.ts';

/** DEFAULT_BUSY_TIMEOUT_MS is how long a SQLite writer waits for another's lock. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/**
 * untilNotBusy runs fn again while it fails with SQLITE_BUSY, until the
 * deadline. Switching a brand-new file to WAL can fail at once with
 * "database is locked" when another process is opening the same new file
 * (SQLite skips the busy handler where waiting could deadlock), so two
 * processes opening a new store together must retry it themselves.
 */
function untilNotBusy(fn: () => void, deadline: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      fn();
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, 10 + Math.floor(Math.random() * 20));
    }
  }
}

/** Samples are reported to onSamples after every this many rows. */
const SAMPLE_BATCH = 65_536;
/** Rows per multi-row INSERT: far fewer statement steps than one row each, well under SQLite's 32766 variables. */
const ROWS_PER_INSERT = 500;
/** Measurement rows per multi-row INSERT (14 columns each). */
const MEASUREMENTS_PER_INSERT = 200;
/** Page cache per connection, in KiB (SQLite takes it as it fills, not up front). */
const CACHE_KIB = 32 * 1024;
/**
 * INGEST_CACHE_KIB is the page cache while runs are ingested: each nightly run
 * appends to every series' range of the indexes, 10,000+ scattered pages per
 * run with 10,000 series, which a smaller cache reads back for every run (a
 * year of such a suite imported in 56 s with it, 71 s with 32 MiB). Reads keep
 * the small one: a scan's memory is what it holds, not what it read.
 */
const INGEST_CACHE_KIB = 256 * 1024;
const MEASUREMENT_COLUMNS = 'id, run_id, ordinal, benchmark, metric, unit, better, n, median, lo, hi, series_id, time_ms, vals';

/**
 * SqliteStore is the embedded adapter over `node:sqlite`. DatabaseSync is
 * synchronous, so every call is queued behind the previous one: one
 * connection can hold only one transaction, and an async caller must not see
 * another caller's uncommitted rows.
 */
export class SqliteStore extends SqlStore {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  protected readonly dialect: Dialect = 'sqlite';
  private readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly conn: SqlConn;

  private constructor(path: string, db: DatabaseSync, options: StoreOptions) {
    super(options);
    this.location = path;
    this.db = db;
    const prepare = (sql: string): StatementSync => {
      let s = this.statements.get(sql);
      if (!s) this.statements.set(sql, (s = db.prepare(sql)));
      return s;
    };
    this.conn = {
      all: async (sql, params = []) => prepare(sql).all(...(params as SqlValue[])) as Row[],
      run: async (sql, params = []) => Number(prepare(sql).run(...(params as SqlValue[])).changes),
      exec: async (sql) => db.exec(sql),
    };
  }

  /**
   * open creates the file (and its directory) when missing and sets the
   * connection up: busy timeout first, so that even switching to WAL waits
   * for a concurrent opener instead of failing.
   */
  static open(path: string, options: StoreOptions = {}): SqliteStore {
    const busy = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    let db: DatabaseSync | undefined;
    try {
      makeStateDir(dirname(path));
      db = new DatabaseSync(path, { timeout: busy, enableForeignKeyConstraints: true });
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busy))}`);
      const opened = db;
      untilNotBusy(() => opened.exec('PRAGMA journal_mode = WAL'), Date.now() + busy);
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
      db.exec('PRAGMA foreign_keys = ON');
    } catch (error) {
      try {
        db?.close();
      } catch {
        // the open failure is the error worth reporting
      }
      throw new StoreError(`cannot open the SQLite store at ${path}: ${reason(error)}. ${fixFor(error)}`, { cause: error });
    }
    return new SqliteStore(path, db, options);
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.queue.then(() => {
      if (this.closed) throw new StoreError(`the SQLite store at ${this.location} is closed`);
      return fn();
    });
    this.queue = result.catch(() => undefined);
    return result.catch((error: unknown) => {
      throw this.wrap(error);
    });
  }

  protected read<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    return this.serialize(() => fn(this.conn));
  }

  protected write<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    return this.serialize(async () => {
      // IMMEDIATE takes the write lock up front (waiting up to the busy timeout); a deferred
      // transaction would fail with SQLITE_BUSY when upgrading from read to write.
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await fn(this.conn);
        this.db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
        throw error;
      }
    });
  }

  protected writeLocked<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    return this.write(fn);
  }

  protected async insertSamples(_c: SqlConn, ids: readonly number[], measurements: readonly Measurement[], progress: (written: number) => void): Promise<void> {
    const many = this.db.prepare(`INSERT INTO samples (measurement_id, idx, value) VALUES ${new Array(ROWS_PER_INSERT).fill('(?, ?, ?)').join(', ')}`);
    const one = this.db.prepare('INSERT INTO samples (measurement_id, idx, value) VALUES (?, ?, ?)');
    const params = new Array<number>(ROWS_PER_INSERT * 3);
    let written = 0;
    let reported = 0;
    for (let k = 0; k < measurements.length; k++) {
      const id = ids[k];
      const values = measurements[k].values;
      let i = 0;
      for (; i + ROWS_PER_INSERT <= values.length; i += ROWS_PER_INSERT) {
        for (let j = 0; j < ROWS_PER_INSERT; j++) {
          params[3 * j] = id;
          params[3 * j + 1] = i + j;
          params[3 * j + 2] = values[i + j];
        }
        many.run(...params);
        written += ROWS_PER_INSERT;
        if (written - reported >= SAMPLE_BATCH) progress((reported = written));
      }
      for (; i < values.length; i++) {
        one.run(id, i, values[i]);
        written++;
      }
      if (written - reported >= SAMPLE_BATCH) progress((reported = written));
    }
    if (written > reported) progress(written);
  }

  override async ingestRuns(runs: readonly IngestRun[]): Promise<IngestResult> {
    return this.withIngestCache(() => super.ingestRuns(runs));
  }

  override async ingestStream(runs: AsyncIterable<IngestRun> | Iterable<IngestRun>): Promise<IngestResult> {
    return this.withIngestCache(() => super.ingestStream(runs));
  }

  private async withIngestCache<T>(fn: () => Promise<T>): Promise<T> {
    // A connection setting, not transactional: safe to change between the queued calls.
    if (!this.closed) this.db.exec(`PRAGMA cache_size = -${INGEST_CACHE_KIB}`);
    try {
      return await fn();
    } finally {
      if (!this.closed) this.db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
    }
  }

  protected async insertMeasurements(_c: SqlConn, runId: number, timeMs: number, rows: readonly MeasurementRow[]): Promise<number[] | undefined> {
    // Ids are assigned here, not by SQLite: this transaction holds the write lock (BEGIN IMMEDIATE), and
    // knowing them spares a RETURNING per row.
    const first = Number((this.db.prepare('SELECT coalesce(max(id), 0) AS m FROM measurements').get() as { m: number }).m) + 1;
    const ids = rows.map((_, i) => first + i);
    const statement = (count: number) => this.prepared(`INSERT INTO measurements (${MEASUREMENT_COLUMNS}) VALUES ${new Array(count).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`);
    const params: SqlValue[] = [];
    for (let start = 0; start < rows.length; start += MEASUREMENTS_PER_INSERT) {
      const chunk = rows.slice(start, start + MEASUREMENTS_PER_INSERT);
      params.length = 0;
      chunk.forEach((r, i) => params.push(ids[start + i], runId, r.ordinal, r.benchmark, r.metric, r.unit, r.better, r.n, r.median, r.lo, r.hi, r.seriesId, timeMs, r.vals));
      statement(chunk.length).run(...(params as SqlValue[]));
    }
    return ids;
  }

  protected async windowRows(_c: SqlConn, seriesIds: readonly number[], limit: number | null, valuesLimit: number, sinceMs: number | null = null): Promise<WindowRow[]> {
    // One range of the (series_id, time_ms) index per series, newest first.
    const stmt = this.prepared(
      `SELECT m.series_id, m.id, m.run_id, m.unit, m.better, m.n, m.median, ${windowValuesColumn(limit, valuesLimit)} AS vals
       FROM measurements m WHERE m.series_id = ? AND m.time_ms >= ? ORDER BY m.time_ms DESC, m.id DESC LIMIT ?`,
    );
    stmt.setReturnArrays(true);
    const out: WindowRow[] = [];
    for (const id of seriesIds) for (const r of stmt.all(id, sinceMs ?? Number.MIN_SAFE_INTEGER, limit ?? -1)) out.push(r as unknown as WindowRow);
    return out;
  }

  protected async historyColumns(_c: SqlConn, seriesIds: readonly number[]): Promise<Map<number, HistoryColumns>> {
    const stmt = this.prepared(`SELECT run_id, n, median, lo, hi FROM measurements WHERE series_id = ? ${HISTORY_ORDER}`);
    stmt.setReturnArrays(true);
    const out = new Map<number, HistoryColumns>();
    for (const id of seriesIds) {
      const rows = stmt.all(id) as unknown as unknown[][];
      if (rows.length > 0) out.set(id, historyFromRows(rows));
    }
    return out;
  }

  private prepared(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  protected async readSamples(_c: SqlConn, ids: readonly number[]): Promise<Map<number, number[]>> {
    // One indexed range scan per measurement, already in idx order; arrays instead of row objects halve the cost.
    const stmt = this.db.prepare('SELECT value FROM samples WHERE measurement_id = ? ORDER BY idx');
    stmt.setReturnArrays(true);
    const out = new Map<number, number[]>();
    for (const id of ids) {
      const rows = stmt.all(id) as unknown as [number][];
      const values = new Array<number>(rows.length);
      for (let i = 0; i < rows.length; i++) values[i] = rows[i][0];
      out.set(id, values);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.queue;
    if (this.closed) return;
    this.closed = true;
    this.statements.clear();
    this.db.close();
  }

  private wrap(error: unknown): unknown {
    if (error instanceof StoreError) return error;
    const hint = isBusy(error) ? ' Another process held the write lock longer than the busy timeout; retry, or raise the busy timeout.' : '';
    return new StoreError(`SQLite store ${this.location}: ${reason(error)}.${hint}`, { cause: error });
  }
}

/** isBusy tells a failure because another connection held the lock (SQLITE_BUSY) from the rest. */
function isBusy(error: unknown): boolean {
  return /database is locked|SQLITE_BUSY/i.test(reason(error));
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
}

function fixFor(error: unknown): string {
  const code = (error as { code?: string; errstr?: string }).code;
  const text = reason(error);
  if (/not a database/i.test(text)) return 'The file exists but is not a SQLite database: point --store (or BENCHBOT_DATABASE_URL) at a new file.';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || /readonly|read-only|unable to open|permission/i.test(text)) {
    return 'Pass --store (or set BENCHBOT_DATABASE_URL) with a path in a directory you can write to.';
  }
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'A parent of that path is a file, not a directory: pass --store (or set BENCHBOT_DATABASE_URL) with a path in a writable directory.';
  return 'Check the path, or pass --store (or set BENCHBOT_DATABASE_URL) with another one.';
}
