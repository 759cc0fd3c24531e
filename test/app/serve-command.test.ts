// `benchbot serve` as a real process: settings errors name the variable,
// and a started server answers its health check, refuses an unsigned
// delivery, handles a signed one with the app's JWT against the stand-in,
// and stops on SIGTERM.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { readServeSettings } from '../../src/cli/serve-command.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { assertAllValid, startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { APP_ID, APP_SLUG, BOT_LOGIN, INSTALLATION_ID, sign } from './app-harness.ts';

const node = process.execPath;
const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;

test('settings errors name the variable to set', () => {
  const base = { WEBHOOK_SECRET: 's', APP_ID: '1', PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\\nx\\n-----END RSA PRIVATE KEY-----' };
  assert.throws(() => readServeSettings([], { ...base, WEBHOOK_SECRET: '' }), (e) => e instanceof UsageError && /WEBHOOK_SECRET/.test(e.message));
  assert.throws(() => readServeSettings([], { ...base, APP_ID: 'abc' }), /APP_ID "abc" is not a number/);
  assert.throws(() => readServeSettings([], { WEBHOOK_SECRET: 's', APP_ID: '1' }), /PRIVATE_KEY/);
  assert.throws(() => readServeSettings([], { ...base, PRIVATE_KEY: 'hello' }), /not a PEM private key/);
  assert.throws(() => readServeSettings([], { ...base, PRIVATE_KEY: undefined, PRIVATE_KEY_PATH: '/nonexistent/key.pem' }), /PRIVATE_KEY_PATH \/nonexistent\/key.pem/);
  assert.throws(() => readServeSettings(['--port', '99999'], base), /--port 99999/);
  assert.throws(() => readServeSettings([], { ...base, LOG_LEVEL: 'loud' }), /LOG_LEVEL loud/);
  assert.throws(() => readServeSettings([], { ...base, BENCHBOT_WRITE_INTERVAL_MS: '1s' }), /BENCHBOT_WRITE_INTERVAL_MS 1s: give the milliseconds/);
  assert.equal(readServeSettings([], base).writeIntervalMs, undefined, 'GitHub\'s pacing unless asked');
  assert.equal(readServeSettings([], { ...base, BENCHBOT_WRITE_INTERVAL_MS: '0' }).writeIntervalMs, 0);
  const settings = readServeSettings(['--port', '0'], base);
  assert.equal(settings.port, 0);
  assert.equal(settings.privateKey?.split('\n').length, 3, 'escaped newlines in PRIVATE_KEY become newlines');
  assert.equal(readServeSettings([], { WEBHOOK_SECRET: 's', GITHUB_TOKEN: 't' }).githubToken, 't');
});

test('benchbot serve: health, signatures, a signed delivery handled with the app\'s JWT, SIGTERM', async () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startGitHubApiStandIn({
    state: {
      actor: { login: BOT_LOGIN, type: 'Bot' },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: 'bench-org', type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
      permissions: { maintainer: 'maintain' },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-serve-'));
  const keyPath = join(dir, 'app.pem');
  writeFileSync(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const child = spawn(node, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', join(dir, 'app.db')], {
    env: { ...process.env, APP_ID: String(APP_ID), PRIVATE_KEY_PATH: keyPath, WEBHOOK_SECRET: 'serve secret', GITHUB_API_URL: stand.url, LOG_LEVEL: 'fatal' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const lines = createInterface({ input: child.stdout });
    const [first] = (await once(lines, 'line')) as [string];
    const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
    assert.ok(url, first);
    const health = await (await fetch(`${url}/healthz`)).json();
    assert.deepEqual([health.status, health.store, health.queue.depth, health.pacing.writeSpacingMs], ['ok', 'sqlite', 0, 1000], 'as shipped: writes paced a second apart');

    const payload = { action: 'created', installation: { id: INSTALLATION_ID }, repository: { name: 'bench-target', owner: { login: 'bench-org' }, default_branch: 'main' }, issue: { number: 7, pull_request: {} }, comment: { id: 1, body: '/bench help', created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', user: { login: 'maintainer', type: 'User' } } };
    const body = JSON.stringify(payload);
    const post = (signature: string | null) => fetch(`${url}/api/github/webhooks`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    });
    assert.equal((await post(null)).status, 400);
    assert.equal((await post(sign(body, 'wrong secret'))).status, 400);
    assert.equal(stand.requests.length, 0, 'refused deliveries make no API call');
    assert.equal((await post(sign(body, 'serve secret'))).status, 200);
    // Answered when stored; the reply is made by a worker right after.
    for (const until = Date.now() + 20_000; stand.state.comments.length === 0 && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(stand.requests[0].template, '/app/installations/{installation_id}/access_tokens');
    assert.equal(stand.requests[0].status, 201);
    assert.equal(stand.state.comments.length, 1);
    assert.match(stand.state.comments[0].body, /^<!-- benchbot:reply -->\n@maintainer, here is how/);
    assertAllValid(stand);

    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await stand.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
