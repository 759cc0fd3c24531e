// Test harness for the app: a GitHub API stand-in that plays a GitHub App's
// world (JWT-checked /app endpoints, installation tokens), the real Probot
// server on loopback with a real SQLite store, and signed deliveries built
// from the fixtures derived from @octokit/webhooks-examples.
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { startAppServer, type AppServer, type AppServerOptions } from '../../src/app/app-server.ts';
import { compareRuns } from '../../src/compare/compare-runs.ts';
import { toJsonReport } from '../../src/report/json-report.ts';
import { samplesJson } from '../../src/jobs/results-artifact.ts';
import { toScanJson } from '../../src/report/scan-report.ts';
import { scanHistory } from '../../src/scan/scan-history.ts';
import type { Night } from '../../src/scan/series.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { JobRecord, Store } from '../../src/store/store.ts';
import { startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { lognormalSamples } from '../support/samples.ts';
import { parse as parseYaml } from 'yaml';

export const OWNER = 'bench-org';
export const REPO = 'bench-target';
export const INSTALLATION_ID = 4242;
export const APP_ID = 987;
export const APP_SLUG = 'benchbot-test';
export const BOT_LOGIN = `${APP_SLUG}[bot]`;
export const SECRET = 'webhook secret for tests';
export const BENCH_WORKFLOW = 'benchbot-bench-command.yml';

const fixtures = new URL('../../fixtures/webhooks/', import.meta.url);
const fixture = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Record<string, any>;

/** sha makes a deterministic 40-hex SHA from a label. */
export function sha(label: string): string {
  let h = 0x811c9dc5;
  let out = '';
  for (let round = 0; out.length < 40; round++) {
    for (const ch of `${label}:${round}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out.slice(0, 40);
}

/** Harness is one running app against one stand-in. */
export interface Harness {
  stand: GitHubApiStandIn;
  app: AppServer;
  store: Store;
  /** outcomes collects what each delivery did, in completion order. */
  outcomes: { id: string; name: string; outcome: string; ms: number }[];
  /** startReplica starts a second app on the same store and stand-in, as a second replica behind one database (closed with the harness). */
  startReplica(): Promise<AppServer>;
  close(): Promise<void>;
}

/** startHarness starts a stand-in, a SQLite store in a temporary directory (or the store at `storeUrl`, e.g. PostgreSQL) and the app. */
export async function startHarness(options: Partial<AppServerOptions> = {}, storeUrl?: string): Promise<Harness> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startGitHubApiStandIn({
    state: {
      ...starterWorkflows(),
      actor: { login: BOT_LOGIN, type: 'Bot', id: 5_550_001 },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: OWNER, type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-app-'));
  const store = await openStore(storeUrl ?? join(dir, 'app.db'), { cwd: dir });
  const outcomes: Harness['outcomes'] = [];
  const serverOptions: AppServerOptions = {
    appId: APP_ID,
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    secret: SECRET,
    apiUrl: stand.url,
    store,
    writeIntervalMs: 0,
    throttle: false,
    configTtlMs: 0,
    logLevel: 'fatal',
    onHandled: (e) => outcomes.push(e),
    ...options,
    // A failed job is retried after 200 ms (not 10 s), and replicas look for each other's jobs every 20 ms.
    jobs: { retryBaseMs: 200, pollMs: 20, ...options.jobs },
  };
  const app = await startAppServer(serverOptions);
  const replicas: AppServer[] = [];
  return {
    stand,
    app,
    // The store the app uses (a test may give its own, e.g. one that counts writes).
    store: serverOptions.store,
    outcomes,
    async startReplica() {
      const replica = await startAppServer(serverOptions);
      replicas.push(replica);
      return replica;
    },
    async close() {
      for (const replica of replicas) await replica.close();
      await app.close();
      await stand.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * starterWorkflows reads the starter `/bench` and bisect workflows the app
 * dispatches (workflows/), so that the stand-in names their runs by their
 * real `run-name` and refuses inputs they do not declare, as GitHub does.
 */
export function starterWorkflows(): { runNames: Record<string, string>; declaredInputs: Record<string, string[]> } {
  const runNames: Record<string, string> = {};
  const declaredInputs: Record<string, string[]> = {};
  for (const file of [BENCH_WORKFLOW, 'benchbot-bisect.yml']) {
    const doc = parseYaml(readFileSync(new URL(`../../workflows/${file}`, import.meta.url), 'utf8')) as { 'run-name'?: string; on: { workflow_dispatch: { inputs: Record<string, unknown> } } };
    if (typeof doc['run-name'] === 'string') runNames[file] = doc['run-name'];
    declaredInputs[file] = Object.keys(doc.on.workflow_dispatch.inputs);
  }
  return { runNames, declaredInputs };
}

/** forgetAppMemory empties the app's state and effects tables: a test starts from an app that has done nothing. */
export async function forgetAppMemory(h: Harness): Promise<void> {
  for (const entry of await h.store.listState('')) await h.store.deleteState(entry.key);
  for (const effect of await h.store.listEffects('')) {
    if (effect.holder !== null) await h.store.releaseEffect(effect.key, effect.holder, 'unknown');
    const free = await h.store.getEffect(effect.key);
    if (free !== undefined) await h.store.deleteEffect(free.key, free.version);
  }
}

/** sign is GitHub's X-Hub-Signature-256 for a body. */
export function sign(body: string, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * deliver POSTs a webhook as GitHub does; `signature: null` leaves the
 * header out; `to` sends it to a replica (startReplica). The app answers
 * at once and works in its job workers: when the delivery was queued,
 * deliver waits for its job's first outcome (done, dead, or failed and
 * waiting for its retry) and returns the job, unless `wait` is false.
 */
export async function deliver(h: Harness, event: string, payload: unknown, options: { id?: string; signature?: string | null; to?: AppServer; wait?: boolean } = {}): Promise<{ status: number; text: string; id: string; job?: JobRecord }> {
  const body = JSON.stringify(payload);
  const id = options.id ?? randomUUID();
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': id, 'user-agent': 'GitHub-Hookshot/test' };
  const signature = options.signature === undefined ? sign(body) : options.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  const response = await fetch((options.to ?? h.app).webhookUrl, { method: 'POST', headers, body });
  const text = await response.text();
  const queued = response.status === 200 && /^(queued|requeued)$/.test(text.trim());
  if (!queued || options.wait === false) return { status: response.status, text, id };
  // An app in another process (the harness has no store): wait until its /healthz shows nothing queued or running.
  if (h.store === undefined) return (await drained(h), { status: response.status, text, id });
  return { status: response.status, text, id, job: await settled(h, id, { orFailed: true }) };
}

/** drained waits until the app's /healthz shows no job waiting or running (up to timeoutMs). */
export async function drained(h: Pick<Harness, 'app'>, timeoutMs = 60_000): Promise<void> {
  for (const until = Date.now() + timeoutMs; ;) {
    const health = (await (await fetch(`${h.app.url}/healthz`)).json()) as { queue: { depth: number } };
    if (health.queue.depth === 0) return;
    if (Date.now() > until) throw new Error(`the app's queue was not drained within ${timeoutMs} ms: ${JSON.stringify(health)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * settled waits for a job to be done or dead (or, with orFailed, to have
 * failed an attempt and wait for its retry), polling the store; it throws
 * after timeoutMs.
 */
export async function settled(h: Harness, id: string, o: { orFailed?: boolean; timeoutMs?: number } = {}): Promise<JobRecord> {
  const until = Date.now() + (o.timeoutMs ?? 60_000);
  for (;;) {
    const job = await h.store.getJob(id);
    if (job && (job.status === 'done' || job.status === 'dead' || (o.orFailed && job.status === 'ready' && job.lastError !== null))) return job;
    if (Date.now() > until) throw new Error(`job ${id} not settled within ${o.timeoutMs ?? 60_000} ms: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Pull seeds a pull request; `fork` puts its head in another owner's repository. */
export function seedPull(h: Harness, p: { number: number; head: string; base: string; fork?: boolean; state?: 'open' | 'closed' }): void {
  const existing = h.stand.state.pulls.findIndex((x) => x.number === p.number);
  if (existing !== -1) h.stand.state.pulls.splice(existing, 1);
  h.stand.state.pulls.push({
    owner: OWNER, repo: REPO, number: p.number, title: `PR ${p.number}`, state: p.state ?? 'open',
    user: { login: p.fork ? 'outside-contributor' : 'member', type: 'User' },
    headSha: p.head, headRef: `feature-${p.number}`, headOwner: p.fork ? 'outside-contributor' : OWNER, headRepo: REPO,
    baseSha: p.base, baseRef: 'main',
  });
}

/** seedConfig puts `.github/benchbot.yml` on the default branch. */
export function seedConfig(h: Harness, content: string): void {
  h.stand.state.files = h.stand.state.files.filter((f) => f.path !== '.github/benchbot.yml');
  h.stand.state.files.push({ owner: OWNER, repo: REPO, path: '.github/benchbot.yml', ref: 'main', content });
}

/**
 * commentEvent writes the comment into the stand-in (reactions need it) and
 * returns the issue_comment.created payload for it.
 */
export function commentEvent(h: Harness, c: { body: string; login: string; pr?: number; type?: 'User' | 'Bot' }): Record<string, any> {
  const pr = c.pr ?? 42;
  const record = h.stand.addComment({ owner: OWNER, repo: REPO, issueNumber: pr, body: c.body, user: { login: c.login, type: c.type ?? 'User' } });
  const payload = fixture('issue_comment.created.pull_request.json');
  payload.issue.number = pr;
  payload.comment.id = record.id;
  payload.comment.body = c.body;
  payload.comment.html_url = `https://github.com/${OWNER}/${REPO}/pull/${pr}#issuecomment-${record.id}`;
  payload.comment.created_at = record.createdAt;
  payload.comment.updated_at = record.updatedAt;
  payload.comment.user = { ...payload.comment.user, login: c.login, type: c.type ?? 'User' };
  payload.sender = { ...payload.sender, login: c.login, type: c.type ?? 'User' };
  return payload;
}

/**
 * seedPush moves pull request `pr` to `head` as a push does: the pull
 * request's head changes, the head repository's `pushed_at` becomes
 * `createdAt`, and the timeline records the commit at `createdAt`. `date`
 * is the commit's own git date, which whoever pushes chooses (a forged,
 * earlier date included).
 */
export function seedPush(h: Harness, p: { pr?: number; head: string; base?: string; createdAt: string; date?: string; force?: boolean }): void {
  const pr = p.pr ?? 42;
  const pull = h.stand.state.pulls.find((x) => x.number === pr);
  if (pull === undefined) throw new Error(`seedPush: no pull request #${pr}; seedPull first`);
  pull.headSha = p.head;
  if (p.base !== undefined) pull.baseSha = p.base;
  pull.updatedAt = p.createdAt;
  pull.headPushedAt = p.createdAt;
  h.stand.addTimelineEvent({ owner: OWNER, repo: REPO, issueNumber: pr, event: p.force ? 'head_ref_force_pushed' : 'committed', sha: p.head, date: p.date, createdAt: p.createdAt, actor: { login: pull.headOwner, type: 'User' } });
}

/** secondsAfter is an ISO time (GitHub's second precision) `s` seconds after `iso`. */
export function secondsAfter(iso: string, s: number): string {
  return new Date(Date.parse(iso) + s * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * runEvent is a workflow_run.completed payload for a run id, workflow file
 * and conclusion. By default the run is what the app dispatches: a
 * `workflow_dispatch` run on the default branch of the repository itself;
 * `event`, `headBranch` and `fork` (the head repository is someone's fork)
 * make it something else.
 */
export function runEvent(r: { runId: number; conclusion: string; workflow?: string; attempt?: number; event?: string; headBranch?: string; fork?: string; headSha?: string; actor?: string; createdAt?: string; displayTitle?: string }): Record<string, any> {
  const payload = fixture('workflow_run.completed.json');
  const path = `.github/workflows/${r.workflow ?? BENCH_WORKFLOW}`;
  Object.assign(payload.workflow_run, {
    id: r.runId,
    conclusion: r.conclusion,
    path,
    run_attempt: r.attempt ?? 1,
    html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${r.runId}`,
    event: r.event ?? 'workflow_dispatch',
    head_branch: r.headBranch ?? payload.repository.default_branch,
  });
  if (r.headSha !== undefined) payload.workflow_run.head_sha = r.headSha;
  if (r.createdAt !== undefined) payload.workflow_run.created_at = r.createdAt;
  if (r.displayTitle !== undefined) payload.workflow_run.display_title = r.displayTitle;
  if (r.actor !== undefined) {
    const type = r.actor.endsWith('[bot]') ? 'Bot' : 'User';
    payload.workflow_run.actor = { ...payload.workflow_run.actor, login: r.actor, type };
    payload.workflow_run.triggering_actor = { ...payload.workflow_run.triggering_actor, login: r.actor, type };
  }
  if (r.fork !== undefined) {
    // A fork is another repository: its own id, owner and full name.
    const fork = structuredClone(payload.workflow_run.head_repository);
    Object.assign(fork, { id: fork.id + 1_000_000, node_id: `fork-${fork.node_id}`, full_name: `${r.fork}/${REPO}`, fork: true });
    fork.owner = { ...fork.owner, login: r.fork, id: fork.owner.id + 1_000_000, type: 'User' };
    payload.workflow_run.head_repository = fork;
  }
  payload.workflow.path = path;
  return payload;
}

/**
 * makeZip writes a zip as actions/upload-artifact streams it: deflated
 * entries with data descriptors (zero sizes in the local headers).
 */
export function makeZip(files: Record<string, string | Uint8Array>): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.from(content);
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(nameBytes.length, 26);
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(packed.length, 8);
    descriptor.writeUInt32LE(data.length, 12);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0808, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(packed.length, 20);
    entry.writeUInt32LE(data.length, 24);
    entry.writeUInt16LE(nameBytes.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, nameBytes);
    parts.push(local, nameBytes, packed, descriptor);
    offset += local.length + nameBytes.length + packed.length + descriptor.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

/**
 * reportJson is a real JSON report: two benchmarks compared by the engine,
 * one 10% slower on head, one unchanged, from seeded samples.
 */
export function reportJson(): string {
  return JSON.stringify(toJsonReport(compareRuns(benchSide(1, 11), benchSide(1.1, 21))), null, 2);
}

/**
 * benchArtifact is the `benchbot-report` artifact of a `/bench` run, as the
 * report job uploads it: each side's raw samples (those of reportJson) and
 * report.json, optionally replaced (a forged one).
 */
export function benchArtifact(report: string = reportJson()): Record<string, string> {
  return { 'base.json': samplesJson(benchSide(1, 11)), 'head.json': samplesJson(benchSide(1.1, 21)), 'report.json': report };
}

function benchSide(slow: number, seed: number) {
  return ({
    measurements: [
      { benchmark: 'BM_Parse/64', metric: 'real_time', unit: 'ns', better: 'lower' as const, values: lognormalSamples(20, 1000 * slow, 0.01, seed) },
      { benchmark: 'BM_Format/8', metric: 'real_time', unit: 'ns', better: 'lower' as const, values: lognormalSamples(20, 500, 0.01, seed + 1) },
    ],
    warnings: [],
    hints: {},
  });
}

/**
 * scanJson is a real `benchbot scan --output json`: 40 nights of one series
 * with a 15% step at night 30, scanned by the engine. Nights carry hex SHAs.
 */
export function scanJson(): string {
  const nights: Night[] = [];
  for (let i = 0; i < 40; i++) {
    // Each night also carries its interleaved A/B (last night's commit measured beside it), as the nightly action stores it.
    const ab = i > 0 ? { ab: { baseSha: sha(`night-${i - 1}`), base: lognormalSamples(5, i - 1 >= 30 ? 1150 : 1000, 0.01, 500 + i) } } : {};
    nights.push({ sha: sha(`night-${i}`), time: new Date(Date.UTC(2025, 0, 1 + i, 3)).toISOString(), values: lognormalSamples(5, i >= 30 ? 1150 : 1000, 0.01, 100 + i), ...ab });
  }
  const series = { benchmark: 'BM_Parse/64', metric: 'real_time', unit: 'ns', better: 'lower' as const, machineKey: 'fp1', branch: 'main', nights };
  const result = scanHistory([series]);
  return JSON.stringify(toScanJson(result, { branch: 'main', series: 1, threshold: 0.02 } as Parameters<typeof toScanJson>[1]));
}

/** waitFor polls until check() is true (deliveries are synchronous, but this keeps tests honest about timing). */
export async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
