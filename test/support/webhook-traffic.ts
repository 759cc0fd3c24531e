/**
 * webhook-traffic: deliveries as GitHub sends them, for the tests and the
 * load bench that drive `benchbot serve` from outside. Payloads are the
 * fixtures derived from @octokit/webhooks-examples (fixtures/webhooks/,
 * 16.5 KB comments and 22.6 KB workflow runs, as GitHub's are), with the
 * fields a case needs set; each delivery goes over a fresh connection and
 * is given up after GitHub's 10 s, as GitHub's hookshot does.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { OWNER, REPO, runEvent, sign } from '../app/app-harness.ts';

/** GITHUB_TIMEOUT_MS is how long GitHub waits for a webhook's answer before it counts the delivery as failed. */
export const GITHUB_TIMEOUT_MS = 10_000;

const commentFixture = readFileSync(new URL('../../fixtures/webhooks/issue_comment.created.pull_request.json', import.meta.url), 'utf8');

/** commentPayload is an issue_comment delivery (created, or edited with the body before) for a comment the stand-in holds. */
export function commentPayload(c: { pr: number; id: number; body: string; login: string; createdAt: string; updatedAt?: string; action?: 'created' | 'edited'; before?: string }): Record<string, any> {
  const payload = JSON.parse(commentFixture) as Record<string, any>;
  payload.action = c.action ?? 'created';
  payload.issue.number = c.pr;
  payload.issue.html_url = `https://github.com/${OWNER}/${REPO}/pull/${c.pr}`;
  payload.comment.id = c.id;
  payload.comment.body = c.body;
  payload.comment.html_url = `https://github.com/${OWNER}/${REPO}/pull/${c.pr}#issuecomment-${c.id}`;
  payload.comment.created_at = c.createdAt;
  payload.comment.updated_at = c.updatedAt ?? c.createdAt;
  payload.comment.user = { ...payload.comment.user, login: c.login, type: 'User' };
  payload.sender = { ...payload.sender, login: c.login, type: 'User' };
  if (payload.action === 'edited') payload.changes = { body: { from: c.before ?? '' } };
  return payload;
}

/**
 * workflowRunPayload is a workflow_run delivery: `action` requested,
 * in_progress or completed, of `workflow` (a file under .github/workflows),
 * from `event`; runs of the app's own workflows come from workflow_dispatch
 * or schedule on the default branch, CI runs from pull_request on a branch.
 */
export function workflowRunPayload(r: { runId: number; workflow: string; action?: 'requested' | 'in_progress' | 'completed'; conclusion?: string; event?: string; headBranch?: string; attempt?: number; actor?: string; createdAt?: string; displayTitle?: string }): Record<string, any> {
  const action = r.action ?? 'completed';
  const payload = runEvent({ runId: r.runId, conclusion: r.conclusion ?? 'success', workflow: r.workflow, event: r.event, headBranch: r.headBranch, attempt: r.attempt, actor: r.actor, createdAt: r.createdAt, displayTitle: r.displayTitle });
  payload.action = action;
  if (action !== 'completed') Object.assign(payload.workflow_run, { status: action === 'requested' ? 'queued' : 'in_progress', conclusion: null });
  return payload;
}

/** DeliveryResult is how one delivery went: its HTTP status (0 when none came), time to the answer, and the error, if any. */
export interface DeliveryResult {
  status: number;
  ms: number;
  error?: string;
}

/** Delivery is one webhook delivery: event, body (sent as is) and delivery id. */
export interface Delivery {
  event: string;
  body: string;
  id: string;
}

/** delivery makes a Delivery of a payload, under a new id unless one is given. */
export function delivery(event: string, payload: unknown, id: string = randomUUID()): Delivery {
  return { event, body: JSON.stringify(payload), id };
}

/**
 * postDelivery POSTs a signed delivery over a new connection (no keep-alive,
 * as GitHub's deliveries arrive) and resolves with the answer's status and
 * time, or status 0 after `timeoutMs` (GitHub's 10 s) or a connection error.
 */
export function postDelivery(webhookUrl: string, d: Delivery, secret: string, timeoutMs = GITHUB_TIMEOUT_MS): Promise<DeliveryResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, ms: performance.now() - started, ...(error === undefined ? {} : { error }) });
    };
    // The whole answer within timeoutMs, as GitHub counts it (a socket timeout would only bound silences).
    const timer = setTimeout(() => {
      done(0, `no answer within ${timeoutMs} ms`);
      req.destroy();
    }, timeoutMs);
    const req = request(webhookUrl, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(d.body),
        'user-agent': 'GitHub-Hookshot/bench',
        'x-github-event': d.event,
        'x-github-delivery': d.id,
        'x-hub-signature-256': sign(d.body, secret),
        connection: 'close',
      },
    }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', (error) => done(0, error.message));
    });
    req.on('error', (error) => done(0, error.message));
    req.end(d.body);
  });
}
