/**
 * stand-in-process: the GitHub API stand-in (github-api-stand-in.ts) in a
 * process of its own, for the load bench and the tests that run `benchbot
 * serve` as separate processes: the stand-in's request validation then
 * never shares an event loop with the app or the load generator. The parent
 * seeds it and reads it over IPC (startStandInProcess); effects are counted
 * where GitHub would see them.
 *
 * Run as a child (`node test/support/stand-in-process.ts`), it waits for a
 * `seed` message; every other message is a call answered by its `id`.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeZip } from '../app/app-harness.ts';
import { startGitHubApiStandIn, type GitHubApiStandIn, type StandInState } from './github-api-stand-in.ts';

/** BotComment is a comment the app wrote: where, and the marker on its first line. */
export interface BotComment {
  id: number;
  pr: number;
  marker: string;
  body: string;
}

/** Effects are what the app did on the stand-in's GitHub, as a test or the bench counts them. */
export interface Effects {
  dispatches: { index: number; workflowId: string; runId: number; inputs: Record<string, unknown> }[];
  checkRuns: { id: number; headSha: string; status: string; conclusion: string | null; externalId: string | null; updates: number }[];
  comments: BotComment[];
  issues: { number: number; marker: string; title: string; state: string }[];
  cancelled: string[];
  reactions: number;
  /** requests counts the API requests by method; writes are every non-GET. */
  requests: Record<string, number>;
  /** invalid lists requests that failed GitHub's OpenAPI description (the first 20). */
  invalid: string[];
  invalidCount: number;
  statuses: Record<string, number>;
  /** lastWriteAt is the wall time (ms since the epoch) of the last write the stand-in saw, within 100 ms; 0 when none. */
  lastWriteAt: number;
  /** writes is the number of writes (POST, PATCH, PUT, DELETE) seen, and creations those that GitHub paces as content-creating (comments, issues). */
  writes: number;
  creations: number;
}

/** RunDetails are the fields of a run's `workflow_run` payload that come from its dispatch. */
export interface RunDetails {
  displayTitle: string;
  actor: string;
  createdAt: string;
}

/** StandInProcess is a stand-in in a child process. */
export interface StandInProcess {
  url: string;
  pid: number;
  /** call sends one request to the child and resolves with its answer. */
  addComment(c: { pr: number; login: string; body: string; type?: 'User' | 'Bot' }): Promise<{ id: number; createdAt: string; updatedAt: string }>;
  editComment(id: number, body: string): Promise<{ updatedAt: string }>;
  addArtifact(a: { runId: number; name: string; files: Record<string, string> }): Promise<void>;
  /** runsSince returns the dispatches from index `from` on, with the run each created. */
  runsSince(from: number): Promise<Effects['dispatches']>;
  /** run returns what GitHub's webhook says of a run the stand-in created: its name (the run-name with the inputs), actor and creation time. */
  run(runId: number): Promise<RunDetails>;
  effects(options?: { bodies?: boolean }): Promise<Effects>;
  /** setJitter delays every API answer by a random 0..ms. */
  setJitter(ms: number): Promise<void>;
  close(): Promise<void>;
}

/** OWNER/REPO of the stand-in's one repository are the app harness's. */
export interface StandInSeed {
  state: Partial<StandInState>;
  owner: string;
  repo: string;
}

type Call = { id: number; type: string; [key: string]: unknown };

/** startStandInProcess forks the stand-in, seeds it, and returns its handle once it listens. */
export async function startStandInProcess(seed: StandInSeed): Promise<StandInProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  let next = 1;
  child.on('message', (m: { id: number; result?: unknown; error?: string }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(`stand-in process: ${m.error}`));
    else p.resolve(m.result);
  });
  child.on('exit', (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`stand-in process exited (${signal ?? code})`));
    pending.clear();
  });
  const call = <T>(type: string, args: Record<string, unknown> = {}): Promise<T> => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    child.send({ id, type, ...args } satisfies Call);
  });
  const { url } = await call<{ url: string }>('seed', { seed });
  return {
    url,
    pid: child.pid as number,
    addComment: (c) => call('comment', c),
    editComment: (id, body) => call('edit', { commentId: id, body }),
    addArtifact: (a) => call('artifact', a),
    runsSince: (from) => call('runs', { from }),
    run: (runId) => call('run', { runId }),
    effects: (options = {}) => call('effects', options),
    setJitter: (ms) => call('jitter', { ms }),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      await call('close').catch(() => undefined);
      await exited;
    },
  };
}

/** childMain serves calls in the child process. */
async function childMain(): Promise<void> {
  let stand: GitHubApiStandIn | null = null;
  let owner = '';
  let repo = '';
  let lastWriteAt = 0;
  let seen = 0;
  let writes = 0;
  let creations = 0;
  const creating = /^\/repos\/[^/]+\/[^/]+\/issues(\/\d+\/comments)?$/;
  // The stand-in records requests without times: new writes are noticed here, within 100 ms.
  const watch = setInterval(() => {
    if (stand === null) return;
    for (; seen < stand.requests.length; seen++) {
      const r = stand.requests[seen];
      if (r.method === 'GET' || r.method === 'HEAD') continue;
      writes++;
      if (r.method === 'POST' && creating.test(r.path)) creations++;
      lastWriteAt = Date.now();
    }
  }, 100);
  watch.unref();
  const firstLine = (body: string | null) => (body ?? '').split('\n')[0];
  const handlers: Record<string, (m: Call) => Promise<unknown> | unknown> = {
    async seed(m) {
      const s = m.seed as StandInSeed;
      owner = s.owner;
      repo = s.repo;
      stand = await startGitHubApiStandIn({ state: s.state });
      return { url: stand.url };
    },
    comment(m) {
      const c = stand!.addComment({ owner, repo, issueNumber: m.pr as number, body: m.body as string, user: { login: m.login as string, type: (m.type as 'User' | 'Bot') ?? 'User' } });
      return { id: c.id, createdAt: c.createdAt, updatedAt: c.updatedAt };
    },
    edit(m) {
      const c = stand!.state.comments.find((x) => x.id === m.commentId);
      if (!c) throw new Error(`no comment ${String(m.commentId)}`);
      c.body = m.body as string;
      c.updatedAt = new Date(Math.max(Date.now(), Date.parse(c.createdAt) + 1000)).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return { updatedAt: c.updatedAt };
    },
    artifact(m) {
      const files = m.files as Record<string, string>;
      stand!.addArtifact({ owner, repo, runId: m.runId as number, name: m.name as string, data: makeZip(files) });
    },
    runs(m) {
      const s = stand!.state;
      return s.dispatches.slice(m.from as number).map((d, i) => ({ index: (m.from as number) + i, workflowId: d.workflowId, runId: s.runs[(m.from as number) + i]?.id ?? 0, inputs: d.inputs }));
    },
    run(m) {
      const run = stand!.state.runs.find((r) => r.id === m.runId);
      if (!run) throw new Error(`no run ${String(m.runId)}`);
      return { displayTitle: run.displayTitle, actor: run.actor.login, createdAt: run.createdAt } satisfies RunDetails;
    },
    effects(m) {
      const s = stand!.state;
      const bot = (login: string) => login === s.actor.login;
      const requests: Record<string, number> = {};
      const statuses: Record<string, number> = {};
      const invalid: string[] = [];
      for (const r of stand!.requests) {
        requests[r.method] = (requests[r.method] ?? 0) + 1;
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.errors.length > 0 || r.responseErrors.length > 0) invalid.push(`${r.method} ${r.path} -> ${r.status}: ${[...r.errors, ...r.responseErrors].join('; ')}`);
      }
      return {
        dispatches: s.dispatches.map((d, i) => ({ index: i, workflowId: d.workflowId, runId: s.runs[i]?.id ?? 0, inputs: d.inputs })),
        checkRuns: s.checkRuns.map((c) => ({ id: c.id, headSha: c.headSha, status: c.status, conclusion: c.conclusion, externalId: c.externalId, updates: c.history.length - 1 })),
        comments: s.comments.filter((c) => bot(c.user.login)).map((c) => ({ id: c.id, pr: c.issueNumber, marker: firstLine(c.body), body: m.bodies === true ? c.body : '' })),
        issues: s.issues.filter((i) => bot(i.user.login)).map((i) => ({ number: i.number, marker: firstLine(i.body), title: i.title, state: i.state })),
        cancelled: [...s.cancelled],
        reactions: s.reactions.length,
        requests,
        invalid: invalid.slice(0, 20),
        invalidCount: invalid.length,
        statuses,
        lastWriteAt,
        writes,
        creations,
      } satisfies Effects;
    },
    jitter(m) {
      stand!.jitterMs = m.ms as number;
    },
    async close() {
      await stand?.close();
      setImmediate(() => process.exit(0));
    },
  };
  process.on('message', (m: Call) => {
    void (async () => {
      try {
        const result = await handlers[m.type](m);
        process.send?.({ id: m.id, result });
      } catch (error) {
        process.send?.({ id: m.id, error: String((error as Error)?.stack ?? error) });
      }
    })();
  });
  // The parent gone (killed): nothing else would end this process.
  process.on('disconnect', () => process.exit(0));
}

if (import.meta.main) await childMain();
