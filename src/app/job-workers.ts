import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { retryAfterMs } from '../github/github-client.ts';
import type { LeasedJob, Store } from '../store/store.ts';

/**
 * JobSettings tune the workers that run the app's deliveries (issue 24).
 * JOB_DEFAULTS is the one place their defaults live; `benchbot serve` reads
 * overrides from BENCHBOT_JOB_* variables (serve-command.ts).
 */
export interface JobSettings {
  /**
   * leaseMs is how long a job stays a worker's without renewal. A live
   * worker renews it every third of it; a replica killed mid-job leaves its
   * jobs leased until the lease runs out, and the next poll of any replica
   * takes them: a crash costs at most leaseMs + pollMs of delay.
   */
  leaseMs: number;
  /** pollMs is how often an idle replica looks for due jobs (jobs it accepted itself start at once). */
  pollMs: number;
  /** concurrency is how many jobs one replica runs at once (most of their time is waiting on GitHub and its pacing). */
  concurrency: number;
  /** maxAttempts: a job that failed (or whose lease ran out) this many times is dead, kept and shown in /healthz. */
  maxAttempts: number;
  /** retryBaseMs is the wait before the second attempt; it doubles per attempt up to retryMaxMs (or what GitHub's `retry-after` asks, if longer). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** retentionMs: done jobs (the record that a delivery id was handled) are deleted after this long. */
  retentionMs: number;
  /** graceMs: on stop (SIGTERM), how long running jobs may finish before the rest are given back to the queue for another replica. */
  graceMs: number;
  /**
   * waitMaxMs: a job that waits on another ({@link JobWaiting}: a run's
   * completion before the /bench that dispatched it is recorded) is retried
   * every waitRetryMs without spending attempts for this long after it was
   * received; after that its waits count as failures. A /bench can wait
   * minutes behind GitHub's write pacing, more than maxAttempts of backoff
   * (10 + 20 + 40 + 80 s) would allow its completion.
   */
  waitMaxMs: number;
  waitRetryMs: number;
}

export const JOB_DEFAULTS: Readonly<JobSettings> = {
  leaseMs: 30_000,
  pollMs: 1_000,
  concurrency: 16,
  maxAttempts: 5,
  retryBaseMs: 10_000,
  retryMaxMs: 10 * 60_000,
  retentionMs: 14 * 24 * 3600 * 1000,
  // systemd's stop timeout in docs/deploy/benchbot.service is 30 s.
  graceMs: 25_000,
  waitMaxMs: 60 * 60_000,
  waitRetryMs: 15_000,
};

/**
 * JobWaiting is thrown by a job that cannot go on until another job has
 * done its part (not a failure): it is retried every waitRetryMs without
 * spending an attempt, up to waitMaxMs after it was received.
 */
export class JobWaiting extends Error {
  override name = 'JobWaiting';
}

/** JobLog is the slice of the app's logger the workers use. */
export interface JobLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** JobWorkers are one replica's workers. */
export interface JobWorkers {
  /** owner names this replica in leases (`leased_by`). */
  readonly owner: string;
  /** wake looks for due jobs now (after this replica stored one) instead of at the next poll. */
  wake(): void;
  /** running counts the jobs this replica runs now. */
  running(): number;
  /** close stops taking jobs, waits up to graceMs for the running ones, and gives back the rest for another replica. */
  close(graceMs: number): Promise<void>;
}

/** PRUNE_EVERY_MS is how often a replica deletes done jobs past retention. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * startJobWorkers runs `run` for every job this replica can lease from the
 * store, at most settings.concurrency at once, renewing each lease while
 * `run` works. A job whose `run` resolves is done; one that throws is
 * retried after a doubling backoff (or GitHub's `retry-after`, when the
 * failure carries one and it is longer), and is dead after maxAttempts.
 */
export function startJobWorkers(o: { store: Store; settings: JobSettings; run: (job: LeasedJob) => Promise<void>; log: JobLog; now?: () => number }): JobWorkers {
  const { store, settings, log } = o;
  const now = o.now ?? Date.now;
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const active = new Map<string, { job: LeasedJob; done: Promise<void>; renew: NodeJS.Timeout }>();
  let closing = false;
  let pumping = false;
  let again = false;
  let lastPrune = 0;

  const pump = async (): Promise<void> => {
    if (closing) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        while (!closing && active.size < settings.concurrency) {
          const limit = settings.concurrency - active.size;
          const { leased, dead } = await store.claimJobs({ owner, limit, leaseMs: settings.leaseMs, maxAttempts: settings.maxAttempts, nowMs: now() });
          for (const id of dead) log.error({ delivery: id, attempts: settings.maxAttempts }, 'job dead: its lease ran out on every attempt (the worker stopped or hung); redeliver it from GitHub to try again');
          for (const job of leased) start(job);
          if (leased.length < limit) break;
        }
      } while (again && !closing);
      if (now() - lastPrune > PRUNE_EVERY_MS) {
        lastPrune = now();
        const pruned = await store.pruneJobs(settings.retentionMs, now());
        if (pruned > 0) log.info({ pruned }, 'pruned done jobs past retention');
      }
    } catch (error) {
      log.warn({ err: error }, 'could not look for jobs in the store; trying again at the next poll');
    } finally {
      pumping = false;
    }
  };

  const start = (job: LeasedJob): void => {
    const renew = setInterval(() => {
      store.renewJob(job, settings.leaseMs, now()).then(
        (held) => held || log.warn({ delivery: job.id }, 'job lease lost (it ran out and another replica took the job); finishing this attempt anyway, its effects are keyed'),
        (error: unknown) => log.warn({ delivery: job.id, err: error }, 'could not renew a job lease'),
      );
    }, Math.max(10, Math.floor(settings.leaseMs / 3)));
    const done = (async () => {
      const started = now();
      try {
        await o.run(job);
        await store.finishJob(job, now());
      } catch (error) {
        const waiting = error instanceof JobWaiting && now() - job.receivedMs < settings.waitMaxMs;
        const last = !waiting && job.attempts >= settings.maxAttempts;
        const retryAt = last ? null : now() + (waiting ? jittered(settings.waitRetryMs) : retryDelayMs(job.attempts, settings, error));
        const message = messageOf(error);
        try {
          await store.failJob(job, message, retryAt, now(), waiting ? 'waiting' : 'failed');
        } catch (storeError) {
          log.warn({ delivery: job.id, err: storeError }, 'could not record a failed job; its lease will run out and it is tried again');
        }
        if (retryAt === null) log.error({ delivery: job.id, event: job.event, attempts: job.attempts, error: message }, 'job dead after its last attempt; redeliver it from GitHub to try again');
        else if (waiting) log.info({ delivery: job.id, event: job.event, retryInMs: retryAt - now(), error: message }, 'job waits on another; trying again');
        else log.warn({ delivery: job.id, event: job.event, attempt: job.attempts, retryInMs: retryAt - now(), error: message }, 'job failed; retrying after a backoff');
      } finally {
        clearInterval(renew);
        active.delete(job.id);
        log.info({ delivery: job.id, event: job.event, ms: now() - started, waitedMs: started - job.receivedMs }, 'job finished');
        if (!closing) void pump();
      }
    })();
    active.set(job.id, { job, done, renew });
  };

  const poll = setInterval(() => void pump(), settings.pollMs);
  poll.unref();
  void pump();

  return {
    owner,
    wake: () => void pump(),
    running: () => active.size,
    async close(graceMs) {
      closing = true;
      clearInterval(poll);
      const all = Promise.all([...active.values()].map((a) => a.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      // What is still running goes back to the queue: another replica takes it at once instead of after the lease.
      for (const { job, renew } of active.values()) {
        clearInterval(renew);
        await store.releaseJob(job, now()).catch(() => undefined);
      }
    },
  };
}

/** retryDelayMs doubles from retryBaseMs per attempt (capped), with up to 20% jitter, or waits what GitHub's `retry-after` asks when longer. */
function retryDelayMs(attempt: number, settings: Pick<JobSettings, 'retryBaseMs' | 'retryMaxMs'>, error: unknown): number {
  const backoff = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.max(0, attempt - 1));
  const asked = askedWaitMs(error);
  return Math.max(asked ?? 0, jittered(backoff));
}

/** jittered adds up to 20% to a wait, so that jobs that failed together do not retry together. */
function jittered(ms: number): number {
  return Math.round(ms * (1 + Math.random() * 0.2));
}

/** askedWaitMs finds GitHub's `retry-after` (retryAfterMs) or `x-ratelimit-reset` (epoch seconds) on a failure or its causes. */
function askedWaitMs(error: unknown, depth = 0): number | undefined {
  if (error === null || typeof error !== 'object' || depth > 5) return undefined;
  const e = error as { response?: { headers?: Record<string, unknown> }; cause?: unknown; errors?: unknown[] };
  const headers = e.response?.headers;
  if (headers) {
    const after = retryAfterMs(headers);
    if (after !== null && after > 0) return after;
    const reset = Number(headers['x-ratelimit-reset']);
    if (String(headers['x-ratelimit-remaining']) === '0' && Number.isFinite(reset)) return Math.max(0, reset * 1000 - Date.now());
  }
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = askedWaitMs(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function messageOf(error: unknown): string {
  const inner = (error as { errors?: unknown[] })?.errors;
  if (Array.isArray(inner) && inner.length > 0) return inner.map(messageOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}
