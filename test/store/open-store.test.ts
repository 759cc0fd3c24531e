import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DEFAULT_SQLITE_PATH, openStore, resolveStoreLocation } from '../../src/store/open-store.ts';
import { StoreError } from '../../src/store/store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-open-store-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('resolveStoreLocation: flag, then BENCHBOT_DATABASE_URL, then .benchbot/benchbot.db under cwd', () => {
  const cwd = '/work/repo';
  assert.deepEqual(resolveStoreLocation(undefined, { cwd, env: {} }), { kind: 'sqlite', path: '/work/repo/.benchbot/benchbot.db' });
  assert.deepEqual(resolveStoreLocation('', { cwd, env: { BENCHBOT_DATABASE_URL: '  ' } }), { kind: 'sqlite', path: join(cwd, DEFAULT_SQLITE_PATH) });
  assert.deepEqual(resolveStoreLocation(undefined, { cwd, env: { BENCHBOT_DATABASE_URL: 'sqlite:hist.db' } }), { kind: 'sqlite', path: '/work/repo/hist.db' });
  assert.deepEqual(resolveStoreLocation('other.db', { cwd, env: { BENCHBOT_DATABASE_URL: 'sqlite:hist.db' } }), { kind: 'sqlite', path: '/work/repo/other.db' });
  assert.deepEqual(resolveStoreLocation('sqlite:///var/lib/bench.db', { cwd, env: {} }), { kind: 'sqlite', path: '/var/lib/bench.db' });
  assert.deepEqual(resolveStoreLocation('/abs/x.db', { cwd, env: {} }), { kind: 'sqlite', path: '/abs/x.db' });
  assert.deepEqual(resolveStoreLocation('postgresql://u:pw@db.example:5433/bench', { cwd, env: {} }), {
    kind: 'postgres',
    url: 'postgresql://u:pw@db.example:5433/bench',
    display: 'postgresql://u:***@db.example:5433/bench',
  });
  assert.equal(resolveStoreLocation(undefined, { cwd, env: { BENCHBOT_DATABASE_URL: 'postgres://h/db' } }).kind, 'postgres');
});

test('resolveStoreLocation refuses what it cannot open, naming the forms it takes', () => {
  assert.throws(() => resolveStoreLocation('mysql://u:secret@h/db', { cwd: '/', env: {} }), (e: unknown) => e instanceof StoreError && /unsupported store URL scheme "mysql:"/.test(e.message) && /postgres:\/\//.test(e.message) && !e.message.includes('secret'));
  assert.throws(() => resolveStoreLocation('sqlite:', { cwd: '/', env: {} }), /names no file; write sqlite:PATH/);
  assert.throws(() => resolveStoreLocation('postgres://[bad', { cwd: '/', env: {} }), /not a valid URL/);
});

test('openStore with no URL creates .benchbot/benchbot.db under cwd, in WAL mode', async () => {
  const cwd = join(scratch, 'default');
  const store = await openStore(undefined, { cwd, env: {} });
  try {
    assert.equal(store.kind, 'sqlite');
    assert.equal(store.location, join(cwd, '.benchbot', 'benchbot.db'));
    await store.putState('k', 1);
    assert.ok(existsSync(join(cwd, '.benchbot', 'benchbot.db-wal')), 'WAL file exists while open');
  } finally {
    await store.close();
  }
});

test('an unwritable SQLite path fails naming the path and the fix, creating nothing', async () => {
  const file = join(scratch, 'a-file');
  writeFileSync(file, 'not a directory');
  const path = join(file, 'sub', 'benchbot.db');
  await assert.rejects(openStore(path, { cwd: scratch, env: {} }), (e: unknown) => {
    assert.ok(e instanceof StoreError);
    assert.ok(e.message.includes(path), e.message);
    assert.match(e.message, /--store/);
    assert.match(e.message, /writable directory/);
    return true;
  });
  assert.equal(existsSync(join(file, 'sub')), false);
});

test('a file that is not a SQLite database is refused, and left untouched', async () => {
  const path = join(scratch, 'garbage.db');
  const garbage = 'this is not a database file, just text that is long enough to fill a header block '.repeat(20);
  writeFileSync(path, garbage);
  await assert.rejects(openStore(`sqlite:${path}`, { cwd: scratch, env: {} }), (e: unknown) => e instanceof StoreError && e.message.includes(path) && /not a SQLite database/.test(e.message));
  assert.equal(readFileSync(path, 'utf8'), garbage);
});

test('an unreachable PostgreSQL URL fails with the URL (password hidden) and what to fix', async () => {
  const port = await closedPort();
  const url = `postgres://benchbot:s3cret@127.0.0.1:${port}/history`;
  await assert.rejects(openStore(url, { cwd: scratch, env: {}, connectTimeoutMs: 5000 }), (e: unknown) => {
    assert.ok(e instanceof StoreError);
    assert.ok(e.message.includes(`postgres://benchbot:***@127.0.0.1:${port}/history`), e.message);
    assert.ok(!e.message.includes('s3cret'), 'the password is not printed');
    assert.match(e.message, /connection refused/);
    assert.match(e.message, /start PostgreSQL there, or fix the host\/port/);
    assert.match(e.message, /BENCHBOT_DATABASE_URL/);
    return true;
  });
  // The same through the environment variable.
  await assert.rejects(openStore(undefined, { cwd: scratch, env: { BENCHBOT_DATABASE_URL: url } }), /connection refused/);
});

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
