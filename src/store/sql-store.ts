import type { Measurement } from '../model/measurement.ts';
import type { RunRole } from '../model/run.ts';
import { median } from '../stats/order-statistics.ts';
import { MIGRATIONS, SCHEMA_MIGRATIONS_DDL, type Dialect } from './migrations.ts';
import { canonicalJson, fingerprintContentKey, fingerprintKey, runKey } from './run-key.ts';
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
  type StateEntry,
  type Store,
  type StoreCounts,
  type StoreOptions,
  type StoredRun,
} from './store.ts';
import { validateRun } from './validate-run.ts';

/** SqlValue is what the adapters bind: both drivers take these as they are. */
export type SqlValue = string | number | null;
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
  /** insertSamples writes every value of the measurements (ids in the same order), calling progress per batch. */
  protected abstract insertSamples(c: SqlConn, ids: readonly number[], measurements: readonly Measurement[], progress: (written: number) => void): Promise<void>;
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
    const prepared = runs.map((r, i) => {
      const run = validateRun(r, (path, message) => {
        throw new StoreError(`invalid run${runs.length > 1 ? ` #${i + 1}` : ''}: ${path}: ${message}`);
      });
      return { run, key: runKey(run), fpKey: fingerprintContentKey(run.fingerprint), machineKey: fingerprintKey(run.fingerprint), fpBody: canonicalJson(run.fingerprint) };
    });
    const total = prepared.reduce((sum, p) => sum + p.run.measurements.reduce((s, m) => s + m.values.length, 0), 0);
    return this.write(async (c) => {
      const ids: string[] = [];
      let created = 0;
      let written = 0;
      for (const { run, key, fpKey, machineKey, fpBody } of prepared) {
        ids.push(key);
        await c.run('INSERT INTO fingerprints (key, machine_key, body) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING', [fpKey, machineKey, fpBody]);
        const [fp] = await c.all('SELECT id FROM fingerprints WHERE key = ?', [fpKey]);
        const inserted = await c.all(
          `INSERT INTO runs (key, repo, branch, sha, ref, role, time, time_ms, harness, fingerprint_id, warnings, hints)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING RETURNING id`,
          [key, run.repo ?? null, run.branch ?? null, run.sha, run.ref ?? null, run.role, run.time, Date.parse(run.time), run.harness, Number(fp.id), JSON.stringify(run.warnings), JSON.stringify(run.hints)],
        );
        if (inserted.length === 0) {
          // Already stored: a retry or a re-import changes nothing.
          continue;
        }
        created++;
        const runId = Number(inserted[0].id);
        const measurementIds: number[] = [];
        for (let i = 0; i < run.measurements.length; i++) {
          const m = run.measurements[i];
          const med = m.values.length === 0 ? null : median(m.values);
          const [row] = await c.all(
            'INSERT INTO measurements (run_id, ordinal, benchmark, metric, unit, better, n, median) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id',
            [runId, i, m.benchmark, m.metric, m.unit, m.better, m.values.length, med],
          );
          measurementIds.push(Number(row.id));
        }
        const before = written;
        await this.insertSamples(c, measurementIds, run.measurements, (n) => {
          written = before + n;
          this.onSamples?.(written, total);
        });
      }
      return { ids, created };
    });
  }

  async getRun(id: string): Promise<StoredRun | undefined> {
    return this.read(async (c) => {
      const [r] = await c.all(
        `SELECT r.id, r.key, r.repo, r.branch, r.sha, r.ref, r.role, r.time, r.harness, r.warnings, r.hints, f.machine_key AS fp_key, f.body AS fp_body
         FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id WHERE r.key = ?`,
        [id],
      );
      if (!r) return undefined;
      const rows = await c.all('SELECT id, benchmark, metric, unit, better FROM measurements WHERE run_id = ? ORDER BY ordinal', [Number(r.id)]);
      const values = await this.readSamples(c, rows.map((m) => Number(m.id)));
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
        fingerprintKey: String(r.fp_key),
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
        `SELECT r.key, r.repo, r.branch, r.sha, r.ref, r.role, r.time, r.harness, f.machine_key AS fp_key,
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
          fingerprintKey: String(r.fp_key),
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
    where.eq('r.repo', query.repo).eq('r.sha', query.sha).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.fingerprintKey);
    return this.read(async (c) => {
      const rows = await c.all(`SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key AS fp_key, m.benchmark, m.metric, m.unit, m.better ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`, where.params);
      const values = await this.readSamples(c, rows.map((r) => Number(r.id)));
      return rows.map((r) => ({
        runId: String(r.key),
        sha: String(r.sha),
        role: r.role as RunRole,
        time: String(r.time),
        fingerprintKey: String(r.fp_key),
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
    where.eq('r.repo', query.repo).eq('r.branch', query.branch).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.fingerprintKey);
    return this.read(async (c) => {
      const rows = await c.all(
        `SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key AS fp_key, ${query.fingerprints ? 'f.body AS fp_body, ' : ''}m.benchmark, m.metric, m.unit, m.better, m.n, m.median ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`,
        where.params,
      );
      const values = query.values ? await this.readSamples(c, rows.map((r) => Number(r.id))) : undefined;
      return rows.map((r) => {
        const p: SeriesPoint = {
          runId: String(r.key),
          sha: String(r.sha),
          role: r.role as RunRole,
          time: String(r.time),
          fingerprintKey: String(r.fp_key),
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
                (SELECT count(*) FROM measurements) AS measurements, (SELECT count(*) FROM samples) AS samples,
                (SELECT count(*) FROM state) AS state`,
      );
      return { runs: Number(r.runs), fingerprints: Number(r.fingerprints), measurements: Number(r.measurements), samples: Number(r.samples), state: Number(r.state) };
    });
  }
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
