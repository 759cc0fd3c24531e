// A deployment as GitHub sees it, for the tests that check the app from
// outside: the GitHub API stand-in in a process of its own, one store
// (PostgreSQL when its binaries are here, else one SQLite file), and
// replicas of `benchbot serve` started from the package's bin, each a
// process that a test may kill -9. Deliveries go over new connections with
// GitHub's 10 s timeout; effects are read back from the stand-in.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { startServe, type ServeProcess } from '../support/serve-process.ts';
import { startStandInProcess, type Effects, type StandInProcess } from '../support/stand-in-process.ts';
import { commentPayload, delivery, postDelivery, workflowRunPayload, type Delivery, type DeliveryResult } from '../support/webhook-traffic.ts';
import { APP_ID, APP_SLUG, BENCH_WORKFLOW, BOT_LOGIN, INSTALLATION_ID, OWNER, REPO, benchArtifact, scanJson, sha, starterWorkflows } from './app-harness.ts';

export const NIGHTLY_WORKFLOW = 'benchbot-nightly.yml';
export const BISECT_WORKFLOW = 'benchbot-bisect.yml';
const SECRET = 'fleet secret';

/** Fleet is a running deployment: the stand-in, the store, and the replicas started so far. */
export interface Fleet {
  stand: StandInProcess;
  replicas: ServeProcess[];
  /** store says which store the replicas share (`postgres` or `sqlite`). */
  store: string;
  /** startReplica starts one more replica on the same store. */
  startReplica(): Promise<ServeProcess>;
  /** send delivers to a replica (default the first). */
  send(d: Delivery, to?: ServeProcess): Promise<DeliveryResult>;
  /** command writes a comment into the stand-in and returns its issue_comment.created delivery. */
  command(pr: number, login: string, body: string): Promise<Delivery>;
  /** nightly seeds a nightly run whose scan.json confirms a regression of `series`, and returns its completion. */
  nightly(runId: number, series: string): Promise<Delivery>;
  /** completeBench seeds a /bench run's benchbot-report artifact (base.json, head.json, report.json) and returns its completion. */
  completeBench(runId: number, attempt?: number): Promise<Delivery>;
  /** completeBisect returns a bisect run's completion (no bisect.json: the issue names the nightly range). */
  completeBisect(runId: number, attempt?: number): Promise<Delivery>;
  /** waitFor polls the stand-in's effects until `done` holds, or throws after `ms` with `describe`'s account. */
  waitFor(done: (e: Effects) => boolean, ms: number, describe: (e: Effects) => string): Promise<Effects>;
  /** settle waits until nothing has been written for `quietMs`, then returns the effects. */
  settle(quietMs?: number, ms?: number): Promise<Effects>;
  close(): Promise<void>;
}

/** FleetOptions: replicas to start; pacing off by default (the tests check exactness and crashes, not GitHub's pacing). */
export interface FleetOptions {
  replicas: number;
  pacing?: boolean;
  /** store: PostgreSQL when its binaries are here (the default), or one SQLite file (the deployment for one replica). */
  store?: 'postgres' | 'sqlite';
  pulls: number[];
  env?: Record<string, string>;
}

/** headOf is the head SHA of a seeded pull request. */
export const headOf = (pr: number) => sha(`fleet head ${pr}`);

/** startFleet starts the stand-in, the store and the replicas. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startStandInProcess({
    owner: OWNER,
    repo: REPO,
    state: {
      // The starter workflows' run names and inputs: how the app finds a dispatch whose answer was lost.
      ...starterWorkflows(),
      actor: { login: BOT_LOGIN, type: 'Bot', id: 5_550_001 },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: OWNER, type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
      permissions: { maintainer: 'maintain', admin: 'admin', reader: 'read', triager: 'triage' },
      workflows: [BENCH_WORKFLOW, NIGHTLY_WORKFLOW, BISECT_WORKFLOW],
      pulls: options.pulls.map((n) => ({ owner: OWNER, repo: REPO, number: n, title: `PR ${n}`, state: 'open' as const, user: { login: 'outside-contributor', type: 'User' as const }, headSha: headOf(n), headRef: `feature-${n}`, headOwner: 'outside-contributor', headRepo: REPO, baseSha: sha('fleet base'), baseRef: 'main' })),
    },
  });
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-fleet-'));
  let postgres: PostgresServer | undefined;
  let storeUrl = join(dir, 'app.db');
  try {
    if (options.store === 'postgres' || (options.store === undefined && postgresUnavailable() === undefined)) storeUrl = (postgres = await startPostgres()).url;
  } catch (error) {
    await stand.close();
    throw error;
  }
  const env: Record<string, string> = {
    APP_ID: String(APP_ID),
    PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    WEBHOOK_SECRET: SECRET,
    GITHUB_API_URL: stand.url,
    BENCHBOT_DATABASE_URL: storeUrl,
    ...(options.pacing === true ? {} : { BENCHBOT_WRITE_INTERVAL_MS: '0' }),
    ...options.env,
  };
  const replicas: ServeProcess[] = [];
  const startReplica = async () => {
    const replica = await startServe({ env, log: join(dir, `replica-${replicas.length}.log`) });
    replicas.push(replica);
    return replica;
  };
  const report = benchArtifact();
  const finding = JSON.parse(scanJson()).findings[0];
  const fleet: Fleet = {
    stand,
    replicas,
    store: postgres ? 'postgres' : 'sqlite',
    startReplica,
    send: (d, to = replicas[0]) => postDelivery(to.webhookUrl, d, SECRET),
    async command(pr, login, body) {
      const c = await stand.addComment({ pr, login, body });
      return delivery('issue_comment', commentPayload({ pr, id: c.id, body, login, createdAt: c.createdAt, updatedAt: c.updatedAt }));
    },
    async nightly(runId, series) {
      const scan = JSON.parse(scanJson());
      scan.findings = [{ ...finding, series }];
      await stand.addArtifact({ runId, name: 'benchbot-nightly', files: { 'scan.json': JSON.stringify(scan) } });
      return delivery('workflow_run', workflowRunPayload({ runId, workflow: NIGHTLY_WORKFLOW, event: 'schedule' }));
    },
    async completeBench(runId, attempt = 1) {
      if (attempt === 1) await stand.addArtifact({ runId, name: 'benchbot-report', files: report });
      return delivery('workflow_run', workflowRunPayload({ runId, workflow: BENCH_WORKFLOW, attempt, ...(await stand.run(runId)) }));
    },
    completeBisect: async (runId, attempt = 1) => delivery('workflow_run', workflowRunPayload({ runId, workflow: BISECT_WORKFLOW, attempt, ...(await stand.run(runId)) })),
    async waitFor(done, ms, describe) {
      const until = Date.now() + ms;
      for (;;) {
        const e = await stand.effects({ bodies: true });
        if (done(e)) return e;
        if (Date.now() > until) throw new Error(`not within ${Math.round(ms / 1000)} s: ${describe(e)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async settle(quietMs = 1500, ms = 60_000) {
      const until = Date.now() + ms;
      for (;;) {
        const e = await stand.effects({ bodies: true });
        if (Date.now() - e.lastWriteAt > quietMs || Date.now() > until) return e;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    async close() {
      for (const r of replicas) await r.kill('SIGKILL');
      await stand.close();
      postgres?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    for (let i = 0; i < options.replicas; i++) await startReplica();
  } catch (error) {
    await fleet.close();
    throw error;
  }
  return fleet;
}
