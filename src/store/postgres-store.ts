import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Measurement } from '../model/measurement.ts';
import type { Dialect } from './migrations.ts';
import { COPY_COLUMNS, encodeCopyRows, type EncodedRows } from './pg-copy.ts';
import { connectionSecrets, redact, scrubError } from './redact.ts';
import type { Row, SqlConn, SqlValue } from './sql-conn.ts';
import type { MeasurementRow } from './sql-ingest.ts';
import { HISTORY_ORDER, windowValuesColumn, type HistoryColumns, type WindowRow } from './sql-series-reads.ts';
import { SqlStore } from './sql-store.ts';
import { StoreError, type StoreOptions } from './store.ts';

/** DEFAULT_CONNECT_TIMEOUT_MS bounds how long opening a PostgreSQL store may hang on an unreachable host. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * DEFAULT_MAX_CONNECTIONS is the pool size of a PostgreSQL store, 10
 * (node-postgres's own default; it was 4): `benchbot serve` under load holds
 * a connection per delivery in flight, and at 18,000 deliveries a minute a
 * pool of 4 timed out. Two replicas at 10 use 20 of PostgreSQL's default 100
 * connections. `benchbot serve --pg-pool-size` (BENCHBOT_PG_POOL_SIZE) sets it.
 */
export const DEFAULT_MAX_CONNECTIONS = 10;

/** Samples per INSERT (and per onSamples report): a few MB of array text per statement. */
const SAMPLE_BATCH = 50_000;
/** VACUUM_AFTER_ROWS is the smallest ingest (in measurements) after which the adapter vacuums. */
const VACUUM_AFTER_ROWS = 100_000;
/** Measurement ids per sample query. */
const ID_BATCH = 1000;
/** An arbitrary constant naming benchbot's migration lock among advisory locks. */
const MIGRATION_LOCK_ID = 4_210_771_337;

/**
 * PostgresStore is the shared-server adapter over `pg`. Reads borrow a
 * pooled connection; each write is one transaction on one connection.
 * Measurements go in by binary COPY (pg-copy-streams), one per run, not
 * waited for while the next run is read; the samples of the rare big
 * measurement as three arrays per statement through `unnest`, an order of
 * magnitude faster than row-by-row inserts.
 */
export class PostgresStore extends SqlStore {
  readonly kind = 'postgres' as const;
  readonly location: string;
  protected readonly dialect: Dialect = 'postgres';
  private readonly pool: pg.Pool;
  /** The URL's passwords, hidden wherever a driver or server message echoes them. */
  private readonly secrets: string[];
  private closed = false;

  private constructor(pool: pg.Pool, display: string, secrets: string[], options: StoreOptions) {
    super(options);
    this.pool = pool;
    this.location = display;
    this.secrets = secrets;
  }

  /** open connects once to fail early with a message that says what to fix. */
  static async open(url: string, options: StoreOptions = {}): Promise<PostgresStore> {
    const secrets = connectionSecrets(url);
    const display = redact(url, { secrets });
    const timeout = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS, connectionTimeoutMillis: timeout });
    // A connection dropped by the server (restart, failover, pg_terminate_backend) must not crash the process. The pool
    // handles an idle client's 'error' (and emits it here); a checked-out client emits 'error' too, once its socket ends,
    // even after the query in flight was rejected with the same error, and with no listener Node throws it. The query's
    // own error already reaches the caller, and the pool drops the broken client on release; the next query reconnects.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    try {
      const client = await pool.connect();
      client.release();
    } catch (error) {
      await pool.end().catch(() => undefined);
      scrubError(error, { secrets });
      throw new StoreError(`cannot connect to the PostgreSQL store ${display}: ${redact(connectReason(error, timeout), { secrets })}. ${connectFix(error)} (set with --store or BENCHBOT_DATABASE_URL)`, { cause: error });
    }
    return new PostgresStore(pool, display, secrets, options);
  }

  protected async read<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    this.checkOpen();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.wrap(error);
    }
    try {
      return await fn(conn(client));
    } catch (error) {
      throw this.wrap(error);
    } finally {
      client.release();
    }
  }

  protected write<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    return this.transaction(fn, false);
  }

  protected writeLocked<T>(fn: (c: SqlConn) => Promise<T>): Promise<T> {
    return this.transaction(fn, true);
  }

  private async transaction<T>(fn: (c: SqlConn) => Promise<T>, lock: boolean): Promise<T> {
    this.checkOpen();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.wrap(error);
    }
    let broken: Error | undefined;
    const c = conn(client);
    try {
      await client.query('BEGIN');
      if (lock) await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
      const result = await fn(c);
      await c.settle();
      // A big ingest commits synchronously even on a server that commits asynchronously: the VACUUM after it (afterIngest)
      // can mark a page all-visible only once the commit is on disk, and only then do scans and charts read the index
      // alone (a year of 10,000 series committed asynchronously: a quarter of the pages marked, 18 s of heap reads in a scan).
      if (c.written >= VACUUM_AFTER_ROWS) await client.query('SET LOCAL synchronous_commit = on');
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable: drop it from the pool instead of reusing it.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      // A statement not waited for failed first; what followed it only says the transaction was aborted.
      await c.settle().catch(() => undefined);
      throw this.wrap(c.failure() ?? error);
    } finally {
      client.release(broken);
    }
  }

  protected async insertSamples(c: SqlConn, ids: readonly number[], measurements: readonly Measurement[], progress: (written: number) => void): Promise<void> {
    let mids: number[] = [];
    let idxs: number[] = [];
    let vals: number[] = [];
    let written = 0;
    const flush = async (): Promise<void> => {
      if (vals.length === 0) return;
      // Array literals built here: numbers print as valid float8/int input, and pg's generic escaping per element is slow.
      await c.run('INSERT INTO samples (measurement_id, idx, value) SELECT * FROM unnest(?::bigint[], ?::integer[], ?::float8[])', [
        `{${mids.join(',')}}`,
        `{${idxs.join(',')}}`,
        `{${vals.join(',')}}`,
      ]);
      written += vals.length;
      mids = [];
      idxs = [];
      vals = [];
      progress(written);
    };
    for (let k = 0; k < measurements.length; k++) {
      const values = measurements[k].values;
      for (let i = 0; i < values.length; i++) {
        mids.push(ids[k]);
        idxs.push(i);
        vals.push(values[i]);
        if (vals.length >= SAMPLE_BATCH) await flush();
      }
    }
    await flush();
  }

  /** encodeMeasurements is encodeCopyRows (pg-copy.ts), ahead of the run's transaction. */
  protected override encodeMeasurements(rows: readonly MeasurementRow[], timeMs: number): EncodedRows {
    return encodeCopyRows(rows, timeMs);
  }

  protected async insertMeasurements(c: PgConn, runId: number, timeMs: number, rows: readonly MeasurementRow[], encoded: unknown, wantIds: boolean): Promise<number[] | undefined> {
    if (rows.length === 0) return wantIds ? [] : undefined;
    const { data, runAt, seriesAt } = (encoded as EncodedRows | undefined) ?? this.encodeMeasurements(rows, timeMs);
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let k = 0; k < rows.length; k++) {
      dv.setInt32(runAt[k] + 4, Math.floor(runId / 2 ** 32));
      dv.setUint32(runAt[k] + 8, runId >>> 0);
      dv.setInt32(seriesAt[k] + 4, Math.floor(rows[k].seriesId / 2 ** 32));
      dv.setUint32(seriesAt[k] + 8, rows[k].seriesId >>> 0);
    }
    c.written += rows.length;
    const copy = c.copyIn(`COPY measurements (${COPY_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`, data);
    // Not waited for unless its ids are needed: the next run is parsed and encoded while the server writes this one.
    if (!wantIds) {
      c.defer(copy);
      return undefined;
    }
    await copy;
    const ids = new Array<number>(rows.length);
    for (const r of await c.all('SELECT id, ordinal FROM measurements WHERE run_id = ?', [runId])) ids[Number(r.ordinal)] = Number(r.id);
    return ids;
  }

  protected async windowRows(c: PgConn, seriesIds: readonly number[], limit: number | null, valuesLimit: number, sinceMs: number | null = null): Promise<WindowRow[]> {
    // A lateral index range per series, all series of the batch in one round trip.
    return (await c.arrays(
      `SELECT w.series_id, w.id, w.run_id, w.unit, w.better, w.n, w.median, w.vals FROM unnest(?::bigint[]) WITH ORDINALITY AS s(id, k) CROSS JOIN LATERAL (
         SELECT m.series_id, m.id, m.run_id, m.time_ms, m.unit, m.better, m.n, m.median, ${windowValuesColumn(limit, valuesLimit)} AS vals
         FROM measurements m WHERE m.series_id = s.id${sinceMs === null ? '' : ' AND m.time_ms >= ?::bigint'} ORDER BY m.time_ms DESC, m.id DESC LIMIT ?) w
       ORDER BY s.k, w.time_ms DESC, w.id DESC`,
      [`{${seriesIds.join(',')}}`, ...(sinceMs === null ? [] : [sinceMs]), limit],
    )) as WindowRow[];
  }

  protected async historyColumns(c: PgConn, seriesIds: readonly number[]): Promise<Map<number, HistoryColumns>> {
    // Aggregated by the server into one binary string per column and series (big-endian int8, int4, float8; NaN for NULL):
    // no number printed or parsed as text (the driver's per-row cost, then text aggregation, was most of a chart read).
    // The nights come from an ordered subquery, which aggregates see in its order.
    const rows = await c.arrays(
      `SELECT s.id, h.run, h.n, h.median, h.lo, h.hi FROM unnest(?::bigint[]) AS s(id) CROSS JOIN LATERAL (
         SELECT string_agg(int8send(run_id), ''::bytea) AS run, string_agg(int4send(n), ''::bytea) AS n, string_agg(float8send(coalesce(median, 'NaN')), ''::bytea) AS median,
                string_agg(float8send(coalesce(lo, 'NaN')), ''::bytea) AS lo, string_agg(float8send(coalesce(hi, 'NaN')), ''::bytea) AS hi
         FROM (SELECT run_id, n, median, lo, hi, time_ms FROM measurements WHERE series_id = s.id ${HISTORY_ORDER}) nights) h
       WHERE h.run IS NOT NULL`,
      [`{${seriesIds.join(',')}}`],
    );
    const out = new Map<number, HistoryColumns>();
    for (const [id, run, n, median, lo, hi] of rows as [string, Buffer, Buffer, Buffer, Buffer, Buffer][]) {
      const count = run.byteLength / 8;
      const h: HistoryColumns = { run: new Float64Array(count), n: new Int32Array(count), median: new Float64Array(count), lo: new Float64Array(count), hi: new Float64Array(count) };
      const view = (b: Buffer) => new DataView(b.buffer, b.byteOffset, b.byteLength);
      const [r, nn, md, l, hh] = [view(run), view(n), view(median), view(lo), view(hi)];
      for (let k = 0; k < count; k++) {
        h.run[k] = r.getInt32(8 * k) * 2 ** 32 + r.getUint32(8 * k + 4);
        h.n[k] = nn.getInt32(4 * k);
        h.median[k] = md.getFloat64(8 * k);
        h.lo[k] = l.getFloat64(8 * k);
        h.hi[k] = hh.getFloat64(8 * k);
      }
      out.set(Number(id), h);
    }
    return out;
  }

  protected async readSamples(c: PgConn, ids: readonly number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (let start = 0; start < ids.length; start += ID_BATCH) {
      const batch = ids.slice(start, start + ID_BATCH);
      const rows = await c.arrays('SELECT measurement_id, value FROM samples WHERE measurement_id = ANY(?::bigint[]) ORDER BY measurement_id, idx', [`{${batch.join(',')}}`]);
      for (const [mid, value] of rows) {
        const id = Number(mid);
        let list = out.get(id);
        if (!list) out.set(id, (list = []));
        list.push(Number(value));
      }
    }
    return out;
  }

  /**
   * afterIngest vacuums after a big ingest: until VACUUM marks the new pages
   * all-visible, PostgreSQL cannot answer a chart's query from the covering
   * index alone and reads the table row by row. A role that does not own the
   * tables gets a warning from the server, no error; autovacuum does it later.
   */
  protected override async afterIngest(rows: number): Promise<void> {
    if (rows < VACUUM_AFTER_ROWS || this.closed) return;
    try {
      await this.pool.query('VACUUM (ANALYZE) measurements, series');
    } catch {
      // Tidying only: the ingest is committed either way.
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError(`the PostgreSQL store ${this.location} is closed`);
  }

  private wrap(error: unknown): unknown {
    scrubError(error, { secrets: this.secrets });
    if (error instanceof StoreError) return error;
    const e = error as { message?: string; code?: string };
    const text = e.message || e.code || String(error);
    return new StoreError(`PostgreSQL store ${this.location}: ${redact(text, { secrets: this.secrets })}`, { cause: error });
  }
}

function conn(client: pg.PoolClient): PgConn {
  const deferred: Promise<void>[] = [];
  let failure: { error: unknown } | undefined;
  return {
    written: 0,
    defer: (statement) => {
      deferred.push(statement.then(() => undefined, (error: unknown) => {
        failure ??= { error };
      }));
    },
    settle: async () => {
      await Promise.all(deferred.splice(0));
      if (failure) throw failure.error;
    },
    failure: () => failure?.error,
    copyIn: (sql, data) =>
      new Promise<void>((resolve, reject) => {
        const stream = client.query(copyFrom(sql));
        stream.on('finish', resolve);
        stream.on('error', reject);
        stream.end(data);
      }),
    all: async (sql, params = []) => (await client.query(numbered(sql), params as SqlValue[])).rows as Row[],
    run: async (sql, params = []) => (await client.query(numbered(sql), params as SqlValue[])).rowCount ?? 0,
    arrays: async (sql, params = []) => (await client.query({ text: numbered(sql), values: params as SqlValue[], rowMode: 'array' })).rows as unknown[][],
    exec: async (sql) => {
      await client.query(sql);
    },
  };
}

/**
 * PgConn adds array rows, which skip building an object per sample row, and
 * statements not waited for: `defer` takes one the connection runs in its
 * turn, `settle` waits for them all (the transaction does before COMMIT)
 * and throws the first one's error, `failure` is that error so far.
 */
interface PgConn extends SqlConn {
  arrays(sql: string, params?: readonly SqlValue[]): Promise<unknown[][]>;
  /** written counts the measurement rows this transaction wrote. */
  written: number;
  /** copyIn runs `COPY ... FROM STDIN` with `data` as its whole body. */
  copyIn(sql: string, data: Buffer): Promise<void>;
  defer(statement: Promise<unknown>): void;
  settle(): Promise<void>;
  failure(): unknown;
}

/** numbered turns the shared `?` placeholders into PostgreSQL's `$1, $2, ...` (no shared SQL has a literal `?`). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function connectReason(error: unknown, timeout: number): string {
  const e = error as { message?: string; code?: string; errors?: { message?: string }[] };
  if (/timeout/i.test(e.message ?? '')) return `no answer within ${timeout} ms`;
  if (e.code === 'ECONNREFUSED') return 'connection refused';
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return 'host not found';
  // Node reports a refused dual-stack connect as an AggregateError with an empty message.
  return e.message || e.errors?.map((x) => x.message).join('; ') || e.code || String(error);
}

function connectFix(error: unknown): string {
  const e = error as { message?: string; code?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'Nothing listens at that host and port: start PostgreSQL there, or fix the host/port in the URL.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'Fix the host name in the URL.';
    case '28P01':
    case '28000':
      return 'Fix the user name and password in the URL (or the server\'s pg_hba.conf).';
    case '3D000':
      return 'Create the database (createdb NAME) or fix the database name at the end of the URL.';
    case '42501':
      return 'The user lacks a privilege benchbot needs: grant it CREATE and USAGE on the schema, or use another user.';
  }
  if (/timeout/i.test(e.message ?? '')) return 'Check that the host is reachable (firewall, VPN) and the port is right.';
  return 'Check the URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE.';
}
