// `benchbot serve` on a PostgreSQL store survives its database connection
// dropping mid-request. A real `benchbot serve` process on a throwaway
// cluster: the test locks the state table, so the app's query for a health
// check (and then for a delivery) waits on a checked-out connection; the
// test terminates that backend (pg_terminate_backend, as an admin or a
// failover does). The request fails (503), and the server stays up
// and answers the next health check and signed delivery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { postgresUnavailable, startPostgres } from '../support/postgres-server.ts';
import { APP_ID, APP_SLUG, BOT_LOGIN, INSTALLATION_ID, sign } from './app-harness.ts';

const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;
const SECRET = 'drop secret';
const noPostgres = postgresUnavailable();

test('benchbot serve stays up when PostgreSQL terminates its connection mid-request', { skip: noPostgres, timeout: 90_000 }, async (t) => {
  const server = await startPostgres();
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startGitHubApiStandIn({
    state: {
      actor: { login: BOT_LOGIN, type: 'Bot' },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: 'bench-org', type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-pgdrop-'));
  const keyPath = join(dir, 'app.pem');
  writeFileSync(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  let child: ChildProcess | undefined;
  const admin = new pg.Client({ connectionString: server.url });
  try {
    child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', server.url], {
      // Workers look for jobs only when this replica stores one (no polling): the delivery is then the only query waiting on the job table's lock.
      env: { ...process.env, APP_ID: String(APP_ID), PRIVATE_KEY_PATH: keyPath, WEBHOOK_SECRET: SECRET, GITHUB_API_URL: stand.url, LOG_LEVEL: 'fatal', BENCHBOT_JOB_POLL_MS: '3600000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
    assert.ok(url, first);
    const health = async () => (await fetch(`${url}/healthz`)).status;
    const deliver = async () => {
      const body = JSON.stringify({ action: 'created', installation: { id: INSTALLATION_ID }, repository: { name: 'bench-target', owner: { login: 'bench-org' }, default_branch: 'main' }, issue: { number: 7, pull_request: {} }, comment: { id: Math.floor(Math.random() * 1e9), body: '/bench help', created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', user: { login: 'someone', type: 'User' } } });
      const response = await fetch(`${url}/api/github/webhooks`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(body, SECRET) } });
      return response.status;
    };
    assert.equal(await health(), 200);
    await admin.connect();

    // Each request below waits for the lock on a connection the app has checked out of its pool; the test drops it there.
    // A delivery is stored as a job before it is answered: with its connection gone it is answered 503 (GitHub shows it failed; redeliver it).
    for (const [what, request, expected, table] of [['health check', health, 503, 'state'], ['signed delivery', deliver, 503, 'app_jobs']] as const) {
      // The previous delivery's job (a reply, paced by GitHub's 3 s between comments) finishes first: its UPDATE of
      // app_jobs waited on the same lock, the test dropped that backend instead of the delivery's, and the delivery
      // waited for the lock the test held until it answered (a fresh-clone npm test hung there).
      await untilIdle(url);
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      // A request that never comes back fails the test instead of holding the lock, and the suite, forever.
      const answer = Promise.race([
        request().then((status) => ({ status }), (error: Error) => ({ error: error.message })),
        new Promise<{ error: string }>((resolve) => setTimeout(() => resolve({ error: `no answer within 30 s while the lock was held` }), 30_000).unref()),
      ]);
      const pid = await waitingBackend(admin);
      const { rows } = await admin.query('SELECT pg_terminate_backend($1) AS done', [pid]);
      assert.equal(rows[0].done, true);
      t.diagnostic(`${what}: terminated backend ${pid} while the app waited on it`);
      const result = await answer;
      await admin.query('COMMIT');
      assert.deepEqual(result, { status: expected }, `the ${what} is answered (stderr: ${stderr.slice(-2000)})`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(child.exitCode, null, `benchbot serve exited after the dropped connection: ${stderr.slice(-2000)}`);
      assert.equal(await health(), 200, 'the next health check reconnects');
      assert.equal(await deliver(), 200, 'the next signed delivery is handled');
    }
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    await admin.end().catch(() => undefined);
    if (child?.exitCode === null) child.kill('SIGKILL');
    await stand.close();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** untilIdle waits until /healthz shows no job waiting or running. */
async function untilIdle(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const body = (await (await fetch(`${url}/healthz`)).json()) as { queue?: { depth?: number; leased?: number } };
    if (body.queue?.depth === 0 && body.queue?.leased === 0) return;
    if (Date.now() > until) throw new Error(`the app's queue did not empty within 30 s: ${JSON.stringify(body.queue)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** waitingBackend returns the pid of the one backend waiting for a lock (the app's query). */
async function waitingBackend(admin: pg.Client): Promise<number> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { rows } = await admin.query("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
    if (rows.length === 1) return rows[0].pid as number;
    if (Date.now() > until) {
      const waiting = await admin.query("SELECT left(query, 80) AS q FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()");
      throw new Error(`no single backend waiting for the lock (${rows.length}; waiting: ${JSON.stringify(waiting.rows.map((r) => r.q))})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
