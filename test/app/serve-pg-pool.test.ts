// `benchbot serve --pg-pool-size N` (or BENCHBOT_PG_POOL_SIZE) is the size of the PostgreSQL pool the app uses
// (issue 24, item 4). A real `benchbot serve` process on a throwaway cluster: the test locks the state table, sends
// more health checks at once than the pool holds, and counts the app's connections in pg_stat_activity: exactly N
// wait on the lock, the other checks wait for a connection, and all are answered once the lock goes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { readServeSettings } from '../../src/cli/serve-command.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { DEFAULT_MAX_CONNECTIONS } from '../../src/store/postgres-store.ts';
import { postgresUnavailable, startPostgres } from '../support/postgres-server.ts';

const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;
const noPostgres = postgresUnavailable();
const CHECKS = 12;

test('the pool size is read from --pg-pool-size, then BENCHBOT_PG_POOL_SIZE, with a default and errors naming the flag', () => {
  const env = { WEBHOOK_SECRET: 's', GITHUB_TOKEN: 't' };
  assert.equal(readServeSettings([], env).pgPoolSize, DEFAULT_MAX_CONNECTIONS);
  assert.equal(readServeSettings([], { ...env, BENCHBOT_PG_POOL_SIZE: '7' }).pgPoolSize, 7);
  assert.equal(readServeSettings(['--pg-pool-size', '3'], { ...env, BENCHBOT_PG_POOL_SIZE: '7' }).pgPoolSize, 3, 'the flag wins');
  assert.throws(() => readServeSettings(['--pg-pool-size', '0'], env), (e) => e instanceof UsageError && /--pg-pool-size 0: give a number of PostgreSQL connections from 1/.test(e.message));
  assert.throws(() => readServeSettings([], { ...env, BENCHBOT_PG_POOL_SIZE: 'many' }), /BENCHBOT_PG_POOL_SIZE many/);
  const docs = readFileSync(new URL('../../docs/app.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  assert.ok(docs.includes(`opens at most ${DEFAULT_MAX_CONNECTIONS} PostgreSQL connections`), 'docs/app.md gives the default');
});

test('benchbot serve opens at most the configured number of PostgreSQL connections', { skip: noPostgres, timeout: 90_000 }, async (t) => {
  const server = await startPostgres();
  try {
    for (const [how, args, env, size] of [['--pg-pool-size 3', ['--pg-pool-size', '3'], {}, 3], ['BENCHBOT_PG_POOL_SIZE=5', [], { BENCHBOT_PG_POOL_SIZE: '5' }, 5]] as const) {
      const url = server.createDatabase(`pool_${size}`);
      const seen = await connectionsUnderLoad(url, [...args], env);
      t.diagnostic(`${how}: ${CHECKS} health checks at once against a locked state table: ${seen.connections} connections, ${seen.waiting} waiting on the lock; answers ${seen.statuses.join(',')}`);
      assert.equal(seen.waiting, size, `${how}: as many queries wait on the lock as the pool holds`);
      assert.equal(seen.connections, size, `${how}: and no more connections are open`);
      assert.deepEqual(seen.statuses, Array(CHECKS).fill(200), 'every check is answered once the lock goes');
    }
  } finally {
    server.stop();
  }
});

/** connectionsUnderLoad starts `benchbot serve` on `url`, holds the state table locked while CHECKS health checks run, and counts its connections. */
async function connectionsUnderLoad(url: string, args: string[], env: Record<string, string>): Promise<{ connections: number; waiting: number; statuses: number[] }> {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', url, ...args], {
    env: { ...process.env, GITHUB_TOKEN: 'unused', WEBHOOK_SECRET: 'pool secret', GITHUB_API_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'fatal', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const admin = new pg.Client({ connectionString: url });
  try {
    const [first] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    const app = /listening on (http:\/\/\S+)/.exec(first)?.[1];
    assert.ok(app, `${first}\n${stderr}`);
    await admin.connect();
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE state IN ACCESS EXCLUSIVE MODE');
    const answers = Promise.all(Array.from({ length: CHECKS }, () => fetch(`${app}/healthz`).then((r) => r.status)));
    // Wait until the waiting count has held still for half a second: the pool has handed out all it has.
    let last = -1;
    let steadySince = Date.now();
    const until = Date.now() + 15_000;
    let counts = { connections: 0, waiting: 0 };
    while (Date.now() < until) {
      const { rows } = await admin.query("SELECT count(*)::int AS connections, count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
      counts = rows[0];
      if (counts.waiting !== last) {
        last = counts.waiting;
        steadySince = Date.now();
      } else if (counts.waiting > 0 && Date.now() - steadySince > 500) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await admin.query('COMMIT');
    const statuses = await answers;
    child.kill('SIGTERM');
    await once(child, 'exit');
    return { ...counts, statuses };
  } finally {
    await admin.end().catch(() => undefined);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
