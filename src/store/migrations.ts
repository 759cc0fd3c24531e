/** Dialect is the SQL flavour a migration is written for. */
export type Dialect = 'sqlite' | 'postgres';

/** Migration is one numbered schema step, with its SQL per dialect (same logical schema in both). */
export interface Migration {
  version: number;
  name: string;
  sql: Record<Dialect, string>;
}

/**
 * MIGRATIONS are applied in order, all pending ones in one transaction, and recorded
 * in `schema_migrations`. Never edit a released one: append a new step.
 *
 * `samples.measurement_id` has no foreign key on purpose: PostgreSQL checks
 * one per row through a trigger, which made a 2M-sample ingest three times
 * slower. Samples are written only by the ingest transaction that writes
 * their measurement, so the reference cannot dangle.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs, fingerprints, measurements, samples, state',
    sql: {
      sqlite: `
        CREATE TABLE fingerprints (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          machine_key TEXT NOT NULL,
          body TEXT NOT NULL
        );
        CREATE INDEX fingerprints_machine_key ON fingerprints (machine_key);
        CREATE TABLE runs (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          repo TEXT,
          branch TEXT,
          sha TEXT NOT NULL,
          ref TEXT,
          role TEXT NOT NULL CHECK (role IN ('base', 'head', 'nightly', 'bisect')),
          time TEXT NOT NULL,
          time_ms INTEGER NOT NULL,
          harness TEXT NOT NULL,
          fingerprint_id INTEGER NOT NULL REFERENCES fingerprints (id),
          warnings TEXT NOT NULL,
          hints TEXT NOT NULL
        );
        CREATE INDEX runs_repo_sha ON runs (repo, sha);
        CREATE INDEX runs_repo_branch_time ON runs (repo, branch, time_ms);
        CREATE INDEX runs_time ON runs (time_ms, id);
        CREATE INDEX runs_fingerprint ON runs (fingerprint_id);
        CREATE TABLE measurements (
          id INTEGER PRIMARY KEY,
          run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          benchmark TEXT NOT NULL,
          metric TEXT NOT NULL,
          unit TEXT NOT NULL,
          better TEXT NOT NULL CHECK (better IN ('lower', 'higher')),
          n INTEGER NOT NULL,
          median REAL,
          UNIQUE (run_id, ordinal)
        );
        CREATE INDEX measurements_benchmark ON measurements (benchmark, metric);
        CREATE TABLE samples (
          measurement_id INTEGER NOT NULL,
          idx INTEGER NOT NULL,
          value REAL NOT NULL,
          PRIMARY KEY (measurement_id, idx)
        ) WITHOUT ROWID;
        CREATE TABLE state (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          version INTEGER NOT NULL,
          updated_at TEXT NOT NULL
        );`,
      postgres: `
        CREATE TABLE fingerprints (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          machine_key TEXT NOT NULL,
          body TEXT NOT NULL
        );
        CREATE INDEX fingerprints_machine_key ON fingerprints (machine_key);
        CREATE TABLE runs (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          repo TEXT,
          branch TEXT,
          sha TEXT NOT NULL,
          ref TEXT,
          role TEXT NOT NULL CHECK (role IN ('base', 'head', 'nightly', 'bisect')),
          time TEXT NOT NULL,
          time_ms BIGINT NOT NULL,
          harness TEXT NOT NULL,
          fingerprint_id BIGINT NOT NULL REFERENCES fingerprints (id),
          warnings TEXT NOT NULL,
          hints TEXT NOT NULL
        );
        CREATE INDEX runs_repo_sha ON runs (repo, sha);
        CREATE INDEX runs_repo_branch_time ON runs (repo, branch, time_ms);
        CREATE INDEX runs_time ON runs (time_ms, id);
        CREATE INDEX runs_fingerprint ON runs (fingerprint_id);
        CREATE TABLE measurements (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
          ordinal INTEGER NOT NULL,
          benchmark TEXT NOT NULL,
          metric TEXT NOT NULL,
          unit TEXT NOT NULL,
          better TEXT NOT NULL CHECK (better IN ('lower', 'higher')),
          n INTEGER NOT NULL,
          median DOUBLE PRECISION,
          UNIQUE (run_id, ordinal)
        );
        CREATE INDEX measurements_benchmark ON measurements (benchmark, metric);
        CREATE TABLE samples (
          measurement_id BIGINT NOT NULL,
          idx INTEGER NOT NULL,
          value DOUBLE PRECISION NOT NULL,
          PRIMARY KEY (measurement_id, idx)
        );
        CREATE TABLE state (
          key TEXT PRIMARY KEY,
          value TEXT NOT NULL,
          version INTEGER NOT NULL,
          updated_at TEXT NOT NULL
        );`,
    },
  },
  {
    // Scale (issue 15): a 10,000-series suite stores 36 M samples a year. Samples of new
    // measurements go into `measurements.vals` (little-endian float64, packed-values.ts),
    // one row per measurement instead of one per sample; old rows keep theirs in `samples`.
    // `series` names each history once (insert-only, so a role that may only read and
    // insert can still ingest), and (series_id, time_ms, ...) lets a scan or the dashboard
    // read the newest nights of one series without touching the rest; it covers what a
    // chart of every night reads, since a series' rows lie one per run across the whole
    // table. The (benchmark,
    // metric) index goes: keeping it up cost more than the rest of an ingest, and a
    // query by benchmark now finds its series first. `lo`/`hi` keep the median's 95%
    // order-statistic CI, so a chart of every night needs no sample read. `series_id` has no
    // foreign key, for the reason `samples` has none: a check per row through a trigger; the
    // ingest transaction writes the series row before the measurements that name it. For the same
    // reason PostgreSQL's `measurements.run_id` loses its (benchbot deletes no runs; the trigger was
    // a sixth of a 10,000-series import); SQLite's check is an index probe, and stays.
    version: 2,
    name: 'series, packed samples, per-series time index',
    sql: {
      sqlite: `
        CREATE TABLE series (
          id INTEGER PRIMARY KEY,
          repo TEXT NOT NULL,
          branch TEXT NOT NULL,
          role TEXT NOT NULL,
          machine_key TEXT NOT NULL,
          benchmark TEXT NOT NULL,
          metric TEXT NOT NULL,
          UNIQUE (repo, branch, role, machine_key, benchmark, metric)
        );
        ALTER TABLE measurements ADD COLUMN series_id INTEGER;
        ALTER TABLE measurements ADD COLUMN time_ms INTEGER;
        ALTER TABLE measurements ADD COLUMN vals BLOB;
        ALTER TABLE measurements ADD COLUMN lo REAL;
        ALTER TABLE measurements ADD COLUMN hi REAL;
        INSERT INTO series (repo, branch, role, machine_key, benchmark, metric)
          SELECT DISTINCT coalesce(r.repo, ''), coalesce(r.branch, ''), r.role, f.machine_key, m.benchmark, m.metric
          FROM measurements m JOIN runs r ON r.id = m.run_id JOIN fingerprints f ON f.id = r.fingerprint_id;
        UPDATE measurements SET
          time_ms = (SELECT r.time_ms FROM runs r WHERE r.id = measurements.run_id),
          series_id = (SELECT s.id FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id JOIN series s
                       ON s.repo = coalesce(r.repo, '') AND s.branch = coalesce(r.branch, '') AND s.role = r.role AND s.machine_key = f.machine_key
                       AND s.benchmark = measurements.benchmark AND s.metric = measurements.metric
                       WHERE r.id = measurements.run_id);
        CREATE INDEX measurements_series_time ON measurements (series_id, time_ms, run_id, n, median, lo, hi);
        DROP INDEX measurements_benchmark;
        CREATE INDEX runs_role_time ON runs (role, time_ms);`,
      postgres: `
        CREATE TABLE series (
          id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          repo TEXT NOT NULL,
          branch TEXT NOT NULL,
          role TEXT NOT NULL,
          machine_key TEXT NOT NULL,
          benchmark TEXT NOT NULL,
          metric TEXT NOT NULL,
          UNIQUE (repo, branch, role, machine_key, benchmark, metric)
        );
        ALTER TABLE measurements DROP CONSTRAINT IF EXISTS measurements_run_id_fkey;
        ALTER TABLE measurements ADD COLUMN series_id BIGINT;
        ALTER TABLE measurements ADD COLUMN time_ms BIGINT;
        ALTER TABLE measurements ADD COLUMN vals BYTEA;
        ALTER TABLE measurements ADD COLUMN lo DOUBLE PRECISION;
        ALTER TABLE measurements ADD COLUMN hi DOUBLE PRECISION;
        INSERT INTO series (repo, branch, role, machine_key, benchmark, metric)
          SELECT DISTINCT coalesce(r.repo, ''), coalesce(r.branch, ''), r.role, f.machine_key, m.benchmark, m.metric
          FROM measurements m JOIN runs r ON r.id = m.run_id JOIN fingerprints f ON f.id = r.fingerprint_id;
        UPDATE measurements m SET time_ms = r.time_ms, series_id = s.id
          FROM runs r JOIN fingerprints f ON f.id = r.fingerprint_id, series s
          WHERE r.id = m.run_id AND s.repo = coalesce(r.repo, '') AND s.branch = coalesce(r.branch, '') AND s.role = r.role
            AND s.machine_key = f.machine_key AND s.benchmark = m.benchmark AND s.metric = m.metric;
        CREATE INDEX measurements_series_time ON measurements (series_id, time_ms, run_id, n, median, lo, hi);
        DROP INDEX measurements_benchmark;
        CREATE INDEX runs_role_time ON runs (role, time_ms);`,
    },
  },
  {
    // Every effect on GitHub exactly once (issue 24): one row per effect key (a workflow
    // dispatch, a check run, a sticky comment, a reply, an issue), `intended` from when a
    // maker takes it until the maker records what it made (`done`, with the GitHub
    // object's id). `holder` and `lease_until` (ms since the epoch) are the key's lease,
    // the cross-replica lock: an `intended` row nobody holds (or whose lease ran out, its
    // maker crashed) is an attempt whose outcome is unknown, so the next maker looks on
    // GitHub before making it again. A row of its own rather than a `state` value: the
    // lease is taken and the previous outcome read in one transaction, and what an
    // operator asks (what is stuck intended, what a key produced) is one query.
    version: 3,
    name: 'effects',
    sql: {
      sqlite: `
        CREATE TABLE effects (
          key TEXT PRIMARY KEY,
          status TEXT NOT NULL CHECK (status IN ('intended', 'done')),
          holder TEXT,
          lease_until INTEGER,
          github_id INTEGER,
          result TEXT,
          attempts INTEGER NOT NULL,
          intended_at TEXT NOT NULL,
          done_at TEXT,
          version INTEGER NOT NULL
        );`,
      postgres: `
        CREATE TABLE effects (
          key TEXT PRIMARY KEY,
          status TEXT NOT NULL CHECK (status IN ('intended', 'done')),
          holder TEXT,
          lease_until BIGINT,
          github_id BIGINT,
          result TEXT,
          attempts INTEGER NOT NULL,
          intended_at TEXT NOT NULL,
          done_at TEXT,
          version INTEGER NOT NULL
        );`,
    },
  },
  {
    // The app's deliveries as jobs (issue 24): a verified delivery is stored here and answered at once; workers on any
    // replica lease it (src/store/sql-jobs.ts). The delivery id is the key, so a redelivery of a stored id is one
    // conflicting insert. `due_ms` is when a `ready` job may run (now, or after its retry backoff) and when a `leased`
    // job's lease runs out: one index finds both. The payload is dropped when a job is done; the row stays as the
    // delivery's record until it is pruned.
    version: 4,
    name: 'app jobs: deliveries leased by workers',
    sql: {
      sqlite: `
        CREATE TABLE app_jobs (
          id TEXT PRIMARY KEY,
          event TEXT NOT NULL,
          installation INTEGER,
          payload TEXT,
          status TEXT NOT NULL CHECK (status IN ('ready', 'leased', 'done', 'dead')),
          attempts INTEGER NOT NULL,
          due_ms INTEGER NOT NULL,
          lease TEXT,
          leased_by TEXT,
          received_ms INTEGER NOT NULL,
          finished_ms INTEGER,
          last_error TEXT
        );
        CREATE INDEX app_jobs_status_due ON app_jobs (status, due_ms);`,
      postgres: `
        CREATE TABLE app_jobs (
          id TEXT PRIMARY KEY,
          event TEXT NOT NULL,
          installation BIGINT,
          payload TEXT,
          status TEXT NOT NULL CHECK (status IN ('ready', 'leased', 'done', 'dead')),
          attempts INTEGER NOT NULL,
          due_ms BIGINT NOT NULL,
          lease TEXT,
          leased_by TEXT,
          received_ms BIGINT NOT NULL,
          finished_ms BIGINT,
          last_error TEXT
        );
        CREATE INDEX app_jobs_status_due ON app_jobs (status, due_ms);`,
    },
  },
  {
    // GitHub's write pacing per installation across replicas (issue 24, item 3): one row per installation and kind of
    // write (`write:<id>`, `notify:<id>`), holding when the next write may start. A worker books its slot with one
    // atomic upsert before each write and sleeps until it, so two replicas pace one installation together.
    version: 5,
    name: 'app pacing: write slots per installation',
    sql: {
      sqlite: `
        CREATE TABLE app_pacing (
          key TEXT PRIMARY KEY,
          next_ms INTEGER NOT NULL
        );`,
      postgres: `
        CREATE TABLE app_pacing (
          key TEXT PRIMARY KEY,
          next_ms BIGINT NOT NULL
        );`,
    },
  },
];

/** SCHEMA_MIGRATIONS_DDL creates the bookkeeping table; the same text works in both dialects. */
export const SCHEMA_MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;
