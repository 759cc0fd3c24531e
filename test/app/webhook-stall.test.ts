// Stalled uploads cannot starve deliveries (issue 22, item 2). Over real
// HTTP to the real server with the stand-in: attack connections come from
// other loopback addresses (127.0.0.2 and up) than the genuine signed
// delivery (127.0.0.1), as a remote attacker's would. Four uploads of
// 25 MiB - 1 byte from one address that then stall used to fill the shared
// 100 MiB budget (every delivery got 503 for Node's 300 s); now that
// address gets one body's worth (the others 429), the signed delivery is
// answered during the attack, and the stalled body is cut at the deadline
// (408). Spread over four addresses the budget fills again, but only until
// the deadline. The shipped bounds are checked against the docs, and the
// header and body timeouts once each at their shipped values.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/app/app-server.ts';
import { clientKey, MAX_PENDING_WEBHOOK_BYTES, MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT, MAX_WEBHOOK_BODY_BYTES, WEBHOOK_BODY_TIMEOUT_MS } from '../../src/app/webhook-body.ts';
import { commentEvent, deliver, startHarness, type Harness } from './app-harness.ts';

const MB = 1024 * 1024;
const CHUNK = Buffer.alloc(256 * 1024, '{"padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');
/** DEADLINE_MS is the body deadline the attack tests run with (the shipped 15 s is checked once, below). */
const DEADLINE_MS = 3000;

/** Stall is one attack connection: its answer (status, or the error) and when it came, from the connection's start. */
interface Stall {
  answer: Promise<{ status?: number; error?: string; ms: number }>;
  /** sent resolves with the bytes handed to the socket once the upload stalls (or was answered first). */
  sent: Promise<number>;
  destroy(): void;
}

/**
 * stall declares a maximal body (25 MiB), sends all but its last byte from
 * `from` (a loopback address) and stops there, as the audit's attack did.
 */
function stall(url: string, from: string, bytes = MAX_WEBHOOK_BODY_BYTES - 1): Stall {
  const start = Date.now();
  const req = request(new URL('/api/github/webhooks', url), {
    method: 'POST',
    localAddress: from,
    headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': `stall-${Math.random()}`, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}`, 'content-length': String(MAX_WEBHOOK_BODY_BYTES) },
  });
  let answered = false;
  const answer = new Promise<{ status?: number; error?: string; ms: number }>((resolve) => {
    req.on('response', (res) => {
      answered = true;
      res.resume();
      resolve({ status: res.statusCode, ms: Date.now() - start });
    });
    req.on('error', (error) => resolve({ error: error.message, ms: Date.now() - start }));
  });
  const sent = (async () => {
    let written = 0;
    while (written < bytes && !answered && !req.destroyed) {
      const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - written));
      written += piece.length;
      if (!req.write(piece)) await new Promise<void>((resolve) => {
        const done = () => {
          req.off('drain', done);
          req.off('close', done);
          req.off('response', done);
          resolve();
        };
        req.on('drain', done);
        req.on('close', done);
        req.on('response', done);
      });
    }
    return written;
  })();
  return { answer, sent, destroy: () => req.destroy() };
}

/** signedDelivery is a genuine signed `/bench help` delivery from 127.0.0.1, with its time to the answer. */
async function signedDelivery(h: Harness): Promise<{ status: number; ms: number }> {
  const start = Date.now();
  const reply = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger' }));
  return { status: reply.status, ms: Date.now() - start };
}

/** probe is the status of a bogus-signed 1 kB delivery: 400 when its body was read (the signature check refuses it), 503 when the budget is full. */
async function probe(url: string): Promise<number> {
  const response = await fetch(new URL('/api/github/webhooks', url), { method: 'POST', body: JSON.stringify({ zen: 'x'.repeat(1000) }), headers: { 'content-type': 'application/json', 'x-github-event': 'ping', 'x-github-delivery': `probe-${Math.random()}`, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } });
  await response.arrayBuffer();
  return response.status;
}

/** settledWithin says whether `promise` settles within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}

describe('stalled uploads against the shipped budgets (deadline shortened to 3 s)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ webhookBodyLimits: { timeoutMs: DEADLINE_MS } });
  });
  after(() => h.close());

  test('four stalled 25 MiB uploads from one address: one is held, three get 429, a signed delivery is answered during the attack, the stall gets 408 at the deadline', async (t) => {
    // One delivery first, so the time measured below is the attack's, not the app's first installation token.
    const warm = await signedDelivery(h);
    assert.equal(warm.status, 200);
    t.diagnostic(`signed delivery before the attack: ${warm.status} in ${warm.ms} ms`);
    const attack = [0, 1, 2, 3].map(() => stall(h.app.url, '127.0.0.2'));
    try {
      const sent = await Promise.all(attack.map((a) => a.sent));
      t.diagnostic(`attack connections sent ${sent.map((b) => (b / MB).toFixed(1)).join(', ')} MiB`);
      // The three refused ones are answered at once; the held one has all its bytes in and waits for the last.
      const refused = await Promise.all(attack.map(async (a) => ((await settledWithin(a.answer, 1000)) ? a.answer : undefined)));
      const held = attack.filter((_, i) => refused[i] === undefined);
      assert.equal(held.length, 1, `one upload is held: ${JSON.stringify(refused)}`);
      for (const r of refused.filter((x) => x !== undefined)) assert.equal(r.status, 429, JSON.stringify(r));
      assert.ok(sent.some((b) => b === MAX_WEBHOOK_BODY_BYTES - 1), 'the held upload sent its 25 MiB - 1 byte');

      const genuine = await signedDelivery(h);
      t.diagnostic(`signed delivery during the attack: ${genuine.status} in ${genuine.ms} ms`);
      assert.equal(genuine.status, 200);
      assert.ok(genuine.ms < 1000, `answered in ${genuine.ms} ms`);
      assert.equal(await settledWithin(held[0].answer, 0), false, 'the stalled upload was still open when the delivery was answered');

      const cut = await held[0].answer;
      t.diagnostic(`stalled upload answered ${cut.status ?? cut.error} after ${cut.ms} ms (deadline ${DEADLINE_MS} ms)`);
      assert.equal(cut.status, 408, JSON.stringify(cut));
      assert.ok(cut.ms >= DEADLINE_MS - 100 && cut.ms < DEADLINE_MS + 3000, `cut after ${cut.ms} ms`);
    } finally {
      for (const a of attack) a.destroy();
    }
  });

  test('spread over four addresses the budget fills (503), until the deadline frees it', async (t) => {
    const attack = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5'].map((from) => stall(h.app.url, from));
    try {
      await Promise.all(attack.map((a) => a.sent));
      // The bytes are on their way; a bogus-signed probe (no handler runs) says when the server holds them all.
      const start = Date.now();
      while ((await probe(h.app.url)) !== 503) {
        assert.ok(Date.now() - start < 5000, 'the four uploads never filled the budget');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const during = await signedDelivery(h);
      assert.equal(during.status, 503, `the budget is full: ${JSON.stringify(during)}`);
      const answers = await Promise.all(attack.map((a) => a.answer));
      assert.deepEqual(answers.map((a) => a.status), [408, 408, 408, 408], JSON.stringify(answers));
      const later = await signedDelivery(h);
      const outage = Date.now() - start;
      t.diagnostic(`deliveries refused for at most ${outage} ms (deadline ${DEADLINE_MS} ms); then ${later.status} in ${later.ms} ms`);
      assert.equal(later.status, 200);
      assert.ok(outage < DEADLINE_MS + 3000, `outage ${outage} ms`);
    } finally {
      for (const a of attack) a.destroy();
    }
  });
});

describe('the shipped bounds', () => {
  test('are what docs/app.md and docs/security.md say', () => {
    assert.equal(MAX_WEBHOOK_BODY_BYTES, 25 * MB);
    assert.equal(MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT, 25 * MB);
    assert.equal(MAX_PENDING_WEBHOOK_BYTES, 100 * MB);
    assert.equal(WEBHOOK_BODY_TIMEOUT_MS, 15_000);
    assert.equal(HEADERS_TIMEOUT_MS, 10_000);
    assert.equal(REQUEST_TIMEOUT_MS, 25_000);
    const security = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    for (const phrase of [
      `at most ${MAX_WEBHOOK_BODY_BYTES / MB} MiB of a delivery`,
      `${MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT / MB} MiB in flight per client`,
      `budget of ${MAX_PENDING_WEBHOOK_BYTES / MB} MiB`,
      `within ${WEBHOOK_BODY_TIMEOUT_MS / 1000} s`,
      `headers within ${HEADERS_TIMEOUT_MS / 1000} s`,
      `whole request within ${REQUEST_TIMEOUT_MS / 1000} s`,
    ]) assert.ok(security.includes(phrase), `docs/security.md says "${phrase}"`);
    const app = readFileSync(new URL('../../docs/app.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    assert.ok(app.includes(`within ${WEBHOOK_BODY_TIMEOUT_MS / 1000} s`), 'docs/app.md gives the body deadline');
  });

  test('clients are told apart by IPv4 address or IPv6 /64', () => {
    assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:2:ffff:1:2:3'));
    assert.notEqual(clientKey('2001:db8:1:2::1'), clientKey('2001:db8:1:3::1'));
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
  });

  test('at their shipped values, a trickled header is cut at 10 s and a stalled body at 15 s', { timeout: 60_000 }, async (t) => {
    const h = await startHarness();
    try {
      const start = Date.now();
      const body = stall(h.app.url, '127.0.0.2', 1 * MB);
      const headers = new Promise<{ ms: number; text: string }>((resolve) => {
        const socket = connect(Number(new URL(h.app.url).port), '127.0.0.1');
        let text = '';
        socket.on('connect', () => socket.write('POST /api/github/webhooks HTTP/1.1\r\nHost: app\r\n'));
        // One header byte a second: never the blank line that ends them.
        const trickle = setInterval(() => socket.writable && socket.write('x'), 1000);
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => {
          clearInterval(trickle);
          resolve({ ms: Date.now() - start, text });
        });
      });
      const genuine = await signedDelivery(h);
      assert.equal(genuine.status, 200, 'a delivery meanwhile is handled');
      const [cutHeaders, cutBody] = await Promise.all([headers, body.answer]);
      t.diagnostic(`trickled headers closed after ${cutHeaders.ms} ms (${cutHeaders.text.split('\r\n')[0] || 'no answer'}); stalled body answered ${cutBody.status} after ${cutBody.ms} ms`);
      assert.ok(cutHeaders.ms >= HEADERS_TIMEOUT_MS - 100 && cutHeaders.ms < HEADERS_TIMEOUT_MS + 3000, `headers cut after ${cutHeaders.ms} ms`);
      assert.equal(cutBody.status, 408);
      assert.ok(cutBody.ms >= WEBHOOK_BODY_TIMEOUT_MS - 100 && cutBody.ms < WEBHOOK_BODY_TIMEOUT_MS + 3000, `body cut after ${cutBody.ms} ms`);
    } finally {
      await h.close();
    }
  });
});
