// Rotating the webhook secret without losing deliveries (docs/app.md,
// Deployment): `benchbot serve` started with WEBHOOK_SECRET (the new one)
// and WEBHOOK_SECRET_PREVIOUS (the old one) handles deliveries signed with
// either, as a real process against the GitHub API stand-in, and still
// refuses any other signature. Without WEBHOOK_SECRET_PREVIOUS the old
// secret is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { APP_ID, APP_SLUG, BOT_LOGIN, INSTALLATION_ID, sign } from './app-harness.ts';

const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;

async function serve(env: Record<string, string>) {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startGitHubApiStandIn({
    state: {
      actor: { login: BOT_LOGIN, type: 'Bot' },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: 'bench-org', type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
      permissions: { maintainer: 'maintain' },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-rotation-'));
  writeFileSync(join(dir, 'app.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1', '--store', join(dir, 'app.db')], {
    env: { ...process.env, APP_ID: String(APP_ID), PRIVATE_KEY_PATH: join(dir, 'app.pem'), GITHUB_API_URL: stand.url, LOG_LEVEL: 'fatal', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
  assert.ok(url, first);
  let comment = 0;
  // Each delivery is a new /bench help comment on its own pull request (one reply each).
  const deliver = async (secret: string) => {
    comment += 1;
    const body = JSON.stringify({ action: 'created', installation: { id: INSTALLATION_ID }, repository: { name: 'bench-target', owner: { login: 'bench-org' }, default_branch: 'main' }, issue: { number: 7 + comment, pull_request: {} }, comment: { id: comment, body: '/bench help', created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', user: { login: 'maintainer', type: 'User' } } });
    const response = await fetch(`${url}/api/github/webhooks`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': randomUUID(), 'x-hub-signature-256': sign(body, secret) } });
    return response.status;
  };
  const stop = async () => {
    child.kill('SIGTERM');
    await once(child, 'exit');
    await stand.close();
  };
  // The app answers before it works: wait (up to 20 s) for the replies its workers make.
  const replied = async (count: number) => {
    for (const until = Date.now() + 20_000; stand.state.comments.length < count && Date.now() < until;) await new Promise((resolve) => setTimeout(resolve, 10));
    return stand.state.comments.map((c) => c.issueNumber).sort();
  };
  return { deliver, stand, stop, replied };
}

test('during a rotation both secrets verify; a third does not; the replies are made', async () => {
  const app = await serve({ WEBHOOK_SECRET: 'new secret', WEBHOOK_SECRET_PREVIOUS: 'old secret' });
  try {
    assert.equal(await app.deliver('old secret'), 200, 'a delivery GitHub signed before the secret changed there');
    assert.equal(await app.deliver('new secret'), 200, 'a delivery signed after');
    assert.equal(await app.deliver('some other secret'), 400);
    assert.deepEqual(await app.replied(2), [8, 9], 'both verified deliveries were handled');
  } finally {
    await app.stop();
  }
});

test('after the rotation (no WEBHOOK_SECRET_PREVIOUS) the old secret is refused', async () => {
  const app = await serve({ WEBHOOK_SECRET: 'new secret' });
  try {
    assert.equal(await app.deliver('old secret'), 400);
    assert.equal(await app.deliver('new secret'), 200);
    assert.deepEqual(await app.replied(1), [9]);
  } finally {
    await app.stop();
  }
});
