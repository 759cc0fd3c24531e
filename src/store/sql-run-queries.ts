/**
 * sql-run-queries: reads of whole runs and of measurements by run (getRun,
 * listRuns, samplesFor, series), for the CLI, the action and exports.
 */
import type { RunRole } from '../model/run.ts';
import { unpackValues } from './packed-values.ts';
import { Where, type Row, type SqlAccess, type SqlConn } from './sql-conn.ts';
import { StoreError, type RunQuery, type RunSamples, type RunSummary, type SampleQuery, type SeriesPoint, type SeriesQuery, type StoredRun } from './store.ts';

/** DEFAULT_LIST_LIMIT is how many runs listRuns returns without a limit. */
export const DEFAULT_LIST_LIMIT = 100;

const MEASUREMENT_FROM = 'FROM measurements m JOIN runs r ON r.id = m.run_id JOIN fingerprints f ON f.id = r.fingerprint_id';

export async function getRun(db: SqlAccess, id: string): Promise<StoredRun | undefined> {
  return db.read(async (c) => {
    const [r] = await c.all(
      `SELECT r.id, r.key, r.repo, r.branch, r.sha, r.ref, r.role, r.time, r.harness, r.warnings, r.hints, f.machine_key, f.body AS fp_body
       FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id WHERE r.key = ?`,
      [id],
    );
    if (!r) return undefined;
    const rows = await c.all('SELECT id, benchmark, metric, unit, better, vals FROM measurements WHERE run_id = ? ORDER BY ordinal', [Number(r.id)]);
    const values = await valuesOf(db, c, rows);
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

export async function listRuns(db: SqlAccess, query: RunQuery = {}): Promise<RunSummary[]> {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new StoreError(`listRuns: limit must be a positive integer, got ${limit}`);
  const where = new Where();
  where.eq('r.repo', query.repo).eq('r.branch', query.branch).eq('r.role', query.role).eq('r.sha', query.sha);
  if (query.before !== undefined) {
    const ms = Date.parse(query.before);
    if (!Number.isFinite(ms)) throw new StoreError(`listRuns: before must be an ISO 8601 time, got ${JSON.stringify(query.before)}`);
    where.add('r.time_ms < ?', ms);
  }
  return db.read(async (c) => {
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

export async function listRunIds(db: SqlAccess): Promise<string[]> {
  return db.read(async (c) => (await c.all('SELECT key FROM runs ORDER BY time_ms, id')).map((r) => String(r.key)));
}

export async function samplesFor(db: SqlAccess, query: SampleQuery): Promise<RunSamples[]> {
  const where = new Where();
  where.eq('r.repo', query.repo).eq('r.sha', query.sha).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.machineKey);
  return db.read(async (c) => {
    const rows = await c.all(`SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key, m.benchmark, m.metric, m.unit, m.better, m.vals ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`, where.params);
    const values = await valuesOf(db, c, rows);
    return rows.map((r) => ({ ...measurementOfRun(r), values: values.get(Number(r.id)) ?? [] }));
  });
}

export async function series(db: SqlAccess, query: SeriesQuery): Promise<SeriesPoint[]> {
  const where = new Where();
  where.eq('r.repo', query.repo).eq('r.branch', query.branch).eq('r.role', query.role).eq('m.benchmark', query.benchmark).eq('m.metric', query.metric).eq('f.machine_key', query.machineKey);
  // Through the series table and the per-series index: measurements have no index by name.
  if (query.benchmark !== undefined) where.add('m.series_id IN (SELECT id FROM series WHERE benchmark = ?)', query.benchmark);
  if (query.since !== undefined) {
    const ms = Date.parse(query.since);
    if (!Number.isFinite(ms)) throw new StoreError(`series: since must be an ISO 8601 time, got ${JSON.stringify(query.since)}`);
    where.add('r.time_ms >= ?', ms);
  }
  return db.read(async (c) => {
    const rows = await c.all(
      `SELECT m.id, r.key, r.sha, r.role, r.time, f.machine_key, ${query.fingerprints ? 'f.body AS fp_body, ' : ''}m.benchmark, m.metric, m.unit, m.better, m.n, m.median${query.values ? ', m.vals' : ''} ${MEASUREMENT_FROM} ${where.sql()} ORDER BY r.time_ms, r.id, m.ordinal`,
      where.params,
    );
    const values = query.values ? await valuesOf(db, c, rows) : undefined;
    return rows.map((r) => {
      const p: SeriesPoint = { ...measurementOfRun(r), n: Number(r.n), median: r.median === null ? null : Number(r.median) };
      if (values) p.values = values.get(Number(r.id)) ?? [];
      if (query.fingerprints) p.fingerprint = JSON.parse(String(r.fp_body));
      return p;
    });
  });
}

/** measurementOfRun reads what samplesFor and series both select of a measurement row: its run, machine and series. */
function measurementOfRun(r: Row): Omit<RunSamples, 'values'> {
  return {
    runId: String(r.key),
    sha: String(r.sha),
    role: r.role as RunRole,
    time: String(r.time),
    machineKey: String(r.machine_key),
    benchmark: String(r.benchmark),
    metric: String(r.metric),
    unit: String(r.unit),
    better: r.better === 'higher' ? 'higher' : 'lower',
  };
}

/** valuesOf returns the raw samples of measurement rows (with `id`, `vals`): packed ones decoded, older ones from the samples table. */
async function valuesOf(db: SqlAccess, c: SqlConn, rows: readonly Row[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  const unpacked: number[] = [];
  for (const r of rows) {
    if (r.vals === null || r.vals === undefined) unpacked.push(Number(r.id));
    else out.set(Number(r.id), unpackValues(r.vals as Uint8Array));
  }
  if (unpacked.length > 0) for (const [id, values] of await db.readSamples(c, unpacked)) out.set(id, values);
  return out;
}
