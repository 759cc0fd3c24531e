import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { startAppServer } from '../app/app-server.ts';
import { JOB_DEFAULTS, type JobSettings } from '../app/job-workers.ts';
import { createAppState } from '../app/app-state.ts';
import { DEFAULT_API_URL } from '../github/github-client.ts';
import { openStore } from '../store/open-store.ts';
import { DEFAULT_MAX_CONNECTIONS } from '../store/postgres-store.ts';
import { redact } from '../store/redact.ts';
import { createDashboardHandler, DASHBOARD_PATH } from '../dashboard/dashboard-handler.ts';
import { githubRepoUrl } from '../dashboard/read-history.ts';
import { loadSiteAssets } from '../dashboard/write-site.ts';
import { parseFlags, UsageError } from './usage-error.ts';

export const SERVE_USAGE = `usage: benchbot serve [--port N] [--host ADDR] [--store URL] [--pg-pool-size N] [--dashboard]

Runs the benchbot GitHub App: /bench on pull requests, reports from finished
workflow runs, and the nightly -> bisect -> issue loop (docs/app.md).
Webhooks go to POST /api/github/webhooks; GET /healthz answers 200 while the
store is reachable. With --dashboard, GET /dashboard/ serves the pages of
benchbot dashboard from the store, to anyone who can reach the server (put it
behind your proxy's authentication if the history is private).
--pg-pool-size N caps the PostgreSQL connections this replica opens (default
${DEFAULT_MAX_CONNECTIONS}; ignored for SQLite).

environment:
  APP_ID                  the GitHub App's id (required unless GITHUB_TOKEN)
  PRIVATE_KEY             the app's private key (PEM), or
  PRIVATE_KEY_PATH        a file holding it
  WEBHOOK_SECRET          the secret every delivery is signed with (required)
  WEBHOOK_SECRET_PREVIOUS while rotating the webhook secret: the old one, which still verifies (docs/app.md)
  GITHUB_TOKEN            instead of an app: one token for every call (tests, one repository)
  GITHUB_API_URL          REST API root (default ${DEFAULT_API_URL}; GHES: https://HOST/api/v3)
  BENCHBOT_DATABASE_URL   the store: SQLite path or postgres:// URL for several replicas
                          (default .benchbot/benchbot.db)
  BENCHBOT_PG_POOL_SIZE   PostgreSQL connections per replica (default ${DEFAULT_MAX_CONNECTIONS}); --pg-pool-size wins
  PORT, HOST              where to listen (default 3000 on 0.0.0.0); --port and --host win
  BOT_LOGIN               the app's <slug>[bot] login (default: asked from GET /app)
  BENCHBOT_WRITE_INTERVAL_MS  ms between writes per installation (default: GitHub's guidance, 1 s
                          between writes and 3 s between comments or issues); 0 only where GitHub's
                          secondary limits are off (a GHES without them, a load bench's stand-in)
  BENCHBOT_JOB_LEASE_MS   how long a delivery's job stays a worker's without renewal (default ${JOB_DEFAULTS.leaseMs});
                          a crashed replica's jobs are taken by another within it plus BENCHBOT_JOB_POLL_MS
  BENCHBOT_JOB_POLL_MS    how often a replica looks for jobs (default ${JOB_DEFAULTS.pollMs})
  BENCHBOT_JOB_CONCURRENCY  jobs one replica runs at once (default ${JOB_DEFAULTS.concurrency})
  BENCHBOT_JOB_MAX_ATTEMPTS attempts before a job is dead (default ${JOB_DEFAULTS.maxAttempts})
  BENCHBOT_JOB_RETRY_MS   wait before a failed job's second attempt, doubled per attempt (default ${JOB_DEFAULTS.retryBaseMs})
  BENCHBOT_JOB_GRACE_MS   on SIGTERM, how long running jobs may finish before they go back to the queue (default ${JOB_DEFAULTS.graceMs})
  BENCHBOT_JOB_WAIT_MAX_MS  how long a job that waits on another (a run's completion before its /bench is recorded)
                          is retried without spending attempts (default ${JOB_DEFAULTS.waitMaxMs})
  BENCHBOT_JOB_WAIT_RETRY_MS  how often such a job looks again (default ${JOB_DEFAULTS.waitRetryMs})
  LOG_LEVEL               trace, debug, info (default), warn, error or fatal`;

/** ServeSettings are `benchbot serve`'s inputs, read once from flags and environment. */
export interface ServeSettings {
  appId?: string;
  privateKey?: string;
  githubToken?: string;
  secret: string;
  previousSecrets: string[];
  apiUrl: string;
  store?: string;
  /** pgPoolSize is the PostgreSQL pool's size (--pg-pool-size, BENCHBOT_PG_POOL_SIZE; default DEFAULT_MAX_CONNECTIONS). */
  pgPoolSize: number;
  port: number;
  host: string;
  botLogin?: string;
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  dashboard: boolean;
  /** writeIntervalMs replaces GitHub's write pacing (BENCHBOT_WRITE_INTERVAL_MS); undefined keeps it. */
  writeIntervalMs?: number;
  /** jobs are the workers' settings given in BENCHBOT_JOB_* (the rest are JOB_DEFAULTS). */
  jobs: Partial<JobSettings>;
}

/** JOB_VARIABLES maps each BENCHBOT_JOB_* variable to the job setting it sets, with its smallest sensible value. */
const JOB_VARIABLES: [string, keyof JobSettings, number][] = [
  ['BENCHBOT_JOB_LEASE_MS', 'leaseMs', 100],
  ['BENCHBOT_JOB_POLL_MS', 'pollMs', 10],
  ['BENCHBOT_JOB_CONCURRENCY', 'concurrency', 1],
  ['BENCHBOT_JOB_MAX_ATTEMPTS', 'maxAttempts', 1],
  ['BENCHBOT_JOB_RETRY_MS', 'retryBaseMs', 0],
  ['BENCHBOT_JOB_GRACE_MS', 'graceMs', 0],
  ['BENCHBOT_JOB_WAIT_MAX_MS', 'waitMaxMs', 0],
  ['BENCHBOT_JOB_WAIT_RETRY_MS', 'waitRetryMs', 10],
];

/** MAX_PG_POOL_SIZE bounds --pg-pool-size against a typo: PostgreSQL allows 100 connections by default, shared by every replica, so more needs a server configured for it. */
const MAX_PG_POOL_SIZE = 1000;

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** readServeSettings validates flags and environment; errors name the variable or flag to fix. */
export function readServeSettings(args: string[], env: Record<string, string | undefined>): ServeSettings {
  const values: Record<string, string | boolean | undefined> = parseFlags(args, { port: { type: 'string' }, host: { type: 'string' }, store: { type: 'string' }, 'pg-pool-size': { type: 'string' }, dashboard: { type: 'boolean' } }, false).values;
  const text = (name: string) => (env[name] ?? '').trim() || undefined;
  const secret = text('WEBHOOK_SECRET');
  if (secret === undefined) throw new UsageError('WEBHOOK_SECRET is not set: give the secret configured for the app\'s webhook, so that unsigned deliveries are refused');
  const githubToken = text('GITHUB_TOKEN');
  const appId = text('APP_ID');
  let privateKey = env.PRIVATE_KEY?.trim() ? env.PRIVATE_KEY.replace(/\\n/g, '\n') : undefined;
  const keyPath = text('PRIVATE_KEY_PATH');
  if (privateKey === undefined && keyPath !== undefined) {
    try {
      privateKey = readFileSync(keyPath, 'utf8');
    } catch (error) {
      throw new UsageError(`PRIVATE_KEY_PATH ${keyPath}: ${(error as Error).message}`);
    }
  }
  if (githubToken === undefined) {
    if (appId === undefined || !/^\d+$/.test(appId)) throw new UsageError(`APP_ID ${appId === undefined ? 'is not set' : `"${appId}" is not a number`}: give the GitHub App's id (or GITHUB_TOKEN to run with one token)`);
    if (privateKey === undefined) throw new UsageError('neither PRIVATE_KEY nor PRIVATE_KEY_PATH is set: give the app\'s private key (PEM)');
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(privateKey)) throw new UsageError('the private key is not a PEM private key (-----BEGIN RSA PRIVATE KEY----- ...)');
  }
  const portText = (values.port as string | undefined) ?? text('PORT') ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new UsageError(`${values.port !== undefined ? '--port' : 'PORT'} ${portText}: give a port number from 0 to 65535`);
  const poolText = (values['pg-pool-size'] as string | undefined) ?? text('BENCHBOT_PG_POOL_SIZE') ?? String(DEFAULT_MAX_CONNECTIONS);
  const pgPoolSize = Number(poolText);
  if (!/^\d+$/.test(poolText.trim()) || pgPoolSize < 1 || pgPoolSize > MAX_PG_POOL_SIZE) {
    throw new UsageError(`${values['pg-pool-size'] !== undefined ? '--pg-pool-size' : 'BENCHBOT_PG_POOL_SIZE'} ${poolText}: give a number of PostgreSQL connections from 1 to ${MAX_PG_POOL_SIZE}`);
  }
  const apiUrl = text('GITHUB_API_URL') ?? DEFAULT_API_URL;
  try {
    new URL(apiUrl);
  } catch {
    throw new UsageError(`GITHUB_API_URL ${redact(apiUrl)} is not a URL`);
  }
  const intervalText = text('BENCHBOT_WRITE_INTERVAL_MS');
  if (intervalText !== undefined && !/^\d{1,6}$/.test(intervalText)) throw new UsageError(`BENCHBOT_WRITE_INTERVAL_MS ${intervalText}: give the milliseconds between writes (0 to 999999), or leave it unset for GitHub's pacing`);
  const jobs: Partial<JobSettings> = {};
  for (const [name, key, least] of JOB_VARIABLES) {
    const value = text(name);
    if (value === undefined) continue;
    if (!/^\d+$/.test(value) || Number(value) < least) throw new UsageError(`${name} ${value}: give a whole number, at least ${least}`);
    jobs[key] = Number(value);
  }
  const logLevel = (text('LOG_LEVEL') ?? 'info') as ServeSettings['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`LOG_LEVEL ${logLevel}: use one of ${LOG_LEVELS.join(', ')}`);
  return {
    appId: githubToken === undefined ? appId : undefined,
    privateKey: githubToken === undefined ? privateKey : undefined,
    githubToken,
    secret,
    previousSecrets: text('WEBHOOK_SECRET_PREVIOUS') === undefined ? [] : [text('WEBHOOK_SECRET_PREVIOUS') as string],
    apiUrl,
    store: values.store as string | undefined,
    pgPoolSize,
    port,
    host: (values.host as string | undefined) ?? text('HOST') ?? '0.0.0.0',
    botLogin: text('BOT_LOGIN'),
    logLevel,
    dashboard: values.dashboard === true,
    writeIntervalMs: intervalText === undefined ? undefined : Number(intervalText),
    jobs,
  };
}

/**
 * runServe implements `benchbot serve`: it opens the store, starts the app,
 * prints where it listens, and runs until SIGINT or SIGTERM, then closes the
 * server (the running jobs may finish for BENCHBOT_JOB_GRACE_MS; the rest
 * go back to the queue for another replica) and the store. The app's
 * memory of handled comments and effects is pruned at start after as long
 * as done jobs are kept (JOB_DEFAULTS.retentionMs: GitHub redelivers within
 * days, not weeks).
 */
export async function runServe(args: string[], out: (text: string) => void, env: Record<string, string | undefined> = process.env): Promise<number> {
  const settings = readServeSettings(args, env);
  const store = await openStore(settings.store, { cwd: process.cwd(), env, maxConnections: settings.pgPoolSize });
  try {
    const pruned = await createAppState(store).pruneDeliveries(JOB_DEFAULTS.retentionMs);
    const server = await startAppServer({
      appId: settings.appId,
      privateKey: settings.privateKey,
      githubToken: settings.githubToken,
      secret: settings.secret,
      previousSecrets: settings.previousSecrets,
      apiUrl: settings.apiUrl,
      store,
      port: settings.port,
      host: settings.host,
      botLogin: settings.botLogin,
      writeIntervalMs: settings.writeIntervalMs,
      logLevel: settings.logLevel,
      jobs: settings.jobs,
      dashboard: settings.dashboard
        ? createDashboardHandler({ store, assets: loadSiteAssets(), settings: { title: 'benchbot', repoUrl: githubRepoUrl(env.GITHUB_SERVER_URL ?? 'https://github.com') } })
        : undefined,
    });
    out(`benchbot serve: listening on ${server.url} (webhooks at ${server.webhookUrl}, health at ${server.url}/healthz${settings.dashboard ? `, dashboard at ${server.url}${DASHBOARD_PATH}/` : ''}; store ${redact(store.location)}${pruned > 0 ? `, pruned ${pruned} old delivery ids` : ''})`);
    const signal = await Promise.race([once(process, 'SIGTERM'), once(process, 'SIGINT')]);
    out(`benchbot serve: ${String(signal[0] ?? 'signal')} received, stopping`);
    await server.close();
    return 0;
  } finally {
    await store.close();
  }
}
