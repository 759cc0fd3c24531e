// `benchbot dashboard` as a user runs it: the files it writes, what it says,
// and the errors that name the flag to fix.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bundleDashboard } from '../../scripts/dashboard-bundle.ts';
import { main } from '../../src/cli/main.ts';
import type { OverviewJson } from '../../src/dashboard/site-model.ts';
import { openStore } from '../../src/store/open-store.ts';
import { seedFixture } from './fixture-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchbot-dashboard-cli-'));
const store = join(dir, 'history.db');
after(() => rmSync(dir, { recursive: true, force: true }));
before(async () => {
  // The command ships the pages' bundle from dist/, as the released CLI does.
  await bundleDashboard();
  const s = await openStore(store, { cwd: dir, env: {} });
  try {
    await seedFixture(s);
  } finally {
    await s.close();
  }
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, (t) => out.push(t) > 0, (t) => err.push(t) > 0);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('benchbot dashboard writes the site, and a second run removes the pages of series that are gone', async () => {
  const out = join(dir, 'site');
  mkdirSync(join(out, 'data', 'series'), { recursive: true });
  writeFileSync(join(out, 'data', 'series', '0123456789abcdef.json'), '{}');
  writeFileSync(join(out, 'CNAME'), 'bench.example.com');
  const r = await run('dashboard', '--store', store, '--out', out, '--repository', 'example/suite', '--branch', 'main', '--samples-nights', '5');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^wrote the dashboard of 304 series to .+ \(310 files, [\d.]+ MB, [\d.]+ s\)$/);
  for (const file of ['index.html', 'dashboard.js', 'dashboard.css', '.nojekyll', 'data/overview.json', 'data/runs.json']) assert.ok(existsSync(join(out, file)), file);
  assert.equal(readdirSync(join(out, 'data', 'series')).length, 304);
  assert.equal(existsSync(join(out, 'data', 'series', '0123456789abcdef.json')), false, 'a stale series page is removed');
  assert.equal(readFileSync(join(out, 'CNAME'), 'utf8'), 'bench.example.com', 'files that are not the dashboard\'s stay');
  const overview = JSON.parse(readFileSync(join(out, 'data', 'overview.json'), 'utf8')) as OverviewJson;
  assert.equal(overview.title, 'benchbot: example/suite');
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<title>benchbot: example\/suite<\/title>/);
  const page = JSON.parse(readFileSync(join(out, 'data', 'series', `${overview.rows[0][0]}.json`), 'utf8')) as { samples: { from: number; values: unknown[] } };
  assert.deepEqual([page.samples.from, page.samples.values.length], [85, 5], 'raw samples of the newest 5 nights only');
});

test('a title is HTML-escaped in the page, and an empty selection says why it is empty', async () => {
  const out = join(dir, 'empty');
  const r = await run('dashboard', '--store', store, '--out', out, '--branch', 'nope', '--title', '<script>alert(1)</script>');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^wrote an empty dashboard to .+: no nightly runs on branch nope in /);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.ok(!html.includes('<script>alert'), 'no markup from the title');
  assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
});

test('bad flags are usage errors that name the flag', async () => {
  const cases: [string[], RegExp][] = [
    [['dashboard', '--store', store], /--out DIR is required/],
    [['dashboard', '--store', store, '--out', dir, '--repo', 'example/suite'], /--repo is a directory in every benchbot command; dashboard takes the GitHub repository as --repository OWNER\/NAME/],
    [['dashboard', '--store', store, '--out', dir, '--samples-nights', 'many'], /--samples-nights many: give a whole number/],
    [['dashboard', '--store', store, '--out', dir, '--threshold', 'big'], /--threshold big is not a percentage/],
  ];
  for (const [args, message] of cases) {
    const r = await run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, message);
  }
});
