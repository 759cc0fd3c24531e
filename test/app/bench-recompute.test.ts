// One approved `/bench` with a huge artifact cannot stall the app (issue 22,
// item 3). Through the real server and the stand-in: the audit's artifact,
// 120,000 benchmarks (about 10 MB per side, under the 32 MiB cap), is
// recomputed off the event loop while other signed deliveries are answered
// (typically within 0.3 s; it held one 37 s before); the report says the
// series cap applied; past the time budget or the heap limit the comment
// says the report was not recomputed, and the next one is. And the
// bundled CLI (built here with the release's esbuild options) runs the
// recompute worker from beside itself.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { RECOMPUTE_HEAP_MB, RECOMPUTE_TIME_BUDGET_MS } from '../../src/app/bench-recompute.ts';
import { MAX_RECOMPUTED_SERIES } from '../../src/app/bench-report.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { NODE_BUNDLE_ENTRIES, NODE_BUNDLE_OPTIONS } from '../../scripts/bundle-options.ts';
import { startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { APP_ID, APP_SLUG, BENCH_WORKFLOW, BOT_LOGIN, INSTALLATION_ID, OWNER, REPO, benchArtifact, commentEvent, deliver, makeZip, runEvent, seedPull, sha, startHarness, type Harness } from './app-harness.ts';

const BASE = sha('base');
const HEAD = sha('head');
const AUDIT_BENCHMARKS = 120_000;

/**
 * hugeSide is one side of the audit's artifact: `count` benchmarks of three
 * rounds each, head `slower` times base, in benchbot JSON as the report job
 * writes it (samplesJson's shape).
 */
function hugeSide(count: number, slower: number): string {
  const benchmarks = Array.from({ length: count }, (_, i) => ({ benchmark: `BM_${i}`, metric: 'real_time', unit: 'ns', better: 'lower', values: [100 * slower + (i % 7), 101 * slower, 99 * slower + 1] }));
  return JSON.stringify({ $schema: 'benchbot-json/1', version: 1, benchmarks });
}

/** approve runs `/bench` on PR 42 as a maintainer and returns the run id the app dispatched. */
async function approve(h: Harness): Promise<number> {
  h.stand.state.permissions = { maintainer: 'maintain' };
  h.stand.state.workflows = [BENCH_WORKFLOW];
  seedPull(h, { number: 42, head: HEAD, base: BASE, fork: true });
  const reply = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench', login: 'maintainer' }));
  assert.equal(reply.status, 200, reply.text);
  const runId = Number(h.stand.state.checkRuns.findLast((c) => c.name === 'benchbot /bench')?.externalId);
  assert.ok(runId > 0);
  return runId;
}

const sticky = (h: Harness) => h.stand.state.comments.find((c) => c.issueNumber === 42 && c.body.split('\n')[0] === REPORT_MARKER);

describe('the audit\'s 120,000-benchmark artifact (shipped cap and budget)', () => {
  let h: Harness;
  let zip: Uint8Array;
  before(async () => {
    h = await startHarness();
    const files = { 'base.json': hugeSide(AUDIT_BENCHMARKS, 1), 'head.json': hugeSide(AUDIT_BENCHMARKS, 1.01) };
    zip = makeZip(files);
    console.log(`# artifact: ${AUDIT_BENCHMARKS} benchmarks, ${(files['base.json'].length / 1e6).toFixed(1)} MB base.json, ${(files['head.json'].length / 1e6).toFixed(1)} MB head.json, ${(zip.length / 1e6).toFixed(1)} MB zipped`);
  });
  after(() => h.close());

  test('other signed deliveries are answered within 2 s (typically 0.3 s) while it is recomputed, and the report says the cap applied', { timeout: 110_000 }, async (t) => {
    const runId = await approve(h);
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: zip });
    const started = Date.now();
    const big = deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }));
    const posted = () => sticky(h)?.body.includes('series;') === true;
    // Deliveries one after another from the start until the report is posted: they overlap the download, parse, compare and render.
    const other: number[] = [];
    while (!posted()) {
      assert.ok(Date.now() - started < 90_000, 'the report was not posted within 90 s');
      const t0 = Date.now();
      const reply = await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger', pr: 7 }));
      assert.equal(reply.status, 200, reply.text);
      other.push(Date.now() - t0);
    }
    const total = Date.now() - started;
    const reply = await big;
    // Probot answers 202 ("still processing") to a delivery whose handler runs past its 9 s, within GitHub's 10 s.
    assert.ok(reply.status === 200 || reply.status === 202, `${reply.status} ${reply.text}`);
    t.diagnostic(`the big /bench delivery answered ${reply.status}, its report posted after about ${total} ms; ${other.length} other deliveries meanwhile answered in at most ${Math.max(...other)} ms (median ${other.sort((a, b) => a - b)[Math.floor(other.length / 2)]} ms)`);
    assert.ok(other.length >= 10, `the recompute ran long enough to overlap deliveries (${other.length})`);
    // Typically under 0.3 s; the bound leaves room for a loaded shared machine, far below the 37 s the same artifact held a delivery before and GitHub's 10 s.
    assert.ok(Math.max(...other) < 2000, `every other delivery answered within 2 s: ${other.join(', ')} ms`);

    const body = sticky(h)?.body ?? '';
    assert.ok(body.includes(`The artifact holds ${AUDIT_BENCHMARKS.toLocaleString('en-US')} series; the app recomputes at most ${MAX_RECOMPUTED_SERIES.toLocaleString('en-US')}`), body.slice(0, 2000));
    assert.match(body, /BM_0\b/, 'the report shows the first series');
    const check = h.stand.state.checkRuns.find((c) => c.externalId === String(runId));
    assert.equal(check?.status, 'completed');
    assert.ok(check?.output?.summary?.includes('the app recomputes at most'), 'the check run says so too');
  });
});

describe('the time budget and the heap limit', () => {
  /** hugeZip is the audit's artifact zipped, made once (its recompute takes seconds: past a 1 s budget). */
  let hugeZip: Uint8Array;
  before(() => {
    hugeZip = makeZip({ 'base.json': hugeSide(AUDIT_BENCHMARKS, 1), 'head.json': hugeSide(AUDIT_BENCHMARKS, 1.01) });
  });

  /** overAndAfter reports the huge artifact on one harness, then a normal one: the first says `why`, the second is reported (a fresh worker). */
  async function overAndAfter(h: Harness, why: RegExp): Promise<void> {
    const runId = await approve(h);
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: hugeZip });
    const reply = await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }));
    assert.equal(reply.status, 200, reply.text);
    assert.match(sticky(h)?.body ?? '', why);
    assert.equal(h.stand.state.checkRuns.find((c) => c.externalId === String(runId))?.conclusion, 'failure');
    assert.equal((await deliver(h, 'issue_comment', commentEvent(h, { body: '/bench help', login: 'stranger', pr: 7 }))).status, 200, 'the app still answers');
    const next = await approve(h);
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId: next, name: 'benchbot-report', data: makeZip(benchArtifact()) });
    assert.equal((await deliver(h, 'workflow_run', runEvent({ runId: next, conclusion: 'success' }))).status, 200);
    assert.match(sticky(h)?.body ?? '', /### benchbot \/bench: 1 regression/, 'the next report is recomputed');
  }

  test('a recompute past its time budget is stopped, the comment says so, and the next report is recomputed', async () => {
    const h = await startHarness({ recompute: { timeBudgetMs: 1000 } });
    try {
      await overAndAfter(h, /the report was not recomputed within the app's 1 s budget; the run's benchbot-report artifact has the results/);
    } finally {
      await h.close();
    }
  });

  test('a recompute past its heap limit is stopped, not the app, the comment says so, and the next report is recomputed', async () => {
    const h = await startHarness({ recompute: { heapMb: 48 } });
    try {
      await overAndAfter(h, /the report needed more than the app's 48 MiB of memory to recompute; the run's benchbot-report artifact has the results/);
    } finally {
      await h.close();
    }
  });
});

test('the shipped cap and budget are what docs/app.md and docs/security.md say', () => {
  assert.equal(MAX_RECOMPUTED_SERIES, 10_000);
  assert.equal(RECOMPUTE_TIME_BUDGET_MS, 60_000);
  assert.equal(RECOMPUTE_HEAP_MB, 512);
  for (const doc of ['app.md', 'security.md']) {
    const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
    assert.ok(text.includes(`at most ${MAX_RECOMPUTED_SERIES.toLocaleString('en-US')} series`), `docs/${doc} gives the series cap`);
    assert.ok(text.includes(`${RECOMPUTE_TIME_BUDGET_MS / 1000} s`), `docs/${doc} gives the time budget`);
    assert.ok(text.includes(`${RECOMPUTE_HEAP_MB} MiB of heap`), `docs/${doc} gives the heap limit`);
  }
});

test('the bundled CLI (dist/benchbot.js as the release builds it) recomputes in its worker', { timeout: 110_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-bundle-'));
  const dist = join(dir, 'dist');
  await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: NODE_BUNDLE_ENTRIES, outdir: dist, logLevel: 'error' });
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stand = await startGitHubApiStandIn({
    state: {
      actor: { login: BOT_LOGIN, type: 'Bot' },
      app: { id: APP_ID, slug: APP_SLUG, owner: { login: OWNER, type: 'Organization' }, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(), installations: [INSTALLATION_ID] },
    },
  });
  const keyPath = join(dir, 'app.pem');
  writeFileSync(keyPath, privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  const child = spawn(process.execPath, [join(dist, 'benchbot.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--store', join(dir, 'app.db')], {
    cwd: dir,
    env: { ...process.env, APP_ID: String(APP_ID), PRIVATE_KEY_PATH: keyPath, WEBHOOK_SECRET: 'webhook secret for tests', GITHUB_API_URL: stand.url, LOG_LEVEL: 'fatal' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    const [first] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const url = /listening on (http:\/\/\S+)/.exec(first)?.[1];
    assert.ok(url, first);
    const h = { stand, app: { url, webhookUrl: `${url}/api/github/webhooks` } } as unknown as Harness;
    const runId = await approve(h);
    h.stand.addArtifact({ owner: OWNER, repo: REPO, runId, name: 'benchbot-report', data: makeZip(benchArtifact()) });
    const reply = await deliver(h, 'workflow_run', runEvent({ runId, conclusion: 'success' }));
    assert.equal(reply.status, 200, `${reply.text} ${stderr}`);
    const body = sticky(h)?.body ?? '';
    t.diagnostic(`bundled ${Object.keys(NODE_BUNDLE_ENTRIES).join(', ')}; the report: ${body.split('\n')[1]}`);
    assert.match(body, /1 regression/, body);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await stand.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
