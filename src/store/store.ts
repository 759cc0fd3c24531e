/**
 * Store is the port through which benchbot keeps history: runs, the
 * fingerprints of the machines that made them, every raw sample, and a small
 * key-value `state` table for the app. Two adapters implement it with one
 * logical schema: SQLite through the built-in `node:sqlite` (the embedded
 * default, `.benchbot/benchbot.db`) and PostgreSQL through `pg`. `openStore`
 * (open-store.ts) picks one from a URL.
 *
 * Schema (migrations 1 and 2; `schema_migrations(version, name, applied_at)`
 * records what ran):
 *
 * - `fingerprints(id, key UNIQUE, machine_key, body)`: one row per distinct
 *   fingerprint content; `key` is the SHA-256 of its canonical JSON (sorted
 *   keys), `body` that JSON. `machine_key` is the machine key
 *   (model/fingerprint.ts machineKey, the SHA-256 of MACHINE_KEY_FIELDS): it
 *   is the `machineKey` the port reads and filters by, so runs on one machine
 *   form one series whatever their load average or tool versions.
 * - `runs(id, key UNIQUE, repo, branch, sha, ref, role, time, time_ms,
 *   harness, fingerprint_id, warnings, hints)`: `key` is the run id the port
 *   hands out. It is the caller's `key` when given (a client-supplied uuid),
 *   else the SHA-256 of the run's canonical JSON, so ingesting the same run
 *   twice (a retry, a re-import) stores it once. `time` keeps the ISO string
 *   as given; `time_ms` (epoch ms) orders runs, because ISO strings with
 *   different offsets do not sort as text. `warnings` and `hints` are JSON.
 * - `series(id, repo, branch, role, machine_key, benchmark, metric)`: each
 *   history named once (no repo or branch is stored as ''); insert-only.
 * - `measurements(id, run_id, ordinal, benchmark, metric, unit, better, n,
 *   median, series_id, time_ms, vals, lo, hi)`: one row per Measurement in
 *   its run's order; `n`, `median` and its 95% order-statistic CI `lo`..`hi`
 *   (stats/quantile-ci.ts; null before migration 2) are precomputed for the
 *   nightly series and the dashboard,
 *   `time_ms` copies the run's, and (series_id, time_ms) is indexed so
 *   the newest nights of one series are one index range. `vals` holds the
 *   raw samples packed (packed-values.ts) for measurements of up to
 *   PACK_LIMIT samples.
 * - `samples(measurement_id, idx, value)`: the raw values of bigger
 *   measurements and of those stored before migration 2, one row each,
 *   `idx` its position (repetition / round) in the measurement; primary key
 *   (measurement_id, idx), no foreign key (see migrations.ts).
 * - `state(key, value, version, updated_at)`: JSON text values with a version
 *   that starts at 1 and grows by one per write, for compare-and-set.
 *
 * Transactions: an ingest (one run or many) is a single transaction covering
 * fingerprint, run, measurements and samples, so a process killed mid-write
 * leaves the previous state. SQLite runs in WAL mode with `synchronous =
 * NORMAL` (a killed process never loses a commit; only a power cut may lose
 * the last one), `busy_timeout` 5000 ms by default, foreign keys on, and
 * takes write transactions with `BEGIN IMMEDIATE` so concurrent writers
 * queue on the lock instead of failing on upgrade. Within one process the
 * SQLite adapter serializes its calls, since one connection cannot hold two
 * transactions. PostgreSQL uses a pool, READ COMMITTED, and `ON CONFLICT` on
 * the natural keys so two writers of the same fingerprint or run both succeed.
 * Migrations run in one transaction each under a lock (`BEGIN IMMEDIATE`, or
 * a PostgreSQL advisory lock), so processes that open a fresh store together
 * apply them once.
 *
 * Queries: `listRuns` is newest first; `samplesFor` and `series` are oldest
 * first (time, then insertion order, then the measurement's position).
 * Filters left undefined do not filter: `repo: undefined` means any repo.
 */
import type { Direction, Measurement } from '../model/measurement.ts';
import type { Run, RunRole } from '../model/run.ts';
import type { Fingerprint } from '../model/fingerprint.ts';

/** IngestRun is a Run with where it belongs and, optionally, a caller-chosen id (`key`, at most 200 chars). */
export type IngestRun = Run & { repo?: string; branch?: string; key?: string };

/** StoredRun is a Run read back from the store, with its id and machine key. */
export type StoredRun = Run & { id: string; repo?: string; branch?: string; machineKey: string };

/** RunSummary is a stored run without its measurements; `measurements` is their count. */
export interface RunSummary {
  id: string;
  repo?: string;
  branch?: string;
  sha: string;
  ref?: string;
  role: RunRole;
  time: string;
  harness: string;
  machineKey: string;
  measurements: number;
}

/** RunQuery selects runs for listRuns. `before` is an ISO time (exclusive); `limit` defaults to 100. */
export interface RunQuery {
  repo?: string;
  branch?: string;
  role?: RunRole;
  sha?: string;
  limit?: number;
  before?: string;
}

/** SampleQuery selects the raw samples of the runs at one commit (PR comparison, bisect references). */
export interface SampleQuery {
  repo?: string;
  sha: string;
  role?: RunRole;
  benchmark?: string;
  metric?: string;
  machineKey?: string;
}

/**
 * RunSamples is one measurement of one stored run. Samples of several runs
 * are returned separately, never pooled, because runs from different
 * fingerprints must not be mixed silently; poolSamples pools them on purpose.
 */
export type RunSamples = Measurement & { runId: string; sha: string; role: RunRole; time: string; machineKey: string };

/**
 * SeriesQuery selects one branch's history for the nightly scan; `values:
 * true` adds the raw samples, `fingerprints: true` each run's fingerprint,
 * `since` (ISO, inclusive) leaves out older runs.
 */
export interface SeriesQuery {
  repo?: string;
  branch?: string;
  role?: RunRole;
  benchmark?: string;
  metric?: string;
  machineKey?: string;
  since?: string;
  values?: boolean;
  fingerprints?: boolean;
}

/**
 * WindowQuery selects series for seriesWindows, with the filters of
 * SeriesQuery (role required). `series` narrows them to these ids (from
 * listSeries) and yields them in that order. `nights` is how many of each
 * series' newest points to return (default: all of them), `since` (ISO,
 * inclusive) leaves out older points, `valuesNights` how many of those,
 * newest first, carry their raw samples (default 0; Infinity: all),
 * `batch` how many series each yielded batch holds (default 500).
 */
export interface WindowQuery {
  repo?: string;
  branch?: string;
  role: RunRole;
  benchmark?: string;
  metric?: string;
  machineKey?: string;
  series?: readonly number[];
  nights?: number;
  since?: string;
  valuesNights?: number;
  fingerprints?: boolean;
  batch?: number;
}

/** SeriesListQuery selects series for listSeries, with the filters of SeriesQuery; `machines: true` adds each series' `machine`. */
export interface SeriesListQuery {
  repo?: string;
  branch?: string;
  role?: RunRole;
  benchmark?: string;
  metric?: string;
  machineKey?: string;
  machines?: boolean;
}

/**
 * SeriesInfo names one stored series without reading its points: `id` is
 * this store's (for WindowQuery.series), `machine` one stored fingerprint
 * of its machine key (all of them share every machine field; one object
 * per machine key, shared between series).
 */
export interface SeriesInfo {
  id: number;
  repo?: string;
  branch?: string;
  role: RunRole;
  machineKey: string;
  benchmark: string;
  metric: string;
  machine?: Fingerprint;
}

/**
 * SeriesWindow is one stored series (repo x branch x role x machine key x
 * benchmark x metric) with a summary of its whole history (`points`
 * stored, the time of the first) and its newest points, oldest first. A
 * point's `fingerprint`, when asked for, is one object per stored
 * fingerprint, shared between points.
 */
export interface SeriesWindow {
  repo?: string;
  branch?: string;
  role: RunRole;
  machineKey: string;
  benchmark: string;
  metric: string;
  points: number;
  firstTime: string;
  window: SeriesPoint[];
}

/**
 * HistoryQuery selects series for seriesHistories, with the filters of
 * WindowQuery. `valuesNights` is how many of each series' newest nights
 * carry their raw samples (default 0), `batch` how many series each
 * yielded batch holds (default 500).
 */
export interface HistoryQuery {
  repo?: string;
  branch?: string;
  role: RunRole;
  benchmark?: string;
  metric?: string;
  machineKey?: string;
  valuesNights?: number;
  batch?: number;
}

/** RunRef is a stored run as history points refer to it: one object per run, shared by every series and batch. */
export interface RunRef {
  id: string;
  sha: string;
  role: RunRole;
  time: string;
  fingerprint: Fingerprint;
}

/**
 * SeriesHistory is one stored series' whole history in columns, oldest
 * first, for charts of every night: per night its run, sample count,
 * median and the median's 95% CI (`lo`/`hi`; NaN where unknown: no
 * samples, or stored before migration 2), and the raw samples of the
 * newest `valuesNights` nights (undefined before them). `unit` and
 * `better` are the newest night's.
 */
export interface SeriesHistory {
  repo?: string;
  branch?: string;
  role: RunRole;
  machineKey: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  runs: RunRef[];
  n: Int32Array;
  median: Float64Array;
  lo: Float64Array;
  hi: Float64Array;
  values: (number[] | undefined)[];
}

/** SeriesPoint is one measurement of one run in a series: its sample count and median (null when it has no samples). */
export interface SeriesPoint {
  runId: string;
  sha: string;
  role: RunRole;
  time: string;
  machineKey: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  n: number;
  median: number | null;
  values?: number[];
  fingerprint?: Fingerprint;
  /** harness is the run's (Run.harness), where the read has it (seriesWindows): the scan's default threshold of counted work follows it. */
  harness?: string;
}

/** StateEntry is a value of the state table with its version (1 after the first write). */
export interface StateEntry {
  key: string;
  value: unknown;
  version: number;
}

/**
 * EffectEntry is one effect on GitHub as the effects table keeps it
 * (AppState.withEffect): `intended` from when a maker takes the key until it
 * records what it made, `done` after, with the GitHub object's id and what
 * else the next maker needs (`result`). `holder` holds the key's lease until
 * `leaseUntil` (ms since the epoch); null when nobody does. An `intended`
 * entry nobody holds is an attempt whose outcome is unknown.
 */
export interface EffectEntry {
  key: string;
  status: 'intended' | 'done';
  holder: string | null;
  leaseUntil: number | null;
  /** githubId and result are the last recorded outcome (kept while a new attempt is `intended`). */
  githubId: number | null;
  result: Record<string, unknown> | null;
  /** attempts counts the takes, the first included. */
  attempts: number;
  intendedAt: string;
  doneAt: string | null;
  version: number;
}

/** EffectTake is takeEffect's answer: the lease and the entry as it was before (undefined: new), or the entry someone else holds. */
export type EffectTake = { taken: true; before: EffectEntry | undefined } | { taken: false; current: EffectEntry };

/** StoreCounts counts the rows of each table; handy for checks and for `benchbot import` summaries. */
export interface StoreCounts {
  runs: number;
  fingerprints: number;
  measurements: number;
  samples: number;
  state: number;
}

/** IngestResult says which ids a batch ingest produced and how many of them were new. */
export interface IngestResult {
  ids: string[];
  created: number;
}

/** Store is the history port; every method may throw StoreError. */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** location is the SQLite path or the PostgreSQL URL without its password, for messages. */
  readonly location: string;
  /** migrate applies pending migrations and returns how many it applied. openStore calls it. */
  migrate(): Promise<number>;
  /** ingestRun stores a run in one transaction and returns its id; an already stored run returns its id unchanged. */
  ingestRun(run: IngestRun): Promise<string>;
  /** ingestRuns stores many runs in ONE transaction: all or nothing. */
  ingestRuns(runs: readonly IngestRun[]): Promise<IngestResult>;
  /**
   * ingestStream stores runs as they come, still in ONE transaction: an
   * error thrown by the source (a bad line in an import) rolls every run
   * back. Only one run is held at a time, so a history larger than memory
   * imports. Runs are validated as by ingestRuns.
   */
  ingestStream(runs: AsyncIterable<IngestRun> | Iterable<IngestRun>): Promise<IngestResult>;
  getRun(id: string): Promise<StoredRun | undefined>;
  listRuns(query?: RunQuery): Promise<RunSummary[]>;
  /** listRunIds returns every run id, oldest first (for export). */
  listRunIds(): Promise<string[]>;
  samplesFor(query: SampleQuery): Promise<RunSamples[]>;
  series(query: SeriesQuery): Promise<SeriesPoint[]>;
  /**
   * seriesWindows reads history one batch of series at a time: each series'
   * newest points and a summary of the rest, through the per-series time
   * index, so memory follows the window asked for, not the history stored.
   * Series come in the order they were first stored.
   */
  seriesWindows(query: WindowQuery): AsyncIterable<SeriesWindow[]>;
  /** listSeries names the stored series that match, in the order they were first stored, without reading their points. */
  listSeries(query: SeriesListQuery): Promise<SeriesInfo[]>;
  /**
   * seriesHistories reads every night of each series in columns, one batch
   * of series at a time, without a row object per night: what a chart of a
   * 10,000-series history needs in seconds.
   */
  seriesHistories(query: HistoryQuery): AsyncIterable<SeriesHistory[]>;
  getState(key: string): Promise<StateEntry | undefined>;
  /** putState writes a JSON value unconditionally and returns its new version. */
  putState(key: string, value: unknown): Promise<number>;
  /**
   * compareAndSetState writes only when the current version is
   * `expectedVersion` (null: only when the key is absent). It returns the new
   * version, or null when the expectation failed and nothing was written.
   */
  compareAndSetState(key: string, expectedVersion: number | null, value: unknown): Promise<number | null>;
  /** deleteState removes a key (only at `expectedVersion` when given); true when a row was removed. */
  deleteState(key: string, expectedVersion?: number): Promise<boolean>;
  /** listState returns the entries whose key starts with `prefix`, ordered by key. */
  listState(prefix: string): Promise<StateEntry[]>;
  /**
   * takeEffect takes the lease of effect `key` for `holder` until `nowMs +
   * leaseMs`, when nobody holds it or its holder's lease ran out (inserting
   * it when absent), and marks it `intended`; one transaction, so of many
   * takers on any number of replicas exactly one gets it.
   */
  takeEffect(key: string, holder: string, nowMs: number, leaseMs: number): Promise<EffectTake>;
  /** renewEffect moves `holder`'s lease to `leaseUntil`; false when it no longer holds the key. */
  renewEffect(key: string, holder: string, leaseUntil: number): Promise<boolean>;
  /** finishEffect records what `holder` made (`done`, its GitHub id and result) and frees the key; false when it no longer held it. */
  finishEffect(key: string, holder: string, githubId: number, result: Record<string, unknown>): Promise<boolean>;
  /**
   * releaseEffect frees the key `holder` holds: `unknown` leaves it
   * `intended` (the attempt may have made the effect: the next maker looks
   * first); otherwise it puts back `before` (nothing was made; undefined
   * deletes the entry).
   */
  releaseEffect(key: string, holder: string, back: EffectEntry | undefined | 'unknown'): Promise<boolean>;
  getEffect(key: string): Promise<EffectEntry | undefined>;
  /** listEffects returns the entries whose key starts with `prefix`, ordered by key. */
  listEffects(prefix: string): Promise<EffectEntry[]>;
  /** deleteEffect removes an entry nobody holds, at `version`; true when it was removed. */
  deleteEffect(key: string, version: number): Promise<boolean>;
  counts(): Promise<StoreCounts>;
  /**
   * The app's delivery jobs (sql-jobs.ts). enqueueJob stores a delivery
   * under its id: `queued`, `duplicate` when the id is stored already, or
   * `requeued` when it was dead (a redelivery tries it again).
   */
  enqueueJob(job: NewJob, nowMs: number): Promise<EnqueueOutcome>;
  /** claimJobs leases due jobs to a worker (see sql-jobs.ts); jobs whose lease ran out too often come back as `dead` ids. */
  claimJobs(options: ClaimJobsOptions): Promise<{ leased: LeasedJob[]; dead: string[] }>;
  /** renewJob, finishJob, failJob and releaseJob change a leased job; each is false when the lease is no longer the caller's. */
  renewJob(job: JobLease, leaseMs: number, nowMs: number): Promise<boolean>;
  finishJob(job: JobLease, nowMs: number): Promise<boolean>;
  /**
   * failJob makes the job ready again at retryAtMs, or dead when retryAtMs
   * is null. `attempt: 'waiting'` gives the attempt back (the job waits on
   * another, it did not fail), so waiting does not spend maxAttempts.
   */
  failJob(job: JobLease, error: string, retryAtMs: number | null, nowMs: number, attempt?: 'failed' | 'waiting'): Promise<boolean>;
  releaseJob(job: JobLease, nowMs: number): Promise<boolean>;
  getJob(id: string): Promise<JobRecord | undefined>;
  jobStats(nowMs: number): Promise<JobStats>;
  /** pruneJobs deletes done jobs older than olderThanMs; returns how many. */
  pruneJobs(olderThanMs: number, nowMs: number): Promise<number>;
  /** takePacingSlot books the next start of a paced write of kind `key`, spacingMs after the last one booked and not before nowMs, across replicas; returns it. */
  takePacingSlot(key: string, spacingMs: number, nowMs: number): Promise<number>;
  /** pacingAhead lists the pacing keys booked past nowMs and how far ahead, furthest first (at most 20). */
  pacingAhead(nowMs: number): Promise<{ key: string; aheadMs: number }[]>;
  close(): Promise<void>;
}

/** NewJob is a verified delivery to store: its id (X-GitHub-Delivery), event name (X-GitHub-Event), installation and body. */
export interface NewJob {
  id: string;
  event: string;
  installation: number | null;
  payload: string;
}

/** EnqueueOutcome is what storing a delivery did. */
export type EnqueueOutcome = 'queued' | 'duplicate' | 'requeued';

/** ClaimJobsOptions: who leases (`owner`), at most how many jobs, for how long, after how many attempts a job whose lease ran out is dead, and now. */
export interface ClaimJobsOptions {
  owner: string;
  limit: number;
  leaseMs: number;
  maxAttempts: number;
  nowMs: number;
}

/** JobLease names one hold of a job: every change to a leased job names it, so a worker whose lease was taken over changes nothing. */
export type JobLease = Pick<LeasedJob, 'id' | 'lease'>;

/** LeasedJob is a job a worker holds: `lease` names this hold in every later change. */
export interface LeasedJob {
  id: string;
  event: string;
  installation: number | null;
  payload: string;
  /** attempts counts this one. */
  attempts: number;
  receivedMs: number;
  lease: string;
}

/** JobRecord is a job as stored, without its payload. */
export interface JobRecord {
  id: string;
  event: string;
  status: 'ready' | 'leased' | 'done' | 'dead';
  attempts: number;
  /** dueMs: when a ready job may run, when a lease runs out, when a done or dead job ended. */
  dueMs: number;
  receivedMs: number;
  finishedMs: number | null;
  leasedBy: string | null;
  lastError: string | null;
}

/** JobStats is the queue at a glance. */
export interface JobStats {
  /** ready counts jobs waiting, retrying those of them that failed before (waiting out their backoff). */
  ready: number;
  retrying: number;
  leased: number;
  /** expiredLeases counts leased jobs whose lease ran out (their worker died or hangs); the next claim takes them. */
  expiredLeases: number;
  dead: number;
  /** oldestReceivedMs is when the oldest job not yet done was received (null: none). */
  oldestReceivedMs: number | null;
  newestDead: JobRecord[];
}

/** StoreOptions tune an adapter; every field has a default. */
export interface StoreOptions {
  /** SQLite: how long a writer waits for the lock before failing, in ms (default 5000). */
  busyTimeoutMs?: number;
  /** PostgreSQL: connection timeout in ms (default 10000). */
  connectTimeoutMs?: number;
  /** PostgreSQL: pool size, the most connections open at once (default DEFAULT_MAX_CONNECTIONS in postgres-store.ts, 10). */
  maxConnections?: number;
  /**
   * onSamples is called inside an ingest transaction after each batch of
   * samples is written (running total and the batch's total), before commit:
   * progress for big imports, and the hook the crash test kills on.
   */
  onSamples?: (written: number, total: number) => void;
}

/**
 * StoreError is any failure of the store: cannot open or connect, invalid
 * run, bad query. Its message names the store location and what to fix.
 */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/** poolSamples concatenates the values of the same benchmark x metric across runs, in the order given. */
export function poolSamples(rows: readonly RunSamples[]): Measurement[] {
  const pooled = new Map<string, Measurement>();
  for (const row of rows) {
    const key = `${row.benchmark}\u0000${row.metric}\u0000${row.unit}`;
    let m = pooled.get(key);
    if (!m) {
      m = { benchmark: row.benchmark, metric: row.metric, unit: row.unit, better: row.better, values: [] };
      pooled.set(key, m);
    }
    for (const v of row.values) m.values.push(v);
  }
  return [...pooled.values()];
}
