import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { FormatError } from '../../src/formats/format-error.ts';
import type { Run } from '../../src/model/run.ts';
import { exportNdjson } from '../../src/store/export-ndjson.ts';
import { importGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { importNdjson } from '../../src/store/import-ndjson.ts';
import { openStore } from '../../src/store/open-store.ts';
import { machineKey } from '../../src/model/fingerprint.ts';
import { poolSamples, StoreError, type IngestRun, type Store } from '../../src/store/store.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';

const OPEN_STORE = pathToFileURL(join(import.meta.dirname, '../../src/store/open-store.ts')).href;
const scratch = mkdtempSync(join(tmpdir(), 'benchbot-store-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** MakeStore returns the URL of a fresh, empty store (children open it by URL too). */
type MakeStore = () => Promise<string>;

let counter = 0;
function fresh(prefix: string): string {
  return `${prefix}${++counter}`;
}

function open(url: string): Promise<Store> {
  return openStore(url, { cwd: scratch, env: {} });
}

async function withStore<T>(make: MakeStore, fn: (store: Store, url: string) => Promise<T>): Promise<T> {
  const url = await make();
  const store = await open(url);
  try {
    return await fn(store, url);
  } finally {
    await store.close();
  }
}

function run(overrides: Partial<IngestRun> = {}): IngestRun {
  return {
    sha: 'a'.repeat(40),
    ref: 'refs/heads/main',
    role: 'nightly',
    fingerprint: { cpuModel: 'Test CPU @ 3.0GHz', cores: 8, governor: 'performance', turbo: false, runnerLabels: ['self-hosted', 'bench'], toolVersions: { go: '1.22.1' } },
    time: '2024-03-01T02:00:00Z',
    harness: 'go-bench',
    measurements: [
      { benchmark: 'BenchmarkParse/small', metric: 'time', unit: 'ns/op', better: 'lower', values: [1843, 1791.5, 0.1 + 0.2, 1e-300, 1.7976931348623157e308] },
      { benchmark: 'BenchmarkParse/small', metric: 'allocs', unit: 'allocs/op', better: 'lower', values: [12, 12, 13] },
      { benchmark: 'BenchmarkEncode', metric: 'bytes_per_second', unit: 'B/s', better: 'higher', values: [] },
    ],
    warnings: [{ kind: 'note', message: 'two benchmarks skipped', benchmark: 'BenchmarkSlow' }],
    hints: { goos: 'linux', cpu: 'Test CPU', procs: 8, debug: false },
    repo: 'example-org/fastjson',
    branch: 'main',
    ...overrides,
  };
}

/** storeContract is the behaviour every Store adapter must show, run against a real store. */
function storeContract(name: string, make: () => MakeStore, skip?: string): void {
  describe(`store contract: ${name}`, { skip }, () => {
    test('migrate is idempotent and records its version', async () => {
      await withStore(make(), async (store) => {
        assert.equal(await store.migrate(), 0, 'openStore already migrated');
        assert.deepEqual(await store.counts(), { runs: 0, fingerprints: 0, measurements: 0, samples: 0, state: 0 });
      });
    });

    test('ingest then getRun returns the run exactly, every raw sample included', async () => {
      await withStore(make(), async (store) => {
        const input = run();
        const id = await store.ingestRun(input);
        assert.match(id, /^[0-9a-f]{64}$/);
        const got = await store.getRun(id);
        assert.ok(got);
        const { repo, branch, ...plain } = input;
        assert.deepEqual(got, { ...plain, repo, branch, id, machineKey: machineKey(input.fingerprint) });
        assert.equal(await store.getRun('no-such-run'), undefined);
        assert.deepEqual(await store.counts(), { runs: 1, fingerprints: 1, measurements: 3, samples: 8, state: 0 });
      });
    });

    test('a retried ingest stores nothing twice; a client key becomes the id', async () => {
      await withStore(make(), async (store) => {
        const first = await store.ingestRun(run());
        assert.equal(await store.ingestRun(run()), first);
        assert.equal(await store.ingestRun(run({ key: 'client-uuid-1' })), 'client-uuid-1');
        assert.equal(await store.ingestRun(run({ key: 'client-uuid-1', sha: 'b'.repeat(40) })), 'client-uuid-1', 'the key wins');
        assert.equal((await store.getRun('client-uuid-1'))?.sha, 'a'.repeat(40));
        const counts = await store.counts();
        assert.equal(counts.runs, 2);
        assert.equal(counts.samples, 16);
        // Same fingerprint content in another key order is one row.
        const fp = run().fingerprint;
        const reordered = Object.fromEntries(Object.entries(fp).reverse());
        await store.ingestRun(run({ fingerprint: reordered, time: '2024-03-02T02:00:00Z' }));
        assert.equal((await store.counts()).fingerprints, 1);
      });
    });

    test('an invalid run is refused with its path and nothing is stored', async () => {
      await withStore(make(), async (store) => {
        const bad = run();
        bad.measurements[1].values[2] = Number.NaN;
        await assert.rejects(store.ingestRun(bad), (e: unknown) => e instanceof StoreError && /measurements\[1\]\.values\[2\]: expected a finite number, got NaN/.test(e.message));
        await assert.rejects(store.ingestRuns([run(), run({ role: 'weekly' as Run['role'] })]), (e: unknown) => e instanceof StoreError && /run #2: role/.test(e.message));
        await assert.rejects(store.ingestRun(run({ time: 'yesterday' })), /time: expected an ISO 8601 timestamp/);
        assert.deepEqual(await store.counts(), { runs: 0, fingerprints: 0, measurements: 0, samples: 0, state: 0 });
      });
    });

    test('concurrent calls from one process all land', async () => {
      await withStore(make(), async (store) => {
        const writes = Array.from({ length: 20 }, (_, i) => store.ingestRun(run({ time: new Date(Date.UTC(2024, 0, 1, i)).toISOString() })));
        const states = Array.from({ length: 10 }, (_, i) => store.compareAndSetState(`k${i % 5}`, null, i));
        const [ids, versions] = await Promise.all([Promise.all(writes), Promise.all(states)]);
        assert.equal(new Set(ids).size, 20);
        assert.equal(versions.filter((v) => v === 1).length, 5, 'exactly one claim per key wins');
        assert.equal((await store.counts()).runs, 20);
      });
    });

    test('listRuns filters, orders newest first, limits and pages with before', async () => {
      await withStore(make(), async (store) => {
        const ids: string[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push(await store.ingestRun(run({ time: `2024-03-0${i + 1}T02:00:00Z`, role: i % 2 ? 'head' : 'nightly', sha: `${i}`.repeat(40) })));
        }
        await store.ingestRun(run({ repo: 'other/repo', time: '2024-03-09T00:00:00Z' }));
        const all = await store.listRuns({ repo: 'example-org/fastjson' });
        assert.deepEqual(all.map((r) => r.id), [...ids].reverse());
        assert.equal(all[0].measurements, 3);
        assert.equal(all[0].machineKey, machineKey(run().fingerprint));
        assert.equal((await store.listRuns()).length, 6);
        assert.deepEqual((await store.listRuns({ repo: 'example-org/fastjson', role: 'head' })).map((r) => r.id), [ids[3], ids[1]]);
        assert.deepEqual((await store.listRuns({ sha: '2'.repeat(40) })).map((r) => r.id), [ids[2]]);
        assert.deepEqual((await store.listRuns({ repo: 'example-org/fastjson', limit: 2 })).map((r) => r.id), [ids[4], ids[3]]);
        assert.deepEqual((await store.listRuns({ repo: 'example-org/fastjson', before: '2024-03-03T02:00:00Z' })).map((r) => r.id), [ids[1], ids[0]]);
        assert.deepEqual(await store.listRuns({ branch: 'nope' }), []);
        await assert.rejects(store.listRuns({ limit: 0 }), StoreError);
      });
    });

    test('samplesFor returns each run\'s raw samples at a commit; poolSamples pools them', async () => {
      await withStore(make(), async (store) => {
        const sha = 'c'.repeat(40);
        const base1 = await store.ingestRun(run({ sha, role: 'base', time: '2024-03-01T00:00:00Z', measurements: [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower', values: [3, 1, 2] }] }));
        const base2 = await store.ingestRun(run({ sha, role: 'base', time: '2024-03-01T00:05:00Z', measurements: [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower', values: [4, 5] }] }));
        await store.ingestRun(run({ sha, role: 'head', time: '2024-03-01T00:06:00Z', measurements: [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower', values: [9] }] }));
        await store.ingestRun(run({ sha: 'd'.repeat(40), role: 'base' }));
        const rows = await store.samplesFor({ repo: 'example-org/fastjson', sha, role: 'base' });
        assert.deepEqual(rows.map((r) => [r.runId, r.values]), [[base1, [3, 1, 2]], [base2, [4, 5]]]);
        assert.equal(rows[0].machineKey, machineKey(run().fingerprint));
        assert.deepEqual(poolSamples(rows), [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower', values: [3, 1, 2, 4, 5] }]);
        assert.equal((await store.samplesFor({ sha })).length, 3);
        assert.deepEqual(await store.samplesFor({ sha, benchmark: 'nope' }), []);
        const small = await store.samplesFor({ sha: 'd'.repeat(40), benchmark: 'BenchmarkParse/small', metric: 'allocs' });
        assert.deepEqual(small.map((r) => r.values), [[12, 12, 13]]);
      });
    });

    test('series gives per-run medians in time order (offsets included), optionally with raw values', async () => {
      await withStore(make(), async (store) => {
        const m = (values: number[]) => [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower' as const, values }];
        // 01:30+02:00 is 23:30Z the day before: it sorts first although its text sorts last.
        const late = await store.ingestRun(run({ time: '2024-03-02T01:00:00Z', measurements: m([5, 1, 3]) }));
        const early = await store.ingestRun(run({ time: '2024-03-02T01:30:00+02:00', measurements: m([10, 20]) }));
        const other = await store.ingestRun(run({ time: '2024-03-03T01:00:00Z', measurements: m([7]), fingerprint: { cpuModel: 'Other' } }));
        await store.ingestRun(run({ time: '2024-03-04T01:00:00Z', branch: 'feature', measurements: m([1]) }));
        const points = await store.series({ repo: 'example-org/fastjson', branch: 'main', benchmark: 'B', metric: 'time' });
        assert.deepEqual(points.map((p) => [p.runId, p.median, p.n]), [[early, 15, 2], [late, 3, 3], [other, 7, 1]]);
        assert.equal(points[0].values, undefined);
        const same = await store.series({ repo: 'example-org/fastjson', branch: 'main', machineKey: machineKey(run().fingerprint), values: true });
        assert.deepEqual(same.map((p) => p.values), [[10, 20], [5, 1, 3]]);
        // A night on the same machine under a different load (or with newer tools) stays in the same series.
        const busier = await store.ingestRun(run({ time: '2024-03-06T01:00:00Z', measurements: m([9]), fingerprint: { ...run().fingerprint, loadAverage: 3.5, toolVersions: { gcc: '13.1' } } }));
        const still = await store.series({ repo: 'example-org/fastjson', branch: 'main', benchmark: 'B', machineKey: machineKey(run().fingerprint) });
        assert.deepEqual(still.map((p) => p.runId), [early, late, busier]);
        const empty = await store.ingestRun(run({ time: '2024-03-05T01:00:00Z', measurements: [{ benchmark: 'E', metric: 'time', unit: 'ns', better: 'lower', values: [] }] }));
        assert.deepEqual((await store.series({ benchmark: 'E' })).map((p) => [p.runId, p.median, p.n]), [[empty, null, 0]]);
      });
    });

    test('effects: a key is taken by exactly one of many takers at once, recorded done with its GitHub id, released as unknown or as it was, and taken over once its lease ran out', async () => {
      await withStore(make(), async (store) => {
        // As AppState.withEffect uses it, on one store as on many replicas behind it.
        const key = 'check-run:o/r#1:abc';
        const t0 = Date.parse('2026-01-01T00:00:00Z');
        const takes = await Promise.all(Array.from({ length: 16 }, (_, i) => store.takeEffect(key, `h${i}`, t0, 60_000)));
        const winners = takes.flatMap((t, i) => (t.taken ? [i] : []));
        assert.equal(winners.length, 1, 'one taker holds the key');
        const holder = `h${winners[0]}`;
        assert.deepEqual(takes[winners[0]], { taken: true, before: undefined });
        const held = await store.getEffect(key);
        assert.deepEqual([held?.status, held?.holder, held?.leaseUntil, held?.attempts], ['intended', holder, t0 + 60_000, 1]);
        assert.equal(await store.finishEffect(key, 'someone else', 1, {}), false, 'only the holder records');
        assert.equal(await store.finishEffect(key, holder, 7, { open: true }), true);
        const done = await store.getEffect(key);
        assert.deepEqual([done?.status, done?.holder, done?.githubId, done?.result, done?.doneAt !== null], ['done', null, 7, { open: true }, true]);

        // Taken again over the done record: the taker learns what was made; 16 at once, one wins.
        const again = await Promise.all(Array.from({ length: 16 }, (_, i) => store.takeEffect(key, `g${i}`, t0 + 1000, 60_000)));
        const second = again.flatMap((t, i) => (t.taken ? [i] : []));
        assert.equal(second.length, 1);
        const took = again[second[0]];
        assert.ok(took.taken && took.before?.status === 'done' && took.before.githubId === 7);
        // Made nothing: put back as it was.
        assert.equal(await store.releaseEffect(key, `g${second[0]}`, took.taken ? took.before : undefined), true);
        assert.deepEqual(await store.getEffect(key).then((e) => [e?.status, e?.holder, e?.githubId]), ['done', null, 7]);

        // Failed (made or not, unknown): stays intended without a holder, and the next taker is told.
        assert.equal((await store.takeEffect(key, 'f', t0 + 2000, 60_000)).taken, true);
        assert.equal(await store.releaseEffect(key, 'f', 'unknown'), true);
        const next = await store.takeEffect(key, 'n', t0 + 3000, 60_000);
        assert.ok(next.taken && next.before?.status === 'intended' && next.before.holder === null && next.before.githubId === 7);

        // A holder that stopped renewing (crashed) is taken over after its lease; one that renews is not.
        const busy = await store.takeEffect(key, 'other', t0 + 4000, 60_000);
        assert.ok(!busy.taken && busy.current.holder === 'n');
        assert.equal(await store.renewEffect(key, 'n', t0 + 120_000), true);
        assert.equal((await store.takeEffect(key, 'other', t0 + 100_000, 60_000)).taken, false, 'renewed: still held');
        const over = await store.takeEffect(key, 'other', t0 + 120_001, 60_000);
        assert.ok(over.taken && over.before?.holder === 'n' && over.before.attempts === 4);
        assert.equal(await store.finishEffect(key, 'n', 9, {}), false, 'the crashed holder cannot record over the new one');

        // A fresh key released unmade leaves nothing; listing and deleting by version.
        assert.equal((await store.takeEffect('reply:o/r#5', 'x', t0, 1000)).taken, true);
        assert.equal(await store.releaseEffect('reply:o/r#5', 'x', undefined), true);
        assert.equal(await store.getEffect('reply:o/r#5'), undefined);
        assert.deepEqual((await store.listEffects('check-run:')).map((e) => [e.key, e.holder]), [[key, 'other']]);
        const entry = await store.getEffect(key);
        assert.equal(await store.deleteEffect(key, entry!.version), false, 'a held key is not deleted');
        assert.equal(await store.releaseEffect(key, 'other', 'unknown'), true);
        const free = await store.getEffect(key);
        assert.equal(await store.deleteEffect(key, free!.version - 1), false);
        assert.equal(await store.deleteEffect(key, free!.version), true);
      });
    });

    test('state: put, get, compare-and-set, delete, list by prefix', async () => {
      await withStore(make(), async (store) => {
        assert.equal(await store.getState('delivery/1'), undefined);
        assert.equal(await store.compareAndSetState('delivery/1', null, { seen: true }), 1);
        assert.equal(await store.compareAndSetState('delivery/1', null, { seen: 'again' }), null, 'a duplicate delivery changes nothing');
        assert.deepEqual(await store.getState('delivery/1'), { key: 'delivery/1', value: { seen: true }, version: 1 });
        assert.equal(await store.putState('pending/42', { command: '/bench', sha: 'abc', n: 1.5, list: [1, 'x', null] }), 1);
        assert.equal(await store.putState('pending/42', { command: '/bench', sha: 'def' }), 2);
        assert.equal(await store.compareAndSetState('pending/42', 1, 'stale'), null);
        assert.equal(await store.compareAndSetState('pending/42', 2, 'done'), 3);
        assert.equal((await store.getState('pending/42'))?.value, 'done');
        await store.putState('pending/7', 7);
        await store.putState('pending_x', 'not under pending/');
        assert.deepEqual((await store.listState('pending/')).map((e) => [e.key, e.value, e.version]), [['pending/42', 'done', 3], ['pending/7', 7, 1]]);
        assert.equal(await store.deleteState('pending/42', 2), false);
        assert.equal(await store.deleteState('pending/42', 3), true);
        assert.equal(await store.deleteState('pending/42'), false);
        assert.equal((await store.counts()).state, 3);
        await assert.rejects(store.putState('x', undefined), StoreError);
        await assert.rejects(store.putState('', 1), StoreError);
      });
    });

    test('export then import into a fresh store gives identical data; re-import adds nothing', async () => {
      const source = await make()();
      const target = await make()();
      const a = await open(source);
      const b = await open(target);
      try {
        await a.ingestRun(run());
        await a.ingestRun(run({ key: 'client-key', role: 'base', ref: undefined, repo: undefined, branch: undefined, time: '2024-02-01T00:00:00-05:00' }));
        await a.ingestRun(run({ time: '2024-03-09T00:00:00Z', fingerprint: {}, measurements: [{ benchmark: 'X', metric: 'time', unit: 's', better: 'lower', values: [0.000123, 2.5e-9] }] }));
        let exported = '';
        assert.deepEqual(await exportNdjson(a, (chunk) => void (exported += chunk)), { runs: 3 });
        assert.equal(exported.split('\n').length, 5, 'header, three runs, final newline');
        assert.deepEqual(await importNdjson(b, exported, { file: 'history.ndjson' }), { runs: 3, created: 3 });
        assert.deepEqual(await importNdjson(b, exported.split('\n')), { runs: 3, created: 0 });
        let again = '';
        await exportNdjson(b, (chunk) => void (again += chunk));
        assert.equal(again, exported);
        assert.deepEqual(await b.counts(), await a.counts());
        for (const id of await a.listRunIds()) assert.deepEqual(await b.getRun(id), await a.getRun(id));
      } finally {
        await a.close();
        await b.close();
      }
    });

    test('a bad line anywhere in an import stores nothing', async () => {
      await withStore(make(), async (store) => {
        const good = `{"format":"benchbot-history","version":1}\n${JSON.stringify({ type: 'run', id: 'r1', ...run() })}\n`;
        const bad = `${good}${JSON.stringify({ type: 'run', id: 'r2', ...run(), measurements: [{ benchmark: 'B', metric: 'time', unit: 'ns', better: 'lower', values: [1, 'x'] }] })}\n`;
        await assert.rejects(importNdjson(store, bad, { file: 'h.ndjson' }), (e: unknown) => e instanceof FormatError && e.message.startsWith('h.ndjson:3: measurements[0].values[1]: expected a finite number'));
        assert.equal((await store.counts()).runs, 0);
      });
    });

    test('github-action-benchmark history imports in one go and re-imports as a no-op', async () => {
      await withStore(make(), async (store) => {
        const text = readFileSync(join(FIXTURES, 'github-action-benchmark/data-handwritten.js'), 'utf8');
        const first = await importGithubActionBenchmark(store, text, { file: 'data.js', branch: 'main' });
        assert.deepEqual(first, { repo: 'example-org/fastjson', runs: 6, created: 6 });
        assert.equal((await importGithubActionBenchmark(store, text, { branch: 'main' })).created, 0);
        // Expected values read straight from the fixture's JSON, independently of the importer.
        const data = JSON.parse(text.slice(text.indexOf('{')));
        const go = data.entries['Go Benchmark'] as { date: number; commit: { id: string }; benches: { name: string; value: number }[] }[];
        const points = await store.series({ repo: 'example-org/fastjson', branch: 'main', benchmark: 'Go Benchmark/BenchmarkParse/small', values: true });
        assert.deepEqual(
          points.map((p) => [p.sha, p.time, p.values]),
          go.map((e) => [e.commit.id, new Date(e.date).toISOString(), [e.benches.find((b) => b.name === 'BenchmarkParse/small')!.value]]),
        );
      });
    });

    test('a process killed mid-ingest leaves exactly the previous state', { timeout: 60_000 }, async () => {
      const url = await make()();
      const store = await open(url);
      const before = [await store.ingestRun(run()), await store.ingestRun(run({ time: '2024-03-02T00:00:00Z' }))];
      const countsBefore = await store.counts();
      await store.close();
      const child = startChild(url, 'huge');
      const written = await child.waitFor(/^written (\d+)$/, (m) => Number(m[1]) >= 100_000);
      assert.ok(written, 'the child wrote samples inside its transaction');
      child.kill();
      const { code, signal } = await child.exited;
      assert.equal(signal, 'SIGKILL', `child ended on its own (code ${code}): ${child.output()}`);
      assert.doesNotMatch(child.output(), /committed/);
      const reopened = await open(url);
      try {
        assert.deepEqual(await reopened.counts(), countsBefore);
        assert.deepEqual((await reopened.listRuns()).map((r) => r.id).sort(), [...before].sort());
        // The store still takes writes after the crash.
        await reopened.ingestRun(run({ time: '2024-03-03T00:00:00Z' }));
        assert.equal((await reopened.counts()).runs, 3);
      } finally {
        await reopened.close();
      }
      if (url.startsWith('sqlite:')) {
        const db = new DatabaseSync(url.slice('sqlite:'.length));
        assert.deepEqual(db.prepare('PRAGMA integrity_check').all().map((r) => r.integrity_check), ['ok']);
        db.close();
      }
    });

    test('two concurrent writers lose nothing', { timeout: 60_000 }, async () => {
      const url = await make()();
      // Create the schema first so the children race on data, then again on a fresh store below.
      await (await open(url)).close();
      const children = [startChild(url, 'many', 'w1'), startChild(url, 'many', 'w2')];
      await goTogether(children);
      const results = await Promise.all(children.map((c) => c.exited));
      results.forEach((r, i) => assert.equal(r.code, 0, `writer ${i + 1} failed: ${children[i].output()}`));
      const ids = children.flatMap((c) => c.lines().filter((l) => l.startsWith('id ')).map((l) => l.slice(3)));
      assert.equal(ids.length, 102);
      const store = await open(url);
      try {
        const stored = await store.listRunIds();
        assert.equal(stored.length, 101, 'fifty runs from each writer plus the one run both wrote');
        assert.deepEqual(new Set(stored), new Set(ids));
        assert.deepEqual(await store.counts(), { runs: 101, fingerprints: 2, measurements: 101, samples: 101 * 3, state: 2 });
      } finally {
        await store.close();
      }
    });

    test('two processes opening a brand-new store together both succeed', { timeout: 60_000 }, async () => {
      const url = await make()();
      const children = [startChild(url, 'many', 'n1'), startChild(url, 'many', 'n2')];
      await goTogether(children);
      const results = await Promise.all(children.map((c) => c.exited));
      results.forEach((r, i) => assert.equal(r.code, 0, `writer ${i + 1} failed: ${children[i].output()}`));
      const store = await open(url);
      try {
        assert.equal((await store.counts()).runs, 101);
      } finally {
        await store.close();
      }
    });
  });
}

const CHILD = join(scratch, 'child.mjs');
writeFileSync(
  CHILD,
  `import { openStore } from ${JSON.stringify(OPEN_STORE)};
const [url, mode, tag] = process.argv.slice(2);
const say = (line) => process.stdout.write(line + '\\n');
const fingerprint = { cpuModel: 'Child CPU', cores: 2 };
const base = { role: 'nightly', fingerprint, harness: 'child', warnings: [], hints: {}, repo: 'example-org/fastjson', branch: 'main' };
if (mode === 'huge') {
  const store = await openStore(url, { cwd: process.cwd(), env: {}, onSamples: (written) => say('written ' + written) });
  const values = Array.from({ length: 2_000_000 }, (_, i) => 1000 + (i % 997));
  say('start');
  await store.ingestRun({ ...base, sha: 'f'.repeat(40), time: '2024-04-01T00:00:00Z', measurements: [{ benchmark: 'Huge', metric: 'time', unit: 'ns', better: 'lower', values }] });
  say('committed');
  await store.close();
} else {
  const store = await openStore(url, { cwd: process.cwd(), env: {} });
  // Start writing only when the parent says so, which it does once every writer is ready.
  say('ready');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  for (let i = 0; i < 50; i++) {
    const time = new Date(Date.UTC(2024, 0, 1, 0, i)).toISOString();
    say('id ' + await store.ingestRun({ ...base, sha: tag.padEnd(40, '0'), time, measurements: [{ benchmark: 'B' + tag, metric: 'time', unit: 'ns', better: 'lower', values: [i, i + 1, i + 2] }] }));
  }
  // Both writers store the same run and the same fingerprint, and each claims its own state key.
  say('id ' + await store.ingestRun({ ...base, fingerprint: { cpuModel: 'Shared' }, sha: 'e'.repeat(40), time: '2024-02-01T00:00:00Z', measurements: [{ benchmark: 'Shared', metric: 'time', unit: 'ns', better: 'lower', values: [1, 2, 3] }] }));
  if ((await store.compareAndSetState('writer/' + tag, null, { done: true })) === null) throw new Error('state write lost');
  await store.close();
}
`,
);

interface Child {
  waitFor(pattern: RegExp, accept?: (m: RegExpMatchArray) => boolean): Promise<boolean>;
  kill(): void;
  go(): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  lines(): string[];
  output(): string;
}

async function goTogether(children: Child[]): Promise<void> {
  const ready = await Promise.all(children.map((c) => c.waitFor(/^ready$/)));
  // A writer that failed leaves the others waiting for "go" on stdin forever, and with them
  // this test file: end them all before failing.
  if (ready.some((ok) => !ok)) for (const c of children) c.kill();
  ready.forEach((ok, i) => assert.ok(ok, `writer ${i + 1} did not get ready: ${children[i].output()}`));
  for (const c of children) c.go();
}

function startChild(url: string, mode: string, tag = ''): Child {
  const child = spawn(process.execPath, [CHILD, url, mode, tag], { cwd: scratch, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { pattern: RegExp; accept: (m: RegExpMatchArray) => boolean; resolve: (ok: boolean) => void }[] = [];
  const check = (): void => {
    for (const line of stdout.split('\n')) {
      for (const w of [...waiters]) {
        const m = w.pattern.exec(line);
        if (m && w.accept(m)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(true);
        }
      }
    }
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    check();
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.resolve(false);
      resolve({ code, signal });
    }),
  );
  return {
    waitFor: (pattern, accept = () => true) =>
      new Promise((resolve) => {
        waiters.push({ pattern, accept, resolve });
        check();
      }),
    kill: () => child.kill('SIGKILL'),
    go: () => child.stdin.end('go\n'),
    exited,
    lines: () => stdout.split('\n').filter((l) => l !== ''),
    output: () => `${stdout}\n${stderr}`.trim(),
  };
}

storeContract('sqlite', () => async () => `sqlite:${join(scratch, fresh('db-'), 'benchbot.db')}`);

const noPostgres = postgresUnavailable();
if (noPostgres) console.log(`# skipping the PostgreSQL store tests: ${noPostgres}`);
let server: PostgresServer | undefined;
if (!noPostgres) {
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());
}
storeContract('postgres', () => async () => server!.createDatabase(fresh('db_')), noPostgres);

describe('postgres adapter', { skip: noPostgres }, () => {
  test('a database that does not exist fails naming it and the fix', async () => {
    const url = server!.url.replace(/\/[^/]+$/, '/no_such_db');
    await assert.rejects(open(url), (e: unknown) => e instanceof StoreError && /database "no_such_db" does not exist/.test(e.message) && /createdb/.test(e.message));
  });

  test('a measurement insert the server refuses (not waited for during the stream) fails the import with its own error, and nothing is stored', async () => {
    const url = server!.createDatabase(fresh('db_'));
    const store = await open(url);
    try {
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.benchmark = 'BM_Refused' THEN RAISE EXCEPTION 'measurement refused by the test trigger'; END IF; RETURN NEW; END $$;
          CREATE TRIGGER refuse BEFORE INSERT ON measurements FOR EACH ROW EXECUTE FUNCTION refuse()`);
      } finally {
        await admin.end();
      }
      const runs = [1, 2, 3].map((i) => run({ sha: String(i).repeat(40), time: `2024-03-0${i}T02:00:00Z`, measurements: [{ benchmark: i === 2 ? 'BM_Refused' : 'BM_Fine', metric: 'time', unit: 'ns', better: 'lower', values: [1, 2, 3] }] }));
      await assert.rejects(store.ingestStream(runs), (e: unknown) => e instanceof StoreError && /measurement refused by the test trigger/.test(e.message) && !/aborted/.test(e.message));
      assert.deepEqual(await store.counts(), { runs: 0, fingerprints: 0, measurements: 0, samples: 0, state: 0 });
    } finally {
      await store.close();
    }
  });
});
