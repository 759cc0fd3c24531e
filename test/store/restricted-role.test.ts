// The PostgreSQL setup docs/security.md recommends for bench machines: the
// owner role migrates once and records acks; the role the bench jobs use may
// read and insert history and read the state (acks), but never update or
// delete a run or write an ack. benchbot's bench jobs must work under that
// role, and the role must not be able to rewrite what is stored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open-store.ts';
import { StoreError, type IngestRun } from '../../src/store/store.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';

/** GRANTS is the role docs/security.md gives the bench jobs, word for word. */
const GRANTS = `
  REVOKE CREATE ON SCHEMA public FROM PUBLIC;
  GRANT USAGE ON SCHEMA public TO benchbot_bench;
  GRANT SELECT ON schema_migrations TO benchbot_bench;
  GRANT SELECT, INSERT ON fingerprints, runs, series, measurements, samples TO benchbot_bench;
  GRANT SELECT ON state TO benchbot_bench;
  GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO benchbot_bench;`;

const run: IngestRun = {
  sha: 'c'.repeat(40),
  ref: 'refs/heads/main',
  role: 'nightly',
  fingerprint: { cpuModel: 'Bench CPU', cores: 8 },
  time: '2024-05-01T02:00:00Z',
  harness: 'google-benchmark',
  measurements: [{ benchmark: 'BM_Parse', metric: 'real_time', unit: 'ns', better: 'lower', values: [101, 99, 100] }],
  warnings: [],
  hints: {},
  repo: 'bench-org/bench-target',
  branch: 'main',
};

const noPostgres = postgresUnavailable();
if (noPostgres) console.log(`# skipping the PostgreSQL role tests: ${noPostgres}`);

describe('a PostgreSQL role limited to reading and inserting', { skip: noPostgres }, () => {
  let server: PostgresServer;
  let ownerUrl: string;
  let benchUrl: string;
  before(async () => {
    server = await startPostgres();
    ownerUrl = server.createDatabase('history');
    const admin = new pg.Client({ connectionString: ownerUrl });
    await admin.connect();
    try {
      await admin.query("CREATE ROLE benchbot_bench LOGIN PASSWORD 'bench-pw'");
    } finally {
      await admin.end();
    }
    const bench = new URL(ownerUrl);
    bench.username = 'benchbot_bench';
    bench.password = 'bench-pw';
    benchUrl = bench.toString();
  });
  after(() => server?.stop());

  test('before the owner migrates, the restricted role is told how to fix it', async () => {
    const admin = new pg.Client({ connectionString: ownerUrl });
    await admin.connect();
    try {
      await admin.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA public TO benchbot_bench');
    } finally {
      await admin.end();
    }
    await assert.rejects(openStore(benchUrl, { cwd: '/', env: {} }), (e: unknown) => e instanceof StoreError && /permission denied for schema public/.test(e.message) && /run one benchbot command with the owner role first/.test(e.message) && !e.message.includes('bench-pw'));
  });

  test('after the owner migrates, benchbot works under the role, and the role cannot rewrite history', async () => {
    const owner = await openStore(ownerUrl, { cwd: '/', env: {} });
    await owner.putState('ack:bench-org/bench-target:BM_Parse', { reason: 'expected' });
    await owner.close();
    const admin = new pg.Client({ connectionString: ownerUrl });
    await admin.connect();
    try {
      await admin.query(GRANTS);
    } finally {
      await admin.end();
    }

    const store = await openStore(benchUrl, { cwd: '/', env: {} });
    try {
      const id = await store.ingestRun(run);
      assert.equal((await store.getRun(id))?.measurements[0].values.length, 3);
      assert.equal(await store.ingestRun(run), id, 'the same run again is the same row, not an overwrite');
      assert.deepEqual((await store.getState('ack:bench-org/bench-target:BM_Parse'))?.value, { reason: 'expected' }, 'the nightly scan reads acks');
      await assert.rejects(store.putState('ack:bench-org/bench-target:BM_Other', { reason: 'silence it' }), (e: unknown) => e instanceof StoreError && /permission denied for table state/.test(e.message));
      await assert.rejects(store.deleteState('ack:bench-org/bench-target:BM_Parse'), /permission denied for table state/);
    } finally {
      await store.close();
    }

    const bench = new pg.Client({ connectionString: benchUrl });
    await bench.connect();
    try {
      for (const sql of ['DELETE FROM runs', 'UPDATE samples SET value = 1', "UPDATE measurements SET vals = ''", 'DELETE FROM series', 'DELETE FROM measurements', 'TRUNCATE runs CASCADE', 'DROP TABLE samples', 'CREATE TABLE evil (x int)', "UPDATE state SET value = '{}'"]) {
        await assert.rejects(bench.query(sql), (e: unknown) => (e as { code?: string }).code === '42501' || /must be owner/.test((e as Error).message), sql);
      }
      const { rows } = await bench.query('SELECT n, octet_length(vals) AS bytes FROM measurements');
      assert.deepEqual(rows, [{ n: 3, bytes: 24 }], 'history is intact: three samples packed');
    } finally {
      await bench.end();
    }
  });
});
