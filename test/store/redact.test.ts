// Credentials never reach a message: redact() on every URL and connection
// string form, and the public CLI (`benchbot export`, `benchbot serve`) with
// store URLs that carry a password, including a server whose error message
// echoes the password back through the real `pg` driver.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connectionSecrets, redact, scrubError } from '../../src/store/redact.ts';

const node = process.execPath;
const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'benchbot-redact-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

test('redact hides the password in every URL and connection string form, keeping what says where', () => {
  const cases: [string, string][] = [
    ['postgres://u@db.example:5432/bench?password=hunter2', 'postgres://u@db.example:5432/bench?password=***'],
    ['postgresql://u@db.example/bench?sslmode=require&PassWord=hunter2', 'postgresql://u@db.example/bench?sslmode=require&PassWord=***'],
    ['postgres://u@db.example/bench?%70assword=hunter2', 'postgres://u@db.example/bench?%70assword=***'],
    ['postgres://u@db.example/bench?PASSWORD=hunter2#frag', 'postgres://u@db.example/bench?PASSWORD=***#frag'],
    ['postgres://u:hunter2@db.example/bench', 'postgres://u:***@db.example/bench'],
    ['postgres://u:hun%40ter2@db.example/bench', 'postgres://u:***@db.example/bench'],
    ['postgres://u:hun@ter2@db.example/bench', 'postgres://u:***@db.example/bench'],
    ['postgres://u:hun/ter?2@db.example/bench', 'postgres://u:***@db.example/bench'],
    ['postgres://u:hun ter2@db.example/bench', 'postgres://u:***@db.example/bench'],
    ['postgres://u@h/db?sslpassword=hunter2&sslkey=/etc/bench/client.key&sslcert=/etc/bench/client.crt&passfile=/home/b/.pgpass', 'postgres://u@h/db?sslpassword=***&sslkey=/etc/bench/client.key&sslcert=/etc/bench/client.crt&passfile=/home/b/.pgpass'],
    ['postgres://h/db?api_key=hunter2&apikey=hunter2&token=hunter2&secret=hunter2&pwd=hunter2&pass=hunter2&key=hunter2&application_name=bench', 'postgres://h/db?api_key=***&apikey=***&token=***&secret=***&pwd=***&pass=***&key=***&application_name=bench'],
    ['host=db.example port=5432 user=u password=hunter2 dbname=bench', 'host=db.example port=5432 user=u password=*** dbname=bench'],
    ["host=db.example password='hun ter\\'2' dbname=bench", 'host=db.example password=*** dbname=bench'],
    ['host=db.example password = hunter2', 'host=db.example password = ***'],
    ['mysql://u:hunter2@h/db', 'mysql://u:***@h/db'],
    ['https://ghp_0123456789abcdefhunter2@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    ['https://x-access-token:ghs_hunter2@github.com/o/r.git', 'https://x-access-token:***@github.com/o/r.git'],
  ];
  for (const [input, expected] of cases) {
    assert.equal(redact(input), expected, input);
    assert.equal(redact(redact(input)), expected, `redacting twice changes nothing: ${input}`);
  }
});

test('redact finds URLs and pairs inside messages, and echoes of known secrets', () => {
  const message = 'cannot connect to postgres://u:hunter2@h/db: refused; retried postgresql://u@h/db?password=hunter3, see https://example.com/docs';
  // A value runs to whitespace, & or #: punctuation right after a password goes with it rather than risk leaving part of one.
  assert.equal(redact(message), 'cannot connect to postgres://u:***@h/db: refused; retried postgresql://u@h/db?password=*** see https://example.com/docs');
  const url = 'postgres://u:p%40ss%2Fword@h/db?sslpassword=k3y-phrase';
  const secrets = connectionSecrets(url);
  assert.ok(secrets.includes('p@ss/word') && secrets.includes('p%40ss%2Fword') && secrets.includes('k3y-phrase'), String(secrets));
  assert.equal(redact('server: password "p@ss/word" rejected (k3y-phrase)', { secrets }), 'server: password "***" rejected (***)');
  assert.equal(redact('write postgres://USER:PASSWORD@HOST:PORT/DATABASE'), 'write postgres://USER:PASSWORD@HOST:PORT/DATABASE', 'the help text placeholder stays readable');
  assert.equal(redact('no secrets here: https://api.github.com/repos/o/r, host=h port=1'), 'no secrets here: https://api.github.com/repos/o/r, host=h port=1');
});

test('scrubError redacts message, stack and causes in place', () => {
  const inner = new Error('FATAL: password hunter2 is wrong');
  const outer = new Error('open postgres://u:hunter2@h/db failed', { cause: new AggregateError([inner], 'all failed') });
  scrubError(outer, { secrets: ['hunter2'] });
  assert.doesNotMatch(outer.message + outer.stack + (outer.cause as Error).message + inner.message + inner.stack, /hunter2/);
});

test('redact is linear on hostile text', () => {
  for (const text of ['a.'.repeat(300_000), `x://${'@'.repeat(300_000)}`, '&a=b'.repeat(150_000), `password='${'\\x'.repeat(300_000)}`, ' a'.padEnd(600_000, ' ')]) {
    const started = performance.now();
    redact(text, { secrets: ['hunter2'] });
    assert.ok(performance.now() - started < 2000, `${text.slice(0, 12)}... took ${Math.round(performance.now() - started)} ms`);
  }
});

test('benchbot export never prints a store password, in any form, from the flag or the environment', async () => {
  const port = await closedPort();
  const at = `127.0.0.1:${port}`;
  const cases: { store?: string; env?: string; shows: RegExp }[] = [
    { store: `postgres://u@${at}/db?password=hunter2`, shows: /postgres:\/\/u@127\.0\.0\.1:\d+\/db\?password=\*\*\*: connection refused/ },
    { store: `postgresql://u@${at}/db?sslmode=disable&PassWord=hunter2`, shows: /PassWord=\*\*\*/ },
    { store: `postgres://u@${at}/db?%70assword=hunter2`, shows: /%70assword=\*\*\*/ },
    { store: `postgres://u@${at}/db?sslpassword=hunter2&token=hunter2`, shows: /sslpassword=\*\*\*&token=\*\*\*/ },
    { store: `postgres://u:hunter2@${at}/db`, shows: /postgres:\/\/u:\*\*\*@127/ },
    { store: `postgres://u:hun@ter2@${at}/db`, shows: /postgres:\/\/u:\*\*\*@127/ },
    { store: `postgres://u@[bad/db?password=hunter2`, shows: /not a valid URL/ },
    { store: `host=127.0.0.1 port=${port} user=u password=hunter2 dbname=db`, shows: /password=\*\*\* dbname=db is a keyword\/value connection string.*postgres:\/\/USER:PASSWORD@HOST/ },
    { store: `mysql://u@h/db?password=hunter2`, shows: /unsupported store URL scheme "mysql:"/ },
    { env: `postgres://u@${at}/db?password=hunter2`, shows: /password=\*\*\*: connection refused/ },
  ];
  const cwd = mkdtempSync(join(scratch, 'export-'));
  await Promise.all(cases.map(async ({ store, env, shows }) => {
    const args = store === undefined ? ['export'] : ['export', '--store', store];
    const result = await runCli(args, { BENCHBOT_DATABASE_URL: env }, cwd);
    const label = store ?? `BENCHBOT_DATABASE_URL=${env}`;
    assert.equal(result.code, 2, `${label}: ${result.stderr}`);
    assert.match(result.stderr, shows, label);
    assert.doesNotMatch(result.stdout + result.stderr, /hunter2|hun@ter2/, label);
  }));
  assert.deepEqual(readdirSync(cwd), [], 'a keyword/value string does not become a SQLite file named after the password');
});

test('a PostgreSQL server that echoes the password in its error: pg\'s message is redacted too', async () => {
  const server = await echoingPostgres();
  try {
    const port = (server.address() as { port: number }).port;
    for (const store of [`postgres://bench@127.0.0.1:${port}/history?password=hunter2`, `postgres://bench:hunter2@127.0.0.1:${port}/history`]) {
      const result = await runCli(['export', '--store', store], {}, scratch);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /password "\*\*\*" is not the one for user "bench"/, 'the server\'s message is shown, with the password hidden');
      assert.match(result.stderr, /Fix the user name and password/);
      assert.doesNotMatch(result.stdout + result.stderr, /hunter2/, store);
    }
  } finally {
    server.close();
  }
});

test('benchbot serve never prints a store password or a credential in GITHUB_API_URL', async () => {
  const port = await closedPort();
  const env = { WEBHOOK_SECRET: 's', GITHUB_TOKEN: 't', LOG_LEVEL: 'fatal' };
  const store = await runCli(['serve', '--port', '0', '--host', '127.0.0.1', '--store', `postgresql://bench@127.0.0.1:${port}/app?password=hunter2`], env, scratch);
  assert.equal(store.code, 2, store.stderr);
  assert.match(store.stderr, /password=\*\*\*: connection refused/);
  assert.doesNotMatch(store.stdout + store.stderr, /hunter2/);
  const api = await runCli(['serve', '--port', '0'], { ...env, GITHUB_API_URL: 'https://bench:hunter2@[ghes/api/v3' }, scratch);
  assert.equal(api.code, 2, api.stderr);
  assert.match(api.stderr, /GITHUB_API_URL https:\/\/bench:\*\*\*@\[ghes\/api\/v3 is not a URL/);
  assert.doesNotMatch(api.stdout + api.stderr, /hunter2/);
  assert.equal(existsSync(join(scratch, '.benchbot')), false, 'nothing was opened');
});

function runCli(args: string[], env: Record<string, string | undefined>, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const childEnv: Record<string, string | undefined> = { ...process.env, BENCHBOT_DATABASE_URL: undefined, ...env };
    for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
    const child = spawn(node, [cli, ...args], { cwd, env: childEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/**
 * echoingPostgres speaks just enough of the PostgreSQL wire protocol (v3) to
 * ask for a cleartext password and reject it with an ErrorResponse that
 * quotes it, as a misconfigured proxy or a hostile server could.
 */
function echoingPostgres(): Promise<Server> {
  const server = createServer((socket: Socket) => {
    let buffer = Buffer.alloc(0);
    let started = false;
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!started) {
        if (buffer.length < 4 || buffer.length < buffer.readInt32BE(0)) return;
        buffer = buffer.subarray(buffer.readInt32BE(0));
        started = true;
        const auth = Buffer.alloc(9);
        auth.write('R', 0);
        auth.writeInt32BE(8, 1);
        auth.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(auth);
      }
      if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return;
      const password = buffer.subarray(5, 1 + buffer.readInt32BE(1) - 1).toString('utf8');
      const fields = Buffer.from(`SFATAL\0VFATAL\0C28P01\0Mpassword "${password}" is not the one for user "bench"\0\0`, 'utf8');
      const error = Buffer.alloc(5);
      error.write('E', 0);
      error.writeInt32BE(4 + fields.length, 1);
      socket.end(Buffer.concat([error, fields]));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
