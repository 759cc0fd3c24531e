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
];

/** SCHEMA_MIGRATIONS_DDL creates the bookkeeping table; the same text works in both dialects. */
export const SCHEMA_MIGRATIONS_DDL = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;
