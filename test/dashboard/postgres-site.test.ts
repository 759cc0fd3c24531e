// The site from a PostgreSQL store is the site from SQLite, byte for byte:
// the same generated fixture history seeded into both, every file compared.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { writeSite, type SiteSettings } from '../../src/dashboard/write-site.ts';
import { githubRepoUrl } from '../../src/dashboard/read-history.ts';
import { openStore } from '../../src/store/open-store.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { seedFixture } from './fixture-store.ts';

const skip = postgresUnavailable();
const dir = mkdtempSync(join(tmpdir(), 'benchbot-dashboard-pg-'));
let server: PostgresServer | undefined;
after(() => {
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** files lists every file under `root` (relative paths, sorted). */
function files(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as { isFile(): boolean; parentPath: string; name: string }[])
    .filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(root.length + 1)).sort();
}

test('the dashboard written from PostgreSQL equals the one written from SQLite, file for file', { skip }, async () => {
  server = await startPostgres();
  const settings: SiteSettings = { title: 'benchbot: example/suite', generated: '2025-04-02T00:00:00.000Z', samplesNights: 10, repoUrl: githubRepoUrl('https://github.com') };
  const assets = { js: '// js', css: '/* css */' };
  const sites: string[] = [];
  for (const url of [join(dir, 'history.db'), server.url]) {
    const store = await openStore(url, { cwd: dir, env: {} });
    try {
      await seedFixture(store);
      const out = join(dir, `site-${sites.length}`);
      const result = await writeSite(store, out, settings, assets);
      assert.equal(result.series, 304);
      sites.push(out);
    } finally {
      await store.close();
    }
  }
  const [sqlite, postgres] = sites.map(files);
  assert.equal(sqlite.length, 304 + 6);
  assert.deepEqual(postgres, sqlite);
  for (const f of sqlite) assert.ok(readFileSync(join(sites[1], f)).equals(readFileSync(join(sites[0], f))), `${f} differs between PostgreSQL and SQLite`);
});
