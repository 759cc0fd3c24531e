import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv6 } from 'node:net';

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

/**
 * MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT bounds the bytes held at once for one
 * client (one IPv4 address, or one IPv6 /64, which one host usually has
 * whole), 25 MiB: one maximal payload. Without it, four stalled uploads from
 * one host filled the shared budget and every delivery got 503; now the
 * second large body from that host gets 429 and the budget stays open to
 * everyone else. GitHub sends a few kB at a time from each of its addresses.
 */
export const MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT = MAX_WEBHOOK_BODY_BYTES;

/**
 * WEBHOOK_BODY_TIMEOUT_MS is how long a delivery's body may take to arrive
 * after its headers, 15 s; then it gets 408 and its bytes are let go.
 * GitHub gives up on a delivery after 10 s
 * (https://docs.github.com/en/webhooks/using-webhooks/best-practices-for-using-webhooks#respond-within-10-seconds),
 * so a slower body is not one it will wait for, and a stalled upload holds
 * its share of the budget for 15 s instead of Node's 300 s request timeout.
 */
export const WEBHOOK_BODY_TIMEOUT_MS = 15_000;

/** WebhookBodyLimits override the bounds (tests use small ones, or a short deadline). */
export interface WebhookBodyLimits {
  maxBytes?: number;
  maxPendingBytes?: number;
  maxPendingBytesPerClient?: number;
  timeoutMs?: number;
}

/** WebhookBody is a read body and the release of its share of the pending budget. */
export interface WebhookBody {
  text: string;
  release(): void;
}

/**
 * createWebhookBodyReader returns read(req, res): it reads a delivery's body
 * with every bound applied before any byte past them is kept, and before the
 * signature can be checked (which needs the whole body). A Content-Length
 * above the cap is refused at once with 413, without reading; a body that
 * streams past it (chunked, or a lying length) is refused with 413 at the
 * first chunk over. Past the client's share of the in-flight budget a body
 * gets 429, past the whole budget 503 (both with Retry-After), and a body
 * not in within the deadline 408. Refusals close the connection, so the
 * rest of the body is never read, and return the body's bytes to the
 * budgets at once. It resolves undefined when it answered the request itself.
 */
export function createWebhookBodyReader(limits: WebhookBodyLimits = {}): (req: IncomingMessage, res: ServerResponse) => Promise<WebhookBody | undefined> {
  const maxBytes = limits.maxBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const maxPending = limits.maxPendingBytes ?? MAX_PENDING_WEBHOOK_BYTES;
  const maxPerClient = limits.maxPendingBytesPerClient ?? MAX_PENDING_WEBHOOK_BYTES_PER_CLIENT;
  const timeoutMs = limits.timeoutMs ?? WEBHOOK_BODY_TIMEOUT_MS;
  let pending = 0;
  /** Bytes held per client key (clientKey); a key leaves the map when its count is back to 0. */
  const pendingByClient = new Map<string, number>();

  return (req, res) => new Promise((resolve) => {
    const client = clientKey(req.socket.remoteAddress);
    let held = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const hold = (bytes: number) => {
      held += bytes;
      pending += bytes;
      pendingByClient.set(client, (pendingByClient.get(client) ?? 0) + bytes);
    };
    const release = () => {
      if (held === 0) return;
      pending -= held;
      const left = (pendingByClient.get(client) ?? 0) - held;
      if (left > 0) pendingByClient.set(client, left);
      else pendingByClient.delete(client);
      held = 0;
    };
    const deadline = setTimeout(() => refuse(408, `webhook body not received within ${timeoutMs / 1000} s`), timeoutMs);
    const finish = (body: WebhookBody | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
      resolve(body);
    };
    const refuse = (status: 408 | 413 | 429 | 503, message: string) => {
      if (done) return;
      chunks.length = 0;
      release();
      req.pause();
      if (!res.headersSent) {
        res.writeHead(status, { 'content-type': 'text/plain', connection: 'close', ...(status === 429 || status === 503 ? { 'retry-after': '10' } : {}) }).end(`${message}\n`);
      }
      // Connection: close makes Node drop the socket once the answer is out; until then nothing more is read.
      finish(undefined);
    };
    const tooLarge = () => refuse(413, `webhook body larger than ${maxBytes} bytes (GitHub sends at most 25 MB)`);
    const clientBusy = () => refuse(429, `too many webhook bytes in flight from ${client}; try again later`);
    const busy = () => refuse(503, 'too many webhook bytes in flight; try again later');
    /** overBudget refuses the body (and says so) when `bytes` more would pass the client's share or the whole budget. */
    const overBudget = (bytes: number): boolean => {
      if ((pendingByClient.get(client) ?? 0) + bytes > maxPerClient) clientBusy();
      else if (pending + bytes > maxPending) busy();
      else return false;
      return true;
    };
    function onData(chunk: Buffer) {
      if (held + chunk.length > maxBytes) return tooLarge();
      if (overBudget(chunk.length)) return;
      hold(chunk.length);
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
      if (overBudget(length)) return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * clientKey names the client whose bytes count together: the IPv4 address
 * (an IPv4-mapped IPv6 address as its IPv4 form), or the /64 prefix of an
 * IPv6 address, since one host is usually given a whole /64 and could
 * otherwise take a new address per connection.
 */
export function clientKey(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.split('%')[0].split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}
