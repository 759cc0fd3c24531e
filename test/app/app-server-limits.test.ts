// Webhook bodies are capped before they are buffered: over real HTTP to the
// real Probot server, a body past GitHub's 25 MB cap gets 413 whether its
// length is declared or it is streamed chunked (or sent to the webhook path
// with a trailing slash), the server's memory does not grow with the body,
// bodies in flight share one budget (503 past it), and a normal signed
// delivery still works.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/app/webhook-body.ts';
import { commentEvent, deliver, startHarness, type Harness } from './app-harness.ts';

const MB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, '{"a":1,"padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}');

interface Sent {
  status?: number;
  retryAfter?: string;
  text?: string;
  error?: string;
  /** bytes the client managed to hand to its socket before the answer or the close. */
  written: number;
}

/**
 * post streams `bytes` of a bogus-signed body from one reused buffer (so the
 * client holds no copy), declaring Content-Length or sending it chunked.
 * With `hold`, it writes that many bytes and waits for `release` before the rest.
 */
function post(url: string, bytes: number, options: { declare: boolean; path?: string; hold?: { bytes: number; release: Promise<void> } }): Promise<Sent> {
  const target = new URL(options.path ?? '/api/github/webhooks', url);
  return new Promise((resolve) => {
    const sent: Sent = { written: 0 };
    let settled = false;
    const settle = () => {
      if (!settled) {
        settled = true;
        resolve(sent);
      }
    };
    const req = request(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': `limits-${Math.random()}`,
        'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
        ...(options.declare ? { 'content-length': String(bytes) } : { 'transfer-encoding': 'chunked' }),
      },
    });
    req.on('response', (res) => {
      sent.status = res.statusCode;
      sent.retryAfter = res.headers['retry-after'];
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => {
        sent.text = text;
        settle();
      });
      res.on('error', settle);
    });
    req.on('error', (error) => {
      sent.error = error.message;
      // The answer may already be in; give it a moment to be parsed.
      setTimeout(settle, 200);
    });
    void (async () => {
      while (sent.written < bytes && !req.destroyed && sent.status === undefined) {
        if (options.hold && sent.written >= options.hold.bytes) {
          await options.hold.release;
          options.hold = undefined;
        }
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, bytes - sent.written, options.hold ? options.hold.bytes - sent.written : Infinity));
        sent.written += piece.length;
        if (!req.write(piece)) await drainedOrClosed(req);
      }
      if (!req.destroyed) req.end();
    })().catch(() => undefined);
  });
}

function drainedOrClosed(req: ReturnType<typeof request>): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

/** peakRssGrowth runs fn while sampling this process's RSS, and returns the peak above the level before. */
async function peakRssGrowth<T>(fn: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - baseline };
  } finally {
    clearInterval(timer);
  }
}

describe('webhook body cap (default 25 MiB)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the cap is GitHub\'s 25 MB', () => {
    assert.equal(MAX_WEBHOOK_BODY_BYTES, 25 * MB);
  });

  test('a declared 30 MB body is refused with 413 before it is read', async () => {
    const { result, growth } = await peakRssGrowth(() => post(h.app.url, 30 * MB, { declare: true }));
    assert.equal(result.status, 413, JSON.stringify(result));
    assert.match(result.text ?? '', /larger than 26214400 bytes/);
    assert.ok(growth < 10 * MB, `RSS grew by ${(growth / MB).toFixed(1)} MB for a refused 30 MB body`);
    assert.ok(result.written < 20 * MB, `the client could push ${(result.written / MB).toFixed(1)} MB before the refusal`);
  });

  test('a chunked body past the cap is refused with 413 at the cap; memory stays far below the body size', async () => {
    for (const bytes of [30 * MB, 200 * MB]) {
      const { result, growth } = await peakRssGrowth(() => post(h.app.url, bytes, { declare: false }));
      assert.equal(result.status, 413, JSON.stringify(result));
      assert.ok(growth < 80 * MB, `RSS grew by ${(growth / MB).toFixed(1)} MB for a refused ${bytes / MB} MB body`);
      assert.ok(result.written < 60 * MB, `the server kept reading: ${(result.written / MB).toFixed(1)} MB taken`);
    }
  });

  test('a trailing slash on the webhook path does not get around the cap', async () => {
    for (const path of ['/api/github/webhooks/', '/api/github/webhooks///', '/api/github/webhooks?x=/']) {
      const result = await post(h.app.url, 30 * MB, { declare: false, path });
      assert.equal(result.status, 413, `${path}: ${JSON.stringify(result)}`);
    }
  });

  test('a POST elsewhere is answered 404 without reading its body', async () => {
    const result = await post(h.app.url, 30 * MB, { declare: true, path: '/elsewhere' });
    assert.equal(result.status, 404);
    assert.ok(result.written < 20 * MB, `${(result.written / MB).toFixed(1)} MB taken`);
  });

  test('a normal signed delivery still works, and nothing refused reached the API', async () => {
    assert.equal(h.stand.requests.length, 0, 'the refused bodies made no API call');
    const reply = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger' }));
    assert.equal(reply.status, 200, reply.text);
    assert.ok(h.stand.state.comments.some((c) => c.body.includes('/bench [REGEX]')), 'the handler answered');
  });
});

describe('webhook bodies in flight share one budget', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ webhookBodyLimits: { maxBytes: 1 * MB, maxPendingBytes: 2 * MB } });
  });
  after(() => h.close());

  test('past the budget a delivery gets 503 with Retry-After; the budget is returned afterwards', async () => {
    let open!: () => void;
    const release = new Promise<void>((resolve) => (open = resolve));
    const held = [0, 1].map(() => post(h.app.url, 960 * 1024, { declare: true, hold: { bytes: 900 * 1024, release } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const third = await post(h.app.url, 400 * 1024, { declare: true });
    assert.equal(third.status, 503, JSON.stringify(third));
    assert.match(third.retryAfter ?? '', /^\d+$/);
    open();
    for (const sent of await Promise.all(held)) assert.equal(sent.status, 400, `a held body, finished, gets the signature check: ${JSON.stringify(sent)}`);
    const again = await post(h.app.url, 400 * 1024, { declare: false });
    assert.equal(again.status, 400, `the budget came back: ${JSON.stringify(again)}`);
    const over = await post(h.app.url, 1 * MB + 1, { declare: false });
    assert.equal(over.status, 413);
    const reply = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger' }));
    assert.equal(reply.status, 200, reply.text);
  });
});
