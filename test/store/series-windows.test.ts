// History at scale (issue 15): windowed reads per series, streamed ingest in
// one transaction, packed samples, and the migration of a store written
// before them. Both adapters, against a real SQLite file and a real
// PostgreSQL server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { FormatError } from '../../src/formats/format-error.ts';
import { importNdjson, splitLines } from '../../src/store/import-ndjson.ts';
import { MIGRATIONS } from '../../src/store/migrations.ts';
import { openStore } from '../../src/store/open-store.ts';
import { machineKey } from '../../src/model/fingerprint.ts';
import { PACK_LIMIT } from '../../src/store/sql-ingest.ts';
import type { IngestRun, SeriesHistory, SeriesWindow, Store } from '../../src/store/store.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-windows-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const FP = { cpuModel: 'Window CPU', cores: 4, hostName: 'bench-1' };
const day = (i: number) => new Date(Date.UTC(2025, 0, 1, 3) + i * 86_400_000).toISOString();

function night(i: number, overrides: Partial<IngestRun> = {}): IngestRun {
  return {
    sha: i.toString(16).padStart(40, '0'), role: 'nightly', fingerprint: { ...FP, loadAverage: i / 100 }, time: day(i), harness: 'google-benchmark',
    measurements: [
      { benchmark: 'BM_A', metric: 'real_time', unit: 'ns', better: 'lower', values: [100 + i, 101 + i, 102 + i] },
      { benchmark: 'BM_B', metric: 'real_time', unit: 'ns', better: 'lower', values: [200 + i] },
    ],
    warnings: [], hints: {}, repo: 'o/r', branch: 'main', key: `night-${i}`, ...overrides,
  };
}

async function collect(iterable: AsyncIterable<SeriesWindow[]>): Promise<SeriesWindow[][]> {
  const out: SeriesWindow[][] = [];
  for await (const batch of iterable) out.push(batch);
  return out;
}

function windowTests(name: string, url: () => string): void {
  describe(`series windows: ${name}`, () => {
    let store: Store;
    before(async () => {
      store = await openStore(url(), { cwd: scratch, env: {} });
      await store.ingestStream((function* () {
        for (let i = 0; i < 12; i++) yield night(i);
        // Another branch and a PR's base run: not in a main-branch nightly window.
        yield night(12, { branch: 'dev', key: 'dev-12' });
        yield night(13, { role: 'base', branch: undefined, key: 'base-13' });
      })());
    });
    after(() => store?.close());

    test('each series gives its newest nights oldest first, samples only for the newest, and a summary of the rest', async () => {
      const batches = await collect(store.seriesWindows({ role: 'nightly', repo: 'o/r', branch: 'main', nights: 5, valuesNights: 2, fingerprints: true, batch: 1 }));
      assert.equal(batches.length, 2, 'one series per batch');
      const [a, b] = batches.map((x) => x[0]);
      assert.deepEqual([a.benchmark, b.benchmark], ['BM_A', 'BM_B'], 'in the order the series were first stored');
      assert.equal(a.points, 12);
      assert.equal(a.firstTime, day(0));
      assert.equal(a.machineKey, machineKey(FP));
      assert.deepEqual(a.window.map((p) => p.time), [7, 8, 9, 10, 11].map(day));
      assert.deepEqual(a.window.map((p) => p.median), [108, 109, 110, 111, 112]);
      assert.deepEqual(a.window.map((p) => p.values), [undefined, undefined, undefined, [110, 111, 112], [111, 112, 113]]);
      assert.deepEqual(a.window.map((p) => p.runId), [7, 8, 9, 10, 11].map((i) => `night-${i}`));
      assert.equal(a.window[4].fingerprint?.loadAverage, 0.11);
      assert.deepEqual(new Set(a.window.map((p) => p.harness)), new Set(['google-benchmark']), 'each point has its run\'s harness (the scan\'s default work threshold follows it)');
      assert.deepEqual(b.window.at(-1)?.values, [211]);
    });

    test('without nights every point comes back; filters select series like series() does', async () => {
      const [[a, b]] = await collect(store.seriesWindows({ role: 'nightly', branch: 'main' }));
      assert.equal(a.window.length, 12);
      assert.equal(b.window.length, 12);
      assert.ok(a.window.every((p) => p.values === undefined && p.fingerprint === undefined));
      assert.deepEqual((await collect(store.seriesWindows({ role: 'nightly', branch: 'dev' })))[0].map((w) => [w.benchmark, w.window.length, w.branch]), [['BM_A', 1, 'dev'], ['BM_B', 1, 'dev']]);
      assert.deepEqual((await collect(store.seriesWindows({ role: 'base', benchmark: 'BM_B' })))[0].map((w) => [w.benchmark, w.branch, w.repo]), [['BM_B', undefined, 'o/r']]);
      assert.deepEqual(await collect(store.seriesWindows({ role: 'nightly', branch: 'nope' })), []);
      const since = await store.series({ role: 'nightly', branch: 'main', benchmark: 'BM_A', since: day(10) });
      assert.deepEqual(since.map((p) => p.time), [day(10), day(11)]);
    });

    test('seriesHistories gives every night in columns: runs shared, medians with their CI, samples only for the newest', async () => {
      const batches: SeriesHistory[][] = [];
      for await (const batch of store.seriesHistories({ role: 'nightly', repo: 'o/r', branch: 'main', valuesNights: 2 })) batches.push(batch);
      assert.equal(batches.length, 1);
      const [a, b] = batches[0];
      assert.deepEqual([a.benchmark, a.unit, a.better, a.branch, a.machineKey], ['BM_A', 'ns', 'lower', 'main', machineKey(FP)]);
      assert.deepEqual(a.runs.map((r) => r.time), Array.from({ length: 12 }, (_, i) => day(i)));
      assert.equal(a.runs[3], b.runs[3], 'one RunRef object per run');
      assert.equal(a.runs[11].fingerprint.loadAverage, 0.11);
      assert.deepEqual([...a.median], Array.from({ length: 12 }, (_, i) => 101 + i));
      assert.deepEqual([...a.n], new Array(12).fill(3));
      // Three samples give the median's CI from the smallest to the largest (coverage 75%, clamped).
      assert.deepEqual([a.lo[0], a.hi[0]], [100, 102]);
      assert.deepEqual(a.values.slice(9), [undefined, [110, 111, 112], [111, 112, 113]]);
      assert.deepEqual([...b.median].slice(-2), [210, 211]);
    });

    test('bad window sizes are refused with what to give', async () => {
      await assert.rejects(collect(store.seriesWindows({ role: 'nightly', nights: 0 })), /nights must be a positive whole number, got 0/);
      await assert.rejects(collect(store.seriesWindows({ role: 'nightly', batch: 1.5 })), /batch must be a positive whole number/);
    });

    test('a measurement bigger than PACK_LIMIT keeps its samples as rows and reads back whole', async () => {
      const values = Array.from({ length: PACK_LIMIT + 3 }, (_, i) => i + 0.5);
      const id = await store.ingestRun(night(30, { key: 'big', measurements: [{ benchmark: 'BM_Big', metric: 'real_time', unit: 'ns', better: 'lower', values }] }));
      assert.deepEqual((await store.getRun(id))?.measurements[0].values, values);
      const [[w]] = await collect(store.seriesWindows({ role: 'nightly', benchmark: 'BM_Big', valuesNights: 1 }));
      assert.deepEqual(w.window[0].values, values);
    });

    test('a source that fails midway stores nothing, and its own error reaches the caller', async () => {
      const before = await store.counts();
      const lines = (async function* () {
        yield '{"format":"benchbot-history","version":1}';
        yield JSON.stringify({ type: 'run', id: 'stream-1', ...night(40, { key: undefined }) });
        yield '{"type":"run", broken';
      })();
      await assert.rejects(importNdjson(store, lines, { file: 'h.ndjson' }), (e: unknown) => e instanceof FormatError && e.message.startsWith('h.ndjson:3: invalid JSON'));
      assert.deepEqual(await store.counts(), before);
      assert.equal(await store.getRun('stream-1'), undefined);
    });
  });
}

windowTests('sqlite', () => `sqlite:${join(scratch, 'windows.db')}`);

const noPostgres = postgresUnavailable();
if (noPostgres) console.log(`# skipping the PostgreSQL window tests: ${noPostgres}`);
let server: PostgresServer | undefined;
describe('postgres', { skip: noPostgres }, () => {
  before(async () => {
    server = await startPostgres();
  });
  after(() => server?.stop());
  windowTests('postgres', () => (server as PostgresServer).createDatabase('windows'));
  test('a store written before migration 2 is migrated: series named, old samples still read', async () => {
    const url = (server as PostgresServer).createDatabase('legacy');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); ${MIGRATIONS[0].sql.postgres}`);
      await client.query("INSERT INTO schema_migrations VALUES (1, 'v1', '2025-01-01')");
      await client.query(LEGACY_ROWS);
    } finally {
      await client.end();
    }
    await checkLegacy(url);
  });
});

/** LEGACY_ROWS: two nightly runs of one benchmark as a benchbot of schema 1 stored them, samples one row each. */
const LEGACY_ROWS = `
  INSERT INTO fingerprints (key, machine_key, body) VALUES ('fp', '${machineKey(FP)}', '${JSON.stringify(FP)}');
  INSERT INTO runs (key, repo, branch, sha, ref, role, time, time_ms, harness, fingerprint_id, warnings, hints) VALUES
    ('old-1', 'o/r', 'main', '${'1'.repeat(40)}', NULL, 'nightly', '${day(1)}', ${Date.parse(day(1))}, 'go', 1, '[]', '{}'),
    ('old-2', 'o/r', 'main', '${'2'.repeat(40)}', NULL, 'nightly', '${day(2)}', ${Date.parse(day(2))}, 'go', 1, '[]', '{}');
  INSERT INTO measurements (run_id, ordinal, benchmark, metric, unit, better, n, median) VALUES (1, 0, 'BM_Old', 'time', 'ns', 'lower', 2, 5.5), (2, 0, 'BM_Old', 'time', 'ns', 'lower', 2, 7.5);
  INSERT INTO samples (measurement_id, idx, value) VALUES (1, 0, 5), (1, 1, 6), (2, 0, 7), (2, 1, 8);`;

async function checkLegacy(url: string): Promise<void> {
  const store = await openStore(url, { cwd: scratch, env: {} });
  try {
    const [[w]] = await collect(store.seriesWindows({ role: 'nightly', branch: 'main', valuesNights: 5 }));
    assert.deepEqual([w.benchmark, w.points, w.firstTime], ['BM_Old', 2, day(1)]);
    assert.deepEqual(w.window.map((p) => p.values), [[5, 6], [7, 8]]);
    assert.deepEqual((await store.getRun('old-2'))?.measurements[0].values, [7, 8]);
    for await (const [h] of store.seriesHistories({ role: 'nightly', valuesNights: 1 })) {
      assert.deepEqual([[...h.median], [...h.lo].map(String), h.values], [[5.5, 7.5], ['NaN', 'NaN'], [undefined, [7, 8]]], 'no CI stored before migration 2; old samples still read');
    }
    assert.equal((await store.counts()).samples, 4);
    // New nights join the migrated series.
    await store.ingestRun(night(3, { measurements: [{ benchmark: 'BM_Old', metric: 'time', unit: 'ns', better: 'lower', values: [9, 10] }], fingerprint: FP }));
    const [[again]] = await collect(store.seriesWindows({ role: 'nightly', branch: 'main', valuesNights: 5 }));
    assert.deepEqual(again.window.map((p) => p.values), [[5, 6], [7, 8], [9, 10]]);
    assert.equal((await store.counts()).samples, 6);
  } finally {
    await store.close();
  }
}

test('sqlite: a store written before migration 2 is migrated: series named, old samples still read', async () => {
  const path = join(scratch, 'legacy.db');
  const db = new DatabaseSync(path);
  db.exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL); ${MIGRATIONS[0].sql.sqlite}`);
  db.exec("INSERT INTO schema_migrations VALUES (1, 'v1', '2025-01-01')");
  db.exec(LEGACY_ROWS);
  db.close();
  await checkLegacy(`sqlite:${path}`);
});

test('splitLines: lines across chunks and split UTF-8 come out whole; an endless line is an error naming it', async () => {
  const bytes = Buffer.from('{"a":"é"}\nsecond line\r\nlast');
  const chunks = [bytes.subarray(0, 8), bytes.subarray(8, 15), bytes.subarray(15)];
  const lines: string[] = [];
  for await (const line of splitLines((async function* () { yield* chunks; })(), 'h.ndjson')) lines.push(line);
  assert.deepEqual(lines, ['{"a":"é"}', 'second line\r', 'last']);
  const endless = (async function* () {
    yield 'ok\n';
    for (;;) yield 'x'.repeat(1024);
  })();
  await assert.rejects(async () => {
    for await (const _ of splitLines(endless, 'h.ndjson', 64 * 1024)) void _;
  }, (e: unknown) => e instanceof FormatError && e.message === 'h.ndjson:2: line is longer than 65536 bytes; a history export holds one run per line');
});
