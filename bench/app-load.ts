// Load bench for the app (npm run bench:app): `benchbot serve` exactly as
// shipped (the package's bin, GitHub's write pacing on), one or two replicas
// as processes of their own on SQLite or PostgreSQL, against the GitHub API
// stand-in in a third process (it validates every request against GitHub's
// OpenAPI description and is where the effects are counted), driven from
// this process the way GitHub drives it: Poisson arrivals, a new connection
// per delivery, 10 s to answer, payloads of 16.5 KB (issue_comment) and
// 22.6 KB (workflow_run) derived from @octokit/webhooks-examples.
//
// The mix, for one installation and 200 pull requests: most deliveries do
// nothing (CI workflow runs requested, in progress and completed; comments
// without a command; edits), the rest at a rate per minute that does not
// grow with --rate, as a busy repository's commands do not: /bench by
// maintainers (dispatch, check run, sticky report), /bench by people
// without write access (refusal), /bench help, /bench with bad arguments,
// nightly runs whose scan.json confirms a new regression (bisect
// dispatch), deliveries sent again under the same id and the same comment
// under a new id. Every /bench and bisect run the app dispatches completes
// a few seconds later with its real artifact (base.json and head.json from
// the engine; the bisect run without bisect.json), some twice (a re-run
// attempt under a new id) and some redelivered under the same id.
//
// Reported per run: p50/p99/max of the webhook answer, errors (not 2xx
// within 10 s; those that change something are redelivered under their id
// after the window, as an operator would, since GitHub does not retry), duplicate and missing effects at the stand-in, the writes
// and how long after the last delivery the last of them landed (the queue
// drained), the CPU time per delivery of the replicas (so the ceiling per
// core), and the load average of this shared machine. Each run is repeated
// with the write pacing off (BENCHBOT_WRITE_INTERVAL_MS=0), which shows the
// app's own cost.
//
//   node bench/app-load.ts [--rate 6000] [--minutes 5] [--replicas 2] [--store postgres|sqlite]
//                          [--pacing on|off|both] [--matrix] [--ceiling] [--json FILE] [--entry dist/benchbot.js]
//
// --matrix runs 1 and 2 replicas on SQLite and PostgreSQL; --ceiling steps
// one SQLite replica (pacing off) up in rate, a minute a step, until more
// than 1% of the deliveries fail or the replica uses 90% of a core.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPLY_MARKER } from '../src/app/handler-deps.ts';
import { REPORT_MARKER } from '../src/report/markdown-report.ts';
import { regressionMarker } from '../src/report/regression-issue.ts';
import { APP_ID, APP_SLUG, BOT_LOGIN, INSTALLATION_ID, OWNER, REPO, benchArtifact, scanJson, sha, starterWorkflows } from '../test/app/app-harness.ts';
import { startPostgres, type PostgresServer } from '../test/support/postgres-server.ts';
import { seededRandom } from '../test/support/random.ts';
import { startServe, type ServeProcess } from '../test/support/serve-process.ts';
import { startStandInProcess, type Effects } from '../test/support/stand-in-process.ts';
import { commentPayload, delivery, postDelivery, workflowRunPayload, type Delivery, type DeliveryResult } from '../test/support/webhook-traffic.ts';

const BENCH_WORKFLOW = 'benchbot-bench-command.yml';
const NIGHTLY_WORKFLOW = 'benchbot-nightly.yml';
const BISECT_WORKFLOW = 'benchbot-bisect.yml';
const CI_WORKFLOW = 'ci.yml';
const SECRET = 'load bench secret';

/** EFFECT_RATES are the deliveries per minute that make the app act, whatever --rate is. */
const EFFECT_RATES: Record<string, number> = { bench: 6, refused: 2, help: 1, invalid: 1, nightly: 1, 'same-id': 2, 'new-id': 2 };
/** BACKGROUND shares the rest of the rate among deliveries the app does nothing for. */
const BACKGROUND: [string, number][] = [['ci-requested', 0.3], ['ci-in-progress', 0.15], ['ci-completed', 0.15], ['chatter', 0.3], ['edited', 0.1]];

/** RunConfig is one run of the bench. */
interface RunConfig {
  rate: number;
  seconds: number;
  replicas: number;
  store: 'sqlite' | 'postgres';
  pacing: boolean;
  prs: number;
  seed: number;
  entry?: string;
  drainSeconds: number;
}

/** RunResult is what one run measured. */
interface RunResult {
  config: RunConfig;
  deliveries: number;
  /** answer_ms is the webhook answer time over every delivery of the arrival window; by_kind per kind. */
  answer_ms: Quantiles;
  effectful_answer_ms: Quantiles;
  errors: number;
  error_examples: string[];
  /** redelivered counts the failed deliveries that change something sent again under their id after the window (as an operator redelivers them). */
  redelivered: number;
  statuses: Record<string, number>;
  duplicates: Record<string, number>;
  missing: Record<string, number>;
  expected: Record<string, number>;
  writes: number;
  creations: number;
  /** drain_s is how long after the last delivery (completions sent after the arrival window included) the last write landed; null when the effects were not all there by the drain timeout. */
  drain_s: number | null;
  /** pacing_floor_s is the least time GitHub's pacing allows for the writes made (1 s each, 3 s between creations), from the first. */
  pacing_floor_s: number;
  /** queue is the most jobs waiting or leased and the oldest waiting delivery's age that /healthz showed (null where the app has no queue). */
  queue: { max_depth: number; max_oldest_age_s: number } | null;
  cpu_ms_per_delivery: number;
  /** cpu_share is the replicas' CPU time over the run's wall time, in cores. */
  cpu_share: number;
  /** ceiling_per_core_per_min is 60,000 ms over the CPU ms a delivery costs: the deliveries a minute one core could take. */
  ceiling_per_core_per_min: number;
  loadavg: { start: number; end: number };
  invalid_requests: number;
  invalid_examples: string[];
}

type Quantiles = { n: number; p50: number; p90: number; p99: number; max: number };

const { values } = parseArgs({
  options: {
    rate: { type: 'string' },
    minutes: { type: 'string' },
    replicas: { type: 'string' },
    store: { type: 'string' },
    pacing: { type: 'string' },
    prs: { type: 'string' },
    seed: { type: 'string' },
    matrix: { type: 'boolean' },
    ceiling: { type: 'boolean' },
    json: { type: 'string' },
    entry: { type: 'string' },
    'drain-minutes': { type: 'string' },
  },
});

const base: RunConfig = {
  rate: Number(values.rate ?? 6000),
  seconds: Math.round(Number(values.minutes ?? 5) * 60),
  replicas: Number(values.replicas ?? 2),
  store: (values.store ?? 'postgres') as RunConfig['store'],
  pacing: true,
  prs: Number(values.prs ?? 200),
  seed: Number(values.seed ?? 7),
  entry: values.entry,
  drainSeconds: Math.round(Number(values['drain-minutes'] ?? 15) * 60),
};
for (const [name, ok] of [['--rate', base.rate > 0], ['--minutes', base.seconds > 0], ['--replicas', base.replicas >= 1 && base.replicas <= 8], ['--store', ['sqlite', 'postgres'].includes(base.store)], ['--prs', base.prs >= 1]] as const) {
  if (!ok) {
    process.stderr.write(`bench/app-load: ${name} is out of range (see the usage at the top of bench/app-load.ts)\n`);
    process.exit(2);
  }
}
const pacings = values.pacing === 'on' ? [true] : values.pacing === 'off' ? [false] : [true, false];

let postgres: PostgresServer | null = null;
let databases = 0;
const results: RunResult[] = [];
try {
  const configs: RunConfig[] = [];
  if (values.ceiling) {
    // A minute a step unless --minutes says otherwise: the ceiling shows in the answer times at once.
    const seconds = values.minutes === undefined ? 60 : base.seconds;
    for (const rate of [6000, 12000, 18000, 24000, 30000, 36000, 48000, 60000]) configs.push({ ...base, rate, seconds, replicas: 1, store: 'sqlite', pacing: false });
  } else {
    const shapes = values.matrix ? [[1, 'sqlite'], [2, 'sqlite'], [1, 'postgres'], [2, 'postgres']] as const : [[base.replicas, base.store]] as const;
    for (const [replicas, store] of shapes) for (const pacing of pacings) configs.push({ ...base, replicas, store, pacing });
  }
  for (const config of configs) {
    const result = await runOnce(config);
    results.push(result);
    process.stdout.write(`${summaryLine(result)}\n`);
    // On a machine shared with other work the answer times move with its load; the replica keeping up (answers within 10 s, its CPU below a core) is what ends the steps.
    if (values.ceiling && (result.errors > result.deliveries / 100 || result.cpu_share > 0.9)) break;
  }
} finally {
  (postgres as PostgresServer | null)?.stop();
}
process.stdout.write(`\n${table(results)}\n`);
if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
process.exitCode = results.every((r) => r.errors === 0 && Object.values(r.duplicates).every((n) => n === 0) && Object.values(r.missing).every((n) => n === 0) && r.invalid_requests === 0) ? 0 : 1;

/** runOnce starts the stand-in and the replicas, sends the traffic, waits for the queue to drain, and counts. */
async function runOnce(config: RunConfig): Promise<RunResult> {
  const label = `${config.replicas} replica${config.replicas > 1 ? 's' : ''} on ${config.store}, pacing ${config.pacing ? 'on' : 'off'}, ${config.rate}/min for ${config.seconds} s`;
  process.stdout.write(`bench/app-load: ${label}\n`);
  const random = seededRandom(config.seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const exponential = (perSecond: number) => -Math.log(1 - random()) / perSecond;
  const prs = Array.from({ length: config.prs }, (_, i) => 1001 + i);
  const head = (pr: number) => sha(`head ${pr}`);

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startStandInProcess({
    owner: OWNER,
    repo: REPO,
    state: {
      // The starter workflows' run names and inputs: how the app finds a dispatch whose answer was lost.
      ...starterWorkflows(),
      actor: { login: BOT_LOGIN, type: 'Bot', id: 5_550_001 },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: OWNER, type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
      permissions: { maintainer: 'maintain', admin: 'admin' },
      workflows: [BENCH_WORKFLOW, NIGHTLY_WORKFLOW, BISECT_WORKFLOW, CI_WORKFLOW],
      pulls: prs.map((n) => ({ owner: OWNER, repo: REPO, number: n, title: `PR ${n}`, state: 'open' as const, user: { login: 'contributor', type: 'User' as const }, headSha: head(n), headRef: `feature-${n}`, headOwner: n % 2 === 0 ? 'contributor' : OWNER, headRepo: REPO, baseSha: sha('base'), baseRef: 'main' })),
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-app-load-'));
  let storeUrl = join(dir, 'app.db');
  if (config.store === 'postgres') {
    postgres ??= await startPostgres();
    storeUrl = postgres.createDatabase(`load_${++databases}`);
  }
  const env: Record<string, string> = {
    APP_ID: String(APP_ID),
    PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    WEBHOOK_SECRET: SECRET,
    GITHUB_API_URL: stand.url,
    BENCHBOT_DATABASE_URL: storeUrl,
    LOG_LEVEL: 'warn',
    ...(config.pacing ? {} : { BENCHBOT_WRITE_INTERVAL_MS: '0' }),
  };
  const replicas: ServeProcess[] = [];
  // One at a time: the first creates the schema.
  for (let i = 0; i < config.replicas; i++) replicas.push(await startServe({ env, entry: config.entry, log: join(dir, `replica-${i}.log`) }));

  const answers: (DeliveryResult & { kind: string; effectful: boolean })[] = [];
  const inflight = new Set<Promise<void>>();
  const sent: { kind: string; d: Delivery }[] = [];
  let lastSentAt = 0;
  // Deliveries GitHub would list as failed (no 2xx within 10 s), to be redelivered under the same id as an operator does (GitHub does not retry by itself).
  const failed: { kind: string; d: Delivery; tries: number }[] = [];
  let redelivered = 0;
  const send = (kind: string, d: Delivery, effectful: boolean, measured = true, tries = 0) => {
    const to = pick(replicas);
    lastSentAt = Date.now();
    const p = postDelivery(to.webhookUrl, d, SECRET).then((r) => {
      if (measured) answers.push({ ...r, kind, effectful });
      if ((r.status < 200 || r.status >= 300) && effectful && tries < 3) failed.push({ kind, d, tries: tries + 1 });
    });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
    if (effectful) sent.push({ kind, d });
  };

  // What the app must do, exactly once each.
  const accepted = new Map<number, Set<number>>();
  const replied = new Set<number>();
  const findings = new Set<string>();
  const bisectsCompleted = new Set<string>();
  const benchRunsCompleted = new Set<number>();
  const timers = new Set<NodeJS.Timeout>();
  const later = (s: number, f: () => Promise<void>) => {
    const t = setTimeout(() => {
      timers.delete(t);
      void f();
    }, s * 1000);
    timers.add(t);
  };
  const finding = JSON.parse(scanJson()).findings[0];
  const artifact = benchArtifact();
  let localCommentId = 3_000_000_000;
  let nightlyRun = 60_000_000;

  const command = async (pr: number, login: string, body: string) => {
    const c = await stand.addComment({ pr, login, body });
    return { c, d: delivery('issue_comment', commentPayload({ pr, id: c.id, body, login, createdAt: c.createdAt, updatedAt: c.updatedAt })) };
  };
  async function one(kind: string): Promise<void> {
    switch (kind) {
      case 'bench': {
        const pr = pick(prs);
        const { c, d } = await command(pr, pick(['maintainer', 'admin']), pick(['/bench', '/bench BM_Parse runs=20', '/bench threshold=1.5%']));
        if (!accepted.has(pr)) accepted.set(pr, new Set());
        accepted.get(pr)!.add(c.id);
        return send(kind, d, true);
      }
      case 'refused':
      case 'help':
      case 'invalid': {
        const pr = pick(prs);
        const [login, body] = kind === 'refused' ? ['passer-by', '/bench'] : kind === 'help' ? ['passer-by', '/bench help'] : ['maintainer', pick(['/bench runs=1e9', '/bench $(curl x|sh)', '/bench a\u202Eb', `/bench ${'x'.repeat(400)}`])];
        const { d } = await command(pr, login, body);
        replied.add(pr);
        return send(kind, d, true);
      }
      case 'nightly': {
        const runId = ++nightlyRun;
        const series = `${finding.series} nightly ${runId}`;
        const scan = JSON.parse(scanJson());
        scan.findings = [{ ...finding, series }];
        await stand.addArtifact({ runId, name: 'benchbot-nightly', files: { 'scan.json': JSON.stringify(scan) } });
        findings.add(series);
        const d = delivery('workflow_run', workflowRunPayload({ runId, workflow: NIGHTLY_WORKFLOW, event: 'schedule' }));
        send(kind, d, true);
        // The nightly re-run (attempt 2) finds the same regression: no second bisection.
        if (random() < 0.3) later(2 + 5 * random(), async () => send('nightly-rerun', delivery('workflow_run', workflowRunPayload({ runId, workflow: NIGHTLY_WORKFLOW, event: 'schedule', attempt: 2 })), true));
        return;
      }
      case 'same-id': {
        if (sent.length === 0) return one('chatter');
        const old = pick(sent);
        return send(kind, old.d, true);
      }
      case 'new-id': {
        if (sent.length === 0) return one('chatter');
        const old = pick(sent);
        return send(kind, { ...old.d, id: randomUUID() }, true);
      }
      case 'ci-requested':
      case 'ci-in-progress':
      case 'ci-completed': {
        const action = kind === 'ci-requested' ? 'requested' : kind === 'ci-in-progress' ? 'in_progress' : 'completed';
        return send(kind, delivery('workflow_run', workflowRunPayload({ runId: 70_000_000 + Math.floor(random() * 1e7), workflow: CI_WORKFLOW, action, event: 'pull_request', headBranch: `feature-${pick(prs)}` })), false);
      }
      case 'edited': {
        const pr = pick(prs);
        const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        return send(kind, delivery('issue_comment', commentPayload({ pr, id: ++localCommentId, body: 'Thanks, looks good now.', before: 'Thanks!', login: 'reviewer', createdAt: '2025-06-01T00:00:00Z', updatedAt: at, action: 'edited' })), false);
      }
      default: {
        const pr = pick(prs);
        const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
        const body = pick(['LGTM', 'Could you rebase?', 'Nice speedup! We could /bench this later.', 'Thanks!', '> /bench\n\nquoted, not a command', '```\n/bench\n```']);
        return send('chatter', delivery('issue_comment', commentPayload({ pr, id: ++localCommentId, body, login: 'reviewer', createdAt: at })), false);
      }
    }
  }

  // Completions: every run the app dispatched finishes a few seconds later.
  let seenRuns = 0;
  let pendingCompletions = 0;
  const poll = async () => {
    const runs = await stand.runsSince(seenRuns);
    seenRuns += runs.length;
    for (const run of runs) {
      pendingCompletions++;
      later(3 + 9 * random(), async () => {
        try {
          await complete(run);
        } finally {
          pendingCompletions--;
        }
      });
    }
  };
  const complete = async (run: Effects['dispatches'][number]) => {
    if (run.workflowId === BENCH_WORKFLOW) {
      await stand.addArtifact({ runId: run.runId, name: 'benchbot-report', files: artifact });
      const d = delivery('workflow_run', workflowRunPayload({ runId: run.runId, workflow: BENCH_WORKFLOW }));
      send('bench-completed', d, true);
      benchRunsCompleted.add(run.runId);
      if (random() < 0.2) later(2 + 3 * random(), async () => send('bench-rerun', delivery('workflow_run', workflowRunPayload({ runId: run.runId, workflow: BENCH_WORKFLOW, attempt: 2 })), true));
      if (random() < 0.1) later(1 + 3 * random(), async () => send('bench-redelivered', d, true));
    } else if (run.workflowId === BISECT_WORKFLOW) {
      send('bisect-completed', delivery('workflow_run', workflowRunPayload({ runId: run.runId, workflow: BISECT_WORKFLOW })), true);
      bisectsCompleted.add(String(run.inputs.series));
      if (random() < 0.3) later(1 + 3 * random(), async () => send('bisect-rerun', delivery('workflow_run', workflowRunPayload({ runId: run.runId, workflow: BISECT_WORKFLOW, attempt: 2 })), true));
    }
  };
  let polling = true;
  // The queue as /healthz shows it (where the app has one: the jobs of all replicas share the store).
  const queue = { depth: null as number | null, maxDepth: 0, maxOldestAgeMs: 0 };
  const health = async () => {
    const body = await (await fetch(`${replicas[0].url}/healthz`)).json() as { queue?: { depth?: number; oldestAgeMs?: number | null } };
    if (typeof body.queue?.depth !== 'number') return;
    queue.depth = body.queue.depth;
    queue.maxDepth = Math.max(queue.maxDepth, body.queue.depth);
    queue.maxOldestAgeMs = Math.max(queue.maxOldestAgeMs, body.queue.oldestAgeMs ?? 0);
  };
  const poller = (async () => {
    while (polling) {
      await Promise.all([poll(), health()].map((p) => p.catch(() => undefined)));
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();

  // Warm-up, not measured: each replica's installation token, config read and GET /app.
  for (const replica of replicas) await postDelivery(replica.webhookUrl, delivery('workflow_run', workflowRunPayload({ runId: 1, workflow: CI_WORKFLOW, event: 'pull_request', headBranch: 'feature-0' })), SECRET);

  const effectRate = Object.values(EFFECT_RATES).reduce((a, b) => a + b, 0);
  const kinds: [string, number][] = [
    ...Object.entries(EFFECT_RATES).map(([k, perMin]): [string, number] => [k, perMin / config.rate]),
    ...BACKGROUND.map(([k, share]): [string, number] => [k, share * Math.max(0, 1 - effectRate / config.rate)]),
  ];
  const chooseKind = () => {
    let r = random();
    for (const [kind, p] of kinds) if ((r -= p) < 0) return kind;
    return 'chatter';
  };
  const cpuBefore = replicas.map((r) => r.cpuMs());
  const loadStart = loadavg()[0];
  const t0 = performance.now();
  let at = 0;
  let count = 0;
  const perSecond = config.rate / 60;
  for (;;) {
    at += exponential(perSecond);
    if (at >= config.seconds) break;
    const wait = t0 + at * 1000 - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    await one(chooseKind());
    count++;
    if (count % Math.max(1, Math.round(perSecond * 30)) === 0) process.stdout.write(`  ${Math.round((performance.now() - t0) / 1000)} s: ${count} deliveries sent, ${inflight.size} unanswered\n`);
  }
  await Promise.all(inflight);
  const cpuAfterSend = replicas.map((r) => r.cpuMs());

  // Drain: until every expected effect is there and nothing has been written for 10 s, or the drain timeout.
  const missingOf = (e: Effects) => count_(e).missing;
  function count_(e: Effects) {
    const dispatchesByPr = new Map<number, number>();
    for (const d of e.dispatches) if (d.workflowId === BENCH_WORKFLOW) dispatchesByPr.set(Number(d.inputs['pr-number']), (dispatchesByPr.get(Number(d.inputs['pr-number'])) ?? 0) + 1);
    const bisectBySeries = new Map<string, number>();
    for (const d of e.dispatches) if (d.workflowId === BISECT_WORKFLOW) bisectBySeries.set(String(d.inputs.series), (bisectBySeries.get(String(d.inputs.series)) ?? 0) + 1);
    const commentsOf = (pr: number, marker: string) => e.comments.filter((c) => c.pr === pr && c.marker === marker).length;
    const duplicates = { dispatches: 0, report_comments: 0, reply_comments: 0, bisect_dispatches: 0, issues: 0, check_runs_open_twice: 0 };
    const missing = { dispatches: 0, report_comments: 0, reply_comments: 0, reports_completed: 0, bisect_dispatches: 0, issues: 0 };
    for (const [pr, ids] of accepted) {
      const got = dispatchesByPr.get(pr) ?? 0;
      duplicates.dispatches += Math.max(0, got - ids.size);
      missing.dispatches += Math.max(0, ids.size - got);
      const reports = commentsOf(pr, REPORT_MARKER);
      duplicates.report_comments += Math.max(0, reports - 1);
      missing.report_comments += reports === 0 ? 1 : 0;
      const checks = e.checkRuns.filter((c) => c.headSha === head(pr));
      const open = checks.filter((c) => c.status !== 'completed').length;
      duplicates.check_runs_open_twice += Math.max(0, open - 1);
      // Reported: every run of the pull request completed, so its check runs are all closed, one of them with the report's conclusion.
      if (open > 0 || !checks.some((c) => c.status === 'completed' && c.conclusion !== 'cancelled')) missing.reports_completed++;
    }
    for (const [pr] of dispatchesByPr) if (!accepted.has(pr)) duplicates.dispatches += dispatchesByPr.get(pr) ?? 0;
    for (const pr of replied) {
      const replies = commentsOf(pr, REPLY_MARKER);
      duplicates.reply_comments += Math.max(0, replies - 1);
      missing.reply_comments += replies === 0 ? 1 : 0;
    }
    for (const series of findings) {
      const got = bisectBySeries.get(series) ?? 0;
      duplicates.bisect_dispatches += Math.max(0, got - 1);
      missing.bisect_dispatches += got === 0 ? 1 : 0;
    }
    for (const series of bisectsCompleted) {
      const marker = regressionMarker(series, `${finding.last_good.sha}..${finding.first_bad.sha}`);
      const got = e.issues.filter((i) => i.marker === marker).length;
      duplicates.issues += Math.max(0, got - 1);
      missing.issues += got === 0 ? 1 : 0;
    }
    return { duplicates, missing };
  }
  let effects = await stand.effects();
  let drained: number | null = null;
  const drainUntil = Date.now() + config.drainSeconds * 1000;
  let lastReport = 0;
  for (;;) {
    for (const f of failed.splice(0)) {
      redelivered++;
      send(f.kind, f.d, true, false, f.tries);
    }
    effects = await stand.effects();
    const missing = Object.values(missingOf(effects)).reduce((a, b) => a + b, 0);
    const quiet = Date.now() - Math.max(effects.lastWriteAt, lastSentAt) > 10_000;
    if (missing === 0 && pendingCompletions === 0 && timers.size === 0 && inflight.size === 0 && failed.length === 0 && quiet && (queue.depth ?? 0) === 0) {
      drained = Math.max(0, (effects.lastWriteAt - lastSentAt) / 1000);
      break;
    }
    if (Date.now() > drainUntil) break;
    if (Date.now() - lastReport > 30_000) {
      lastReport = Date.now();
      process.stdout.write(`  draining: ${missing} effects missing, ${pendingCompletions} runs to complete, ${effects.writes} writes so far, last ${effects.lastWriteAt ? Math.round((Date.now() - effects.lastWriteAt) / 1000) : '-'} s ago\n`);
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  polling = false;
  await poller;
  for (const t of timers) clearTimeout(t);
  await Promise.all(inflight);
  const cpuEnd = replicas.map((r) => r.cpuMs());
  const wallMs = performance.now() - t0;
  const loadEnd = loadavg()[0];
  for (const replica of replicas) await replica.stop();
  await stand.close();
  rmSync(dir, { recursive: true, force: true });

  const { duplicates, missing } = count_(effects);
  const errors = answers.filter((a) => a.status < 200 || a.status >= 300);
  const statuses = answers.reduce<Record<string, number>>((acc, a) => ((acc[a.status] = (acc[a.status] ?? 0) + 1), acc), {});
  // CPU per delivery over the arrival window (the drain's work included, for the deliveries that made it).
  const cpuMs = cpuEnd.reduce((sum, c, i) => sum + (c - cpuBefore[i]), 0);
  const cpuPerDelivery = cpuMs / Math.max(1, answers.length);
  void cpuAfterSend;
  const firstWrite = effects.writes;
  return {
    config,
    deliveries: answers.length,
    answer_ms: quantiles(answers.map((a) => a.ms)),
    effectful_answer_ms: quantiles(answers.filter((a) => a.effectful).map((a) => a.ms)),
    errors: errors.length,
    error_examples: [...new Set(errors.map((e) => `${e.kind}: ${e.status} ${e.error ?? ''}`.trim()))].slice(0, 5),
    redelivered,
    statuses,
    duplicates,
    missing,
    expected: { dispatches: [...accepted.values()].reduce((n, s) => n + s.size, 0), pull_requests_benched: accepted.size, replies: replied.size, bisects: findings.size, issues: bisectsCompleted.size, bench_runs_completed: benchRunsCompleted.size },
    writes: firstWrite,
    creations: effects.creations,
    drain_s: drained === null ? null : round(drained),
    pacing_floor_s: config.pacing ? Math.max(effects.writes, effects.creations * 3) : 0,
    queue: queue.depth === null ? null : { max_depth: queue.maxDepth, max_oldest_age_s: round(queue.maxOldestAgeMs / 1000) },
    cpu_ms_per_delivery: round(cpuPerDelivery, 2),
    cpu_share: round(cpuMs / wallMs, 2),
    ceiling_per_core_per_min: Math.round(60_000 / cpuPerDelivery),
    loadavg: { start: round(loadStart, 2), end: round(loadEnd, 2) },
    invalid_requests: effects.invalidCount,
    invalid_examples: effects.invalid.slice(0, 5),
  };
}

function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  return { n: sorted.length, p50: round(q(0.5)), p90: round(q(0.9)), p99: round(q(0.99)), max: round(sorted.at(-1) ?? 0) };
}

function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function sum(o: Record<string, number>): number {
  return Object.values(o).reduce((a, b) => a + b, 0);
}

function summaryLine(r: RunResult): string {
  const c = r.config;
  const nonzero = (o: Record<string, number>) => Object.entries(o).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || '0';
  return [
    `${c.replicas} x ${c.store}, pacing ${c.pacing ? 'on' : 'off'}, ${c.rate}/min x ${c.seconds} s: ${r.deliveries} deliveries`,
    `  answer p50 ${r.answer_ms.p50} ms, p99 ${r.answer_ms.p99} ms, max ${r.answer_ms.max} ms (effectful: p99 ${r.effectful_answer_ms.p99} ms of ${r.effectful_answer_ms.n}); statuses ${JSON.stringify(r.statuses)}; errors ${r.errors}${r.error_examples.length ? ` (${r.error_examples.join('; ')}; ${r.redelivered} that change something redelivered)` : ''}`,
    `  duplicates: ${nonzero(r.duplicates)}; missing: ${nonzero(r.missing)}; expected ${JSON.stringify(r.expected)}`,
    `  writes ${r.writes} (${r.creations} creations), queue drained ${r.drain_s === null ? 'NOT within the drain timeout' : `${r.drain_s} s after the last delivery`}${c.pacing ? ` (GitHub's pacing needs >= ${r.pacing_floor_s} s for them)` : ''}${r.queue ? `; queue at most ${r.queue.max_depth} jobs, oldest ${r.queue.max_oldest_age_s} s` : ''}`,
    `  CPU ${r.cpu_ms_per_delivery} ms per delivery, ${r.cpu_share} cores (ceiling ~${r.ceiling_per_core_per_min}/min per core); load average ${r.loadavg.start} -> ${r.loadavg.end}; invalid requests ${r.invalid_requests}${r.invalid_examples.length ? `: ${r.invalid_examples.join('; ')}` : ''}`,
  ].join('\n');
}

function table(rs: RunResult[]): string {
  const rows = rs.map((r) => `| ${r.config.replicas} | ${r.config.store} | ${r.config.pacing ? 'on' : 'off'} | ${r.config.rate} | ${r.deliveries} | ${r.answer_ms.p50} | ${r.answer_ms.p99} | ${r.errors} | ${sum(r.duplicates)} | ${sum(r.missing)} | ${r.drain_s ?? 'not drained'} | ${r.writes} | ${r.cpu_ms_per_delivery} | ${r.loadavg.start}-${r.loadavg.end} |`);
  return ['| replicas | store | pacing | rate/min | deliveries | p50 ms | p99 ms | errors | duplicates | missing | drain s | writes | CPU ms/delivery | load avg |', '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |', ...rows].join('\n');
}
