// The effects of one `/bench` (dispatch, check run, report comment), made
// through the app's own effect helpers (bench-effects.ts) on a real store
// against a GitHub stand-in, as a handler makes them. Run directly, it is a
// process that makes them once and is killed -9 by effects-kill.test.ts at
// some moment; the test then makes them again in its own process, as the
// retried job on another replica would.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppState, dispatchKey } from '../../src/app/app-state.ts';
import { dispatchBench, openCheckRun, writeReportComment } from '../../src/app/bench-effects.ts';
import type { HandlerDeps } from '../../src/app/handler-deps.ts';
import { createGitHubClient, type GitHubClient } from '../../src/github/github-client.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

/** BenchJob is one accepted `/bench`: where, the approved SHAs, and the comment (at its version) it came from. */
export interface BenchJob {
  owner: string;
  repo: string;
  pr: number;
  base: string;
  head: string;
  commentId: number;
  version: string;
  workflow: string;
  bot: string;
}

/** effectDeps are the HandlerDeps the effect helpers read: the state (with its lease), the app's login, a silent log and a clock. */
export function effectDeps(store: Store, bot: string, leaseMs?: number): HandlerDeps {
  const unused = () => Promise.reject(new Error('not used by the effect helpers'));
  return {
    state: createAppState(store, Date.now, leaseMs),
    botLogin: async () => bot,
    log: { info: () => undefined, warn: () => undefined },
    now: () => new Date(),
    loadConfig: unused,
    recompute: unused,
  };
}

/** stubbornClient is a client that sends every request once (no blind retries, no spacing), as the app's is for writes. */
export function stubbornClient(apiUrl: string): GitHubClient {
  return createGitHubClient({ token: 'test-token', apiUrl, maxRetries: 0, writeIntervalMs: 0 });
}

/** makeBenchEffects makes a `/bench`'s effects in the handler's order: the dispatch, then the check run on its head and the report comment. */
export async function makeBenchEffects(deps: HandlerDeps, client: GitHubClient, job: BenchJob): Promise<number> {
  const where = { owner: job.owner, repo: job.repo };
  const run = await dispatchBench(deps, client, where, job.workflow, 'main', { 'pr-number': String(job.pr), base: job.base, head: job.head }, dispatchKey(job.owner, job.repo, job.pr, job.commentId, job.version), new Date().toISOString());
  await openCheckRun(deps, client, where, job.pr, job.head, { detailsUrl: run.url, externalId: String(run.id), startedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), title: 'Benchmarking', summary: `/bench on #${job.pr}` });
  await writeReportComment(deps, client, where, job.pr, `Benchmarking \`${job.head.slice(0, 12)}\` ([run](${run.url}))`);
  return run.id;
}

if (import.meta.main) {
  // argv: the store URL, the API URL, the lease in ms, the job as JSON. Says `ready`, makes the effects on `go`, says `done`.
  const [storeUrl, apiUrl, leaseMs, jobJson] = process.argv.slice(2);
  const store = await openStore(storeUrl, { cwd: mkdtempSync(join(tmpdir(), 'benchbot-effects-child-')), env: {} });
  const deps = effectDeps(store, (JSON.parse(jobJson) as BenchJob).bot, Number(leaseMs));
  const client = stubbornClient(apiUrl);
  process.on('message', (m) => {
    if (m !== 'go') return;
    void makeBenchEffects(deps, client, JSON.parse(jobJson) as BenchJob).then(async () => {
      process.send?.('done');
      await store.close();
      process.disconnect();
    });
  });
  process.send?.('ready');
}
