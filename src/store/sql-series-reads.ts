/**
 * sql-series-reads: reads by series in batches, newest nights first, for the
 * scan and the dashboard's charts (seriesWindows, seriesHistories, listSeries);
 * the adapters implement the dialect-specific reads these call.
 */
import type { Fingerprint } from '../model/fingerprint.ts';
import type { RunRole } from '../model/run.ts';
import { unpackValues } from './packed-values.ts';
import { Where, type Row, type SqlAccess, type SqlConn } from './sql-conn.ts';
import {
  StoreError,
  type HistoryQuery,
  type RunRef,
  type SeriesHistory,
  type SeriesInfo,
  type SeriesListQuery,
  type SeriesPoint,
  type SeriesWindow,
  type WindowQuery,
} from './store.ts';

/** DEFAULT_WINDOW_BATCH is how many series seriesWindows reads per batch. */
export const DEFAULT_WINDOW_BATCH = 500;

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
  harness: string;
  fingerprintId: number;
}

export async function* seriesWindows(db: SqlAccess, query: WindowQuery): AsyncIterable<SeriesWindow[]> {
  const nights = query.nights ?? null;
  const valuesNights = query.valuesNights ?? 0;
  const batch = query.batch ?? DEFAULT_WINDOW_BATCH;
  for (const [name, v] of [['nights', nights ?? 1], ['valuesNights', valuesNights === Infinity ? 1 : valuesNights + 1], ['batch', batch]] as const) {
    if (!Number.isInteger(v) || v < 1) throw new StoreError(`seriesWindows: ${name} must be a positive whole number, got ${name === 'nights' ? nights : name === 'batch' ? batch : valuesNights}`);
  }
  const sinceMs = query.since === undefined ? null : Date.parse(query.since);
  if (sinceMs !== null && !Number.isFinite(sinceMs)) throw new StoreError(`seriesWindows: since must be an ISO 8601 time, got ${JSON.stringify(query.since)}`);
  const all = await db.read((c) => seriesRows(c, { ...query, role: query.role }, query.series));
  const runs = new Map<number, RunInfo>();
  const fingerprints = new Map<number, Fingerprint>();
  for (let start = 0; start < all.length; start += batch) {
    const slice = all.slice(start, start + batch);
    yield await db.read(async (c) => {
      const ids = slice.map((r) => Number(r.id));
      const marks = ids.map(() => '?').join(', ');
      const summary = new Map<number, { points: number; firstMs: number }>();
      for (const r of await c.all(`SELECT series_id, count(*) AS points, min(time_ms) AS first_ms FROM measurements WHERE series_id IN (${marks}) GROUP BY series_id`, ids)) {
        summary.set(Number(r.series_id), { points: Number(r.points), firstMs: Number(r.first_ms) });
      }
      const rows = await db.windowRows(c, ids, nights, valuesNights, sinceMs);
      await loadRuns(c, rows.map((r) => Number(r[2])), runs, query.fingerprints ? fingerprints : undefined);
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
      const old = wanted.size > 0 ? await db.readSamples(c, [...wanted]) : new Map<number, number[]>();
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
            runId: run.key, sha: run.sha, role: run.role, time: run.time, harness: run.harness, machineKey, benchmark, metric,
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

export async function listSeries(db: SqlAccess, query: SeriesListQuery): Promise<SeriesInfo[]> {
  return db.read(async (c) => {
    const rows = await seriesRows(c, query);
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
async function seriesRows(c: SqlConn, query: SeriesListQuery, ids?: readonly number[]): Promise<Row[]> {
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

export async function* seriesHistories(db: SqlAccess, query: HistoryQuery): AsyncIterable<SeriesHistory[]> {
  const valuesNights = query.valuesNights ?? 0;
  const batch = query.batch ?? DEFAULT_WINDOW_BATCH;
  if (!Number.isInteger(valuesNights) || valuesNights < 0) throw new StoreError(`seriesHistories: valuesNights must be a whole number, got ${valuesNights}`);
  if (!Number.isInteger(batch) || batch < 1) throw new StoreError(`seriesHistories: batch must be a positive whole number, got ${batch}`);
  const where = new Where();
  where.eq('role', query.role).eq('repo', query.repo).eq('branch', query.branch).eq('benchmark', query.benchmark).eq('metric', query.metric).eq('machine_key', query.machineKey);
  const all = await db.read((c) => c.all(`SELECT id, repo, branch, role, machine_key, benchmark, metric FROM series ${where.sql()} ORDER BY id`, where.params));
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
    const read = db.read(async (c) => {
      const ids = slice.map((r) => Number(r.id));
      const columns = await db.historyColumns(c, ids);
      const newest = await db.windowRows(c, ids, Math.max(1, valuesNights), valuesNights);
      const runIds = new Set<number>();
      for (const h of columns.values()) for (const id of h.run) runIds.add(id);
      await loadRuns(c, runIds, runs, fingerprints);
      const newestOf = new Map<number, WindowRow[]>();
      for (const r of newest) {
        const id = Number(r[0]);
        if (!newestOf.has(id)) newestOf.set(id, []);
        (newestOf.get(id) as WindowRow[]).push(r);
      }
      const old = new Set<number>();
      for (const list of newestOf.values()) for (const r of list.slice(0, valuesNights)) if (r[7] === null && Number(r[5]) > 0) old.add(Number(r[1]));
      const oldValues = old.size > 0 ? await db.readSamples(c, [...old]) : new Map<number, number[]>();
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
async function loadRuns(c: SqlConn, runIds: Iterable<number>, runs: Map<number, RunInfo>, fingerprints: Map<number, Fingerprint> | undefined): Promise<void> {
  const wanted = [...new Set(runIds)];
  const missing = wanted.filter((id) => !runs.has(id));
  for (let i = 0; i < missing.length; i += 500) {
    const ids = missing.slice(i, i + 500);
    for (const r of await c.all(`SELECT id, key, sha, role, time, harness, fingerprint_id FROM runs WHERE id IN (${ids.map(() => '?').join(', ')})`, ids)) {
      runs.set(Number(r.id), { key: String(r.key), sha: String(r.sha), role: r.role as RunRole, time: String(r.time), harness: String(r.harness), fingerprintId: Number(r.fingerprint_id) });
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
