import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * MAX_WEBHOOK_BODY_BYTES is the largest delivery body the app reads, 25 MiB.
 * GitHub caps webhook payloads at 25 MB and does not deliver larger ones
 * ("Payloads are capped at 25 MB", https://docs.github.com/en/webhooks/webhook-events-and-payloads#payload-cap),
 * so a bigger body is not from GitHub and is refused before it is buffered.
 */
export const MAX_WEBHOOK_BODY_BYTES = 25 * 1024 * 1024;

/**
 * MAX_PENDING_WEBHOOK_BYTES bounds the bytes of all delivery bodies held at
 * once (read, or being handled), 100 MiB: four maximal payloads. The per-body
 * cap alone would let many concurrent connections add up; past this budget a
 * delivery gets 503 with Retry-After. Real deliveries are a few kB.
 */
export const MAX_PENDING_WEBHOOK_BYTES = 4 * MAX_WEBHOOK_BODY_BYTES;

/** WebhookBodyLimits override the two bounds (tests use small ones). */
export interface WebhookBodyLimits {
  maxBytes?: number;
  maxPendingBytes?: number;
}

/** WebhookBody is a read body and the release of its share of the pending budget. */
export interface WebhookBody {
  text: string;
  release(): void;
}

/**
 * createWebhookBodyReader returns read(req, res): it reads a delivery's body
 * with both bounds applied before any byte past them is kept, and before the
 * signature can be checked (which needs the whole body). A Content-Length
 * above the cap is refused at once with 413, without reading; a body that
 * streams past it (chunked, or a lying length) is refused with 413 at the
 * first chunk over. Refusals close the connection, so the rest of the body
 * is never read. It resolves undefined when it answered the request itself.
 */
export function createWebhookBodyReader(limits: WebhookBodyLimits = {}): (req: IncomingMessage, res: ServerResponse) => Promise<WebhookBody | undefined> {
  const maxBytes = limits.maxBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const maxPending = limits.maxPendingBytes ?? MAX_PENDING_WEBHOOK_BYTES;
  let pending = 0;

  return (req, res) => new Promise((resolve) => {
    let held = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const release = () => {
      pending -= held;
      held = 0;
    };
    const finish = (body: WebhookBody | undefined) => {
      if (done) return;
      done = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
      resolve(body);
    };
    const refuse = (status: 413 | 503, message: string) => {
      chunks.length = 0;
      release();
      req.pause();
      if (!res.headersSent) {
        res.writeHead(status, { 'content-type': 'text/plain', connection: 'close', ...(status === 503 ? { 'retry-after': '10' } : {}) }).end(`${message}\n`);
      }
      // Connection: close makes Node drop the socket once the answer is out; until then nothing more is read.
      finish(undefined);
    };
    const tooLarge = () => refuse(413, `webhook body larger than ${maxBytes} bytes (GitHub sends at most 25 MB)`);
    const busy = () => refuse(503, 'too many webhook bytes in flight; try again later');
    function onData(chunk: Buffer) {
      if (held + chunk.length > maxBytes) return tooLarge();
      if (pending + chunk.length > maxPending) return busy();
      held += chunk.length;
      pending += chunk.length;
      chunks.push(chunk);
    }
    function onEnd() {
      const text = Buffer.concat(chunks).toString('utf8');
      chunks.length = 0;
      finish({ text, release });
    }
    function onClose() {
      // A client gone before the end of its body: nothing to answer.
      if (!req.complete) onError();
    }
    function onError() {
      chunks.length = 0;
      release();
      finish(undefined);
      req.destroy();
    }

    const declared = req.headers['content-length'];
    if (declared !== undefined) {
      const length = Number(declared);
      if (length > maxBytes) return tooLarge();
      if (pending + length > maxPending) return busy();
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
