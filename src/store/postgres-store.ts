import pg from 'pg';
import type { Measurement } from '../model/measurement.ts';
import type { Dialect } from './migrations.ts';
import { connectionSecrets, redact, scrubError } from './redact.ts';
import { HISTORY_ORDER, SqlStore, windowValuesColumn, type HistoryColumns, type MeasurementRow, type Row, type SqlConn, type SqlValue, type WindowRow } from './sql-store.ts';
import { StoreError, type StoreOptions } from './store.ts';

/** DEFAULT_CONNECT_TIMEOUT_MS bounds how long opening a PostgreSQL store may hang on an unreachable host. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Samples per INSERT (and per onSamples report): a few MB of array text per statement. */
const SAMPLE_BATCH = 50_000;
/** VACUUM_AFTER_ROWS is the smallest ingest (in measurements) after which the adapter vacuums. */
const VACUUM_AFTER_ROWS = 100_000;
/** Measurement rows per INSERT. */
const MEASUREMENT_BATCH = 5000;
/** Measurement ids per sample query. */
const ID_BATCH = 1000;
/** An arbitrary constant naming benchbot's migration lock among advisory locks. */
const MIGRATION_LOCK_ID = 4_210_771_337;

/**
 * PostgresStore is the shared-server adapter over `pg`. Reads borrow a
 * pooled connection; each write is one transaction on one connection.
 * Samples go in as three arrays per statement through `unnest`, which is an
 * order of magnitude faster than row-by-row inserts and needs no COPY.
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
    const pool = new pg.Pool({ connectionString: url, max: options.maxConnections ?? 4, connectionTimeoutMillis: timeout });
    // An idle client dropped by the server (restart, admin kill) must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
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
    try {
      await client.query('BEGIN');
      if (lock) await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
      const result = await fn(conn(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable: drop it from the pool instead of reusing it.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw this.wrap(error);
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

  protected async insertMeasurements(c: SqlConn, runId: number, timeMs: number, rows: readonly MeasurementRow[]): Promise<number[]> {
    const ids = new Array<number>(rows.length);
    for (let start = 0; start < rows.length; start += MEASUREMENT_BATCH) {
      const chunk = rows.slice(start, start + MEASUREMENT_BATCH);
      // One statement per batch through unnest; RETURNING order is not promised, so ids are matched by ordinal.
      // The packed samples travel as one binary parameter cut by offset and length: a bytea[] literal is hex text, twice the bytes for the server to parse.
      const blobs: Uint8Array[] = [];
      const offsets: number[] = [];
      const lengths: (number | null)[] = [];
      let offset = 1;
      for (const r of chunk) {
        offsets.push(offset);
        lengths.push(r.vals === null ? null : r.vals.byteLength);
        if (r.vals !== null) {
          blobs.push(r.vals);
          offset += r.vals.byteLength;
        }
      }
      const returned = await c.all(
        `INSERT INTO measurements (run_id, ordinal, benchmark, metric, unit, better, n, median, lo, hi, series_id, time_ms, vals)
         SELECT ?::bigint, o, b, m, u, bt, n, md, l, h, s, ?::bigint, CASE WHEN vl IS NULL THEN NULL ELSE substring(?::bytea FROM vo FOR vl) END
         FROM unnest(?::integer[], ?::text[], ?::text[], ?::text[], ?::text[], ?::integer[], ?::float8[], ?::float8[], ?::float8[], ?::bigint[], ?::integer[], ?::integer[]) AS t(o, b, m, u, bt, n, md, l, h, s, vo, vl)
         RETURNING id, ordinal`,
        [
          runId, timeMs, Buffer.concat(blobs),
          `{${chunk.map((r) => r.ordinal).join(',')}}`,
          textArray(chunk.map((r) => r.benchmark)),
          textArray(chunk.map((r) => r.metric)),
          textArray(chunk.map((r) => r.unit)),
          textArray(chunk.map((r) => r.better)),
          `{${chunk.map((r) => r.n).join(',')}}`,
          floatArray(chunk.map((r) => r.median)),
          floatArray(chunk.map((r) => r.lo)),
          floatArray(chunk.map((r) => r.hi)),
          `{${chunk.map((r) => r.seriesId).join(',')}}`,
          `{${offsets.join(',')}}`,
          `{${lengths.map((l) => (l === null ? 'NULL' : l)).join(',')}}`,
        ],
      );
      for (const r of returned) ids[Number(r.ordinal)] = Number(r.id);
    }
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
    // Aggregated by the server, one text per series and one sort: the driver's per-row cost was most of a chart read.
    const rows = await c.arrays(
      `SELECT s.id, h.nights FROM unnest(?::bigint[]) AS s(id) CROSS JOIN LATERAL (
         SELECT string_agg(run_id || ' ' || n || ' ' || coalesce(median::text, '') || ' ' || coalesce(lo::text, '') || ' ' || coalesce(hi::text, ''), ',' ${HISTORY_ORDER}) AS nights
         FROM measurements WHERE series_id = s.id) h
       WHERE h.nights IS NOT NULL`,
      [`{${seriesIds.join(',')}}`],
    );
    const out = new Map<number, HistoryColumns>();
    const num = (field: string) => (field === '' ? NaN : Number(field));
    for (const [id, text] of rows) {
      const nights = String(text).split(',');
      const h: HistoryColumns = { run: new Float64Array(nights.length), n: new Int32Array(nights.length), median: new Float64Array(nights.length), lo: new Float64Array(nights.length), hi: new Float64Array(nights.length) };
      nights.forEach((night, k) => {
        const [run, n, md, lo, hi] = night.split(' ');
        h.run[k] = Number(run);
        h.n[k] = Number(n);
        h.median[k] = num(md);
        h.lo[k] = num(lo);
        h.hi[k] = num(hi);
      });
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
  return {
    all: async (sql, params = []) => (await client.query(numbered(sql), params as SqlValue[])).rows as Row[],
    run: async (sql, params = []) => (await client.query(numbered(sql), params as SqlValue[])).rowCount ?? 0,
    arrays: async (sql, params = []) => (await client.query({ text: numbered(sql), values: params as SqlValue[], rowMode: 'array' })).rows as unknown[][],
    exec: async (sql) => {
      await client.query(sql);
    },
  };
}

/** PgConn adds array rows, which skip building an object per sample row. */
interface PgConn extends SqlConn {
  arrays(sql: string, params?: readonly SqlValue[]): Promise<unknown[][]>;
}

/** floatArray is a PostgreSQL array literal of numbers (JavaScript's shortest round-trip form) and NULLs. */
function floatArray(values: readonly (number | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : String(v))).join(',')}}`;
}

/** textArray is a PostgreSQL array literal of strings, each quoted (validation already refused NUL). */
function textArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`).join(',')}}`;
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
