/**
 * sql-jobs: the app's delivery jobs (the `app_jobs` table, migration 4), a
 * leased queue in the store itself. A job is `ready` (due now or after its
 * retry backoff), `leased` by one worker until its lease runs out (`due_ms`),
 * `done`, or `dead` after too many attempts. A claim is one atomic UPDATE ...
 * RETURNING: on PostgreSQL its rows are picked with FOR UPDATE SKIP LOCKED,
 * so replicas polling at once take different jobs without waiting on each
 * other; SQLite serializes writers, so the same statement without the lock
 * clause is atomic there. Every change to a leased job names its lease: a
 * worker whose lease ran out (and was taken over) changes nothing.
 */
import { randomUUID } from 'node:crypto';
import type { SqlAccess } from './sql-conn.ts';
import type { ClaimJobsOptions, EnqueueOutcome, JobLease, JobRecord, JobStats, LeasedJob, NewJob } from './store.ts';

/** DEAD_SHOWN is how many of the newest dead jobs jobStats names. */
const DEAD_SHOWN = 5;

/** JOB_COLUMNS are the columns a JobRecord is read from (recordOf). */
const JOB_COLUMNS = 'id, event, status, attempts, due_ms, received_ms, finished_ms, leased_by, last_error';

/** LAST_ERROR_CHARS caps the error kept with a job (a message, not a stack). */
const LAST_ERROR_CHARS = 500;

export async function enqueueJob(db: SqlAccess, job: NewJob, nowMs: number): Promise<EnqueueOutcome> {
  return db.write(async (c) => {
    const inserted = await c.all(
      `INSERT INTO app_jobs (id, event, installation, payload, status, attempts, due_ms, received_ms)
       VALUES (?, ?, ?, ?, 'ready', 0, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [job.id, job.event, job.installation, job.payload, nowMs, nowMs],
    );
    if (inserted.length > 0) return 'queued';
    // A dead job's redelivery (GitHub's Redeliver button) is the operator's way to try it again.
    const revived = await c.all(
      `UPDATE app_jobs SET status = 'ready', attempts = 0, due_ms = ?, payload = ?, lease = NULL, leased_by = NULL, finished_ms = NULL
       WHERE id = ? AND status = 'dead' RETURNING id`,
      [nowMs, job.payload, job.id],
    );
    return revived.length > 0 ? 'requeued' : 'duplicate';
  });
}

/**
 * claimJobs leases up to `limit` due jobs (ready, or leased with the lease
 * run out) to `owner` until nowMs + leaseMs, counting an attempt each. A
 * job whose lease ran out after `maxAttempts` attempts (its worker died
 * with it that often) is marked dead instead; those are returned apart.
 */
export async function claimJobs(db: SqlAccess, kind: 'sqlite' | 'postgres', o: ClaimJobsOptions): Promise<{ leased: LeasedJob[]; dead: string[] }> {
  const lease = `${o.owner}/${randomUUID()}`;
  return db.write(async (c) => {
    const dead = await c.all(
      `UPDATE app_jobs SET status = 'dead', lease = NULL, finished_ms = ?, due_ms = ?,
         last_error = 'the lease ran out ' || CAST(attempts AS TEXT) || ' times (the worker stopped or hung); last error: ' || coalesce(last_error, 'none')
       WHERE status = 'leased' AND due_ms <= ? AND attempts >= ? RETURNING id`,
      [o.nowMs, o.nowMs, o.nowMs, o.maxAttempts],
    );
    const lock = kind === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const rows = await c.all(
      `UPDATE app_jobs SET status = 'leased', attempts = attempts + 1, due_ms = ?, lease = ?, leased_by = ?
       WHERE id IN (SELECT id FROM app_jobs WHERE status IN ('ready', 'leased') AND due_ms <= ? ORDER BY due_ms LIMIT ? ${lock})
       RETURNING id, event, installation, payload, attempts, received_ms`,
      [o.nowMs + o.leaseMs, lease, o.owner, o.nowMs, o.limit],
    );
    return {
      dead: dead.map((r) => String(r.id)),
      leased: rows.map((r) => ({
        id: String(r.id),
        event: String(r.event),
        installation: numberOrNull(r.installation),
        payload: String(r.payload ?? ''),
        attempts: Number(r.attempts),
        receivedMs: Number(r.received_ms),
        lease,
      })),
    };
  });
}

/** renewJob extends a lease to nowMs + leaseMs; false when the lease is no longer this worker's. */
export async function renewJob(db: SqlAccess, job: JobLease, leaseMs: number, nowMs: number): Promise<boolean> {
  return db.write(async (c) => (await c.run(`UPDATE app_jobs SET due_ms = ? WHERE id = ? AND lease = ? AND status = 'leased'`, [nowMs + leaseMs, job.id, job.lease])) > 0);
}

/** finishJob marks a leased job done and drops its payload (the row stays as the delivery's record). */
export async function finishJob(db: SqlAccess, job: JobLease, nowMs: number): Promise<boolean> {
  return db.write(async (c) => (await c.run(
    `UPDATE app_jobs SET status = 'done', payload = NULL, lease = NULL, finished_ms = ?, due_ms = ? WHERE id = ? AND lease = ? AND status = 'leased'`,
    [nowMs, nowMs, job.id, job.lease],
  )) > 0);
}

/**
 * failJob records a failed attempt: the job is ready again at `retryAtMs`,
 * or dead when retryAtMs is null (attempts spent). A job that only waits on
 * another (`attempt` 'waiting') gets its attempt back, as releaseJob does.
 * False when the lease is no longer this worker's.
 */
export async function failJob(db: SqlAccess, job: JobLease, error: string, retryAtMs: number | null, nowMs: number, attempt: 'failed' | 'waiting' = 'failed'): Promise<boolean> {
  const message = error.length > LAST_ERROR_CHARS ? `${error.slice(0, LAST_ERROR_CHARS)}...` : error;
  const attempts = attempt === 'waiting' ? 'attempts = attempts - 1, ' : '';
  return db.write(async (c) => (await c.run(
    retryAtMs === null
      ? `UPDATE app_jobs SET status = 'dead', lease = NULL, last_error = ?, finished_ms = ?, due_ms = ? WHERE id = ? AND lease = ? AND status = 'leased'`
      : `UPDATE app_jobs SET status = 'ready', ${attempts}lease = NULL, last_error = ?, finished_ms = NULL, due_ms = ? WHERE id = ? AND lease = ? AND status = 'leased'`,
    retryAtMs === null ? [message, nowMs, nowMs, job.id, job.lease] : [message, retryAtMs, job.id, job.lease],
  )) > 0);
}

/** releaseJob gives a leased job back untouched (a worker stopping): ready at once, the attempt not counted. */
export async function releaseJob(db: SqlAccess, job: JobLease, nowMs: number): Promise<boolean> {
  return db.write(async (c) => (await c.run(
    `UPDATE app_jobs SET status = 'ready', lease = NULL, attempts = attempts - 1, due_ms = ? WHERE id = ? AND lease = ? AND status = 'leased'`,
    [nowMs, job.id, job.lease],
  )) > 0);
}

export async function getJob(db: SqlAccess, id: string): Promise<JobRecord | undefined> {
  return db.read(async (c) => {
    const [r] = await c.all(`SELECT ${JOB_COLUMNS} FROM app_jobs WHERE id = ?`, [id]);
    return r === undefined ? undefined : recordOf(r);
  });
}

/** jobStats counts what is waiting, leased and dead, with the oldest waiting delivery and the newest dead jobs. */
export async function jobStats(db: SqlAccess, nowMs: number): Promise<JobStats> {
  return db.read(async (c) => {
    const rows = await c.all(
      `SELECT status, count(*) AS n, min(received_ms) AS oldest, sum(CASE WHEN attempts > 0 THEN 1 ELSE 0 END) AS retried,
              sum(CASE WHEN due_ms < ? THEN 1 ELSE 0 END) AS overdue
       FROM app_jobs WHERE status IN ('ready', 'leased', 'dead') GROUP BY status`,
      [nowMs],
    );
    const of = (status: string) => rows.find((r) => r.status === status);
    const count = (status: string, column = 'n') => Number(of(status)?.[column] ?? 0);
    const oldest = [of('ready')?.oldest, of('leased')?.oldest].filter((v) => v !== null && v !== undefined).map(Number);
    const dead = await c.all(`SELECT ${JOB_COLUMNS} FROM app_jobs WHERE status = 'dead' ORDER BY due_ms DESC LIMIT ${DEAD_SHOWN}`);
    return {
      ready: count('ready'),
      retrying: count('ready', 'retried'),
      leased: count('leased'),
      expiredLeases: count('leased', 'overdue'),
      dead: count('dead'),
      oldestReceivedMs: oldest.length === 0 ? null : Math.min(...oldest),
      newestDead: dead.map(recordOf),
    };
  });
}

/** pruneJobs deletes done jobs finished before nowMs - olderThanMs; returns how many. */
export async function pruneJobs(db: SqlAccess, olderThanMs: number, nowMs: number): Promise<number> {
  return db.write(async (c) => c.run(`DELETE FROM app_jobs WHERE status = 'done' AND due_ms < ?`, [nowMs - olderThanMs]));
}

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const stringOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));

function recordOf(r: Record<string, unknown>): JobRecord {
  return {
    id: String(r.id),
    event: String(r.event),
    status: String(r.status) as JobRecord['status'],
    attempts: Number(r.attempts),
    dueMs: Number(r.due_ms),
    receivedMs: Number(r.received_ms),
    finishedMs: numberOrNull(r.finished_ms),
    leasedBy: stringOrNull(r.leased_by),
    lastError: stringOrNull(r.last_error),
  };
}

/**
 * takePacingSlot books the next start of a write of kind `key` (e.g.
 * `write:<installation>`) at least `spacingMs` after the one booked before
 * it, and not before nowMs, in one atomic upsert; returns the booked start.
 */
export async function takePacingSlot(db: SqlAccess, key: string, spacingMs: number, nowMs: number): Promise<number> {
  return db.write(async (c) => {
    const [r] = await c.all(
      `INSERT INTO app_pacing (key, next_ms) VALUES (?, ?) ON CONFLICT (key) DO UPDATE
         SET next_ms = CASE WHEN app_pacing.next_ms > ? THEN app_pacing.next_ms ELSE ? END + ?
       RETURNING next_ms`,
      [key, nowMs + spacingMs, nowMs, nowMs, spacingMs],
    );
    return Number(r.next_ms) - spacingMs;
  });
}

/** pacingAhead lists the pacing keys booked past nowMs, with how far ahead (ms), furthest first. */
export async function pacingAhead(db: SqlAccess, nowMs: number): Promise<{ key: string; aheadMs: number }[]> {
  return db.read(async (c) => (await c.all('SELECT key, next_ms FROM app_pacing WHERE next_ms > ? ORDER BY next_ms DESC LIMIT 20', [nowMs])).map((r) => ({ key: String(r.key), aheadMs: Number(r.next_ms) - nowMs })));
}
