/**
 * sql-conn: what the shared SQL (sql-ingest, sql-run-queries, sql-series-reads,
 * sql-state) is written against: a connection, the store's dialect hooks, and
 * the filter builder.
 */
import type { Measurement } from '../model/measurement.ts';
import type { MeasurementRow } from './sql-ingest.ts';
import type { HistoryColumns, WindowRow } from './sql-series-reads.ts';
import type { StoreOptions } from './store.ts';

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

/**
 * SqlAccess is what the shared queries need from a SqlStore: its
 * connections and the hooks where the dialects differ (SqlStore documents
 * each), handed to the query modules without making them public.
 */
export interface SqlAccess {
  read<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  write<T>(fn: (c: SqlConn) => Promise<T>): Promise<T>;
  insertSamples(c: SqlConn, ids: readonly number[], measurements: readonly Measurement[], progress: (written: number) => void): Promise<void>;
  insertMeasurements(c: SqlConn, runId: number, timeMs: number, rows: readonly MeasurementRow[], encoded: unknown, wantIds: boolean): Promise<number[] | undefined>;
  encodeMeasurements(rows: readonly MeasurementRow[], timeMs: number): unknown;
  afterIngest(rows: number): Promise<void>;
  windowRows(c: SqlConn, seriesIds: readonly number[], limit: number | null, valuesLimit: number, sinceMs?: number | null): Promise<WindowRow[]>;
  historyColumns(c: SqlConn, seriesIds: readonly number[]): Promise<Map<number, HistoryColumns>>;
  readSamples(c: SqlConn, ids: readonly number[]): Promise<Map<number, number[]>>;
  readonly onSamples: StoreOptions['onSamples'];
}

/** Where collects `AND`ed conditions with their parameters; undefined filters are skipped. */
export class Where {
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
