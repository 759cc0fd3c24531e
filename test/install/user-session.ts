// A new user's first session with an installed benchbot, outside this
// checkout: the commands of the README's Install section, run in an empty
// directory through whatever `benchbot` the install put there (the npm
// package's command on a system Node, or the standalone executable), each
// checked against what this checkout's sources say for the same input.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FIXTURES } from '../support/fixtures.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Installed runs the installed benchbot with arguments in a directory, with the given environment. */
export type Installed = (cwd: string, args: string[], input?: string) => SpawnSyncReturns<string>;

/** fromCheckout runs this checkout's CLI (the TypeScript sources) the same way, as the reference. */
function fromCheckout(cwd: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [join(ROOT, 'bin/benchbot.js'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '' } });
}

/** progress says a step is done, live on stderr (the test runner shows it as it comes) and in the test's report. */
export function progress(t: TestContext, label: string): (line: string) => void {
  const start = Date.now();
  return (line) => {
    t.diagnostic(line);
    process.stderr.write(`# ${label} ${((Date.now() - start) / 1000).toFixed(0)} s: ${line}\n`);
  };
}

function ok(run: SpawnSyncReturns<string>, what: string, status = 0): void {
  assert.equal(run.error, undefined, `${what}: ${run.error?.message}`);
  assert.equal(run.status, status, `${what} exited ${run.status} (signal ${run.signal}), not ${status}:\n${run.stdout}\n${run.stderr}`);
}

/**
 * userSession runs --help, parse, compare, run on a small generated
 * repository, import + scan, dashboard and serve --help through `benchbot`,
 * each in a fresh empty directory, and checks what each printed or wrote.
 */
export function userSession(say: (line: string) => void, benchbot: Installed, builtDashboardJs: string): void {
  const empty = () => mkdtempSync(join(tmpdir(), 'benchbot-user-'));

  const help = benchbot(empty(), ['--help']);
  ok(help, 'benchbot --help');
  assert.match(help.stdout, /^usage: benchbot <command>/);
  say('--help: ok');

  // parse and compare read files the user has; the checkout's sources read them alike.
  const work = empty();
  for (const file of ['go/cpu.txt', 'google-benchmark/stumpless-like-base.json', 'google-benchmark/stumpless-like-head.json']) copyFileSync(join(FIXTURES, file), join(work, file.replace('/', '-')));
  const parse = benchbot(work, ['parse', 'go-cpu.txt']);
  ok(parse, 'benchbot parse');
  assert.deepEqual(JSON.parse(parse.stdout), JSON.parse(fromCheckout(work, ['parse', 'go-cpu.txt']).stdout));
  assert.ok(JSON.parse(parse.stdout).measurements.length > 0, 'parse read measurements');
  const compareArgs = ['compare', 'google-benchmark-stumpless-like-base.json', 'google-benchmark-stumpless-like-head.json', '--output', 'json'];
  const compare = benchbot(work, compareArgs);
  const reference = fromCheckout(work, compareArgs);
  ok(compare, 'benchbot compare', reference.status ?? -1);
  assert.deepEqual(JSON.parse(compare.stdout), JSON.parse(reference.stdout));
  assert.ok(JSON.parse(compare.stdout).comparisons.some((c: { verdict: string }) => c.verdict === 'regressed'), 'compare found the fixture\'s regressions');
  say('parse, compare: ok (same output as the sources)');

  // run: a real A/B in a repository of the user's own, which gets a 10% slower `parse` at head.
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const run = benchbot(repo.dir, ['run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--max-load', '1000', '--max-runs', '15', '--output', 'json']);
  ok(run, 'benchbot run', 1);
  const report = JSON.parse(run.stdout);
  assert.equal(report.base_sha, repo.baseSha);
  assert.equal(report.head_sha, repo.headSha);
  assert.equal(report.summary.regressed, 1, 'run finds the 10% regression of parse');
  assert.ok(existsSync(join(repo.dir, '.benchbot/benchbot.db')), 'run stored both sides');
  say(`run: ok (${report.rounds_per_side} rounds per side, 1 regression)`);

  // import (through stdin, to see it is passed on) + scan + dashboard on a nightly history.
  const history = empty();
  const data = readFileSync(join(FIXTURES, 'github-action-benchmark/data-handwritten.js'), 'utf8');
  ok(benchbot(history, ['import', '-', '--from', 'github-action-benchmark', '--store', 'h.db'], data), 'benchbot import -');
  const scan = benchbot(history, ['scan', '--store', 'h.db', '--output', 'json']);
  ok(scan, 'benchbot scan');
  const scanned = JSON.parse(scan.stdout);
  assert.ok(scanned.series > 0, 'scan read the imported nightly series');
  ok(benchbot(history, ['dashboard', '--out', 'site', '--store', 'h.db']), 'benchbot dashboard');
  const overview = JSON.parse(readFileSync(join(history, 'site/data/overview.json'), 'utf8'));
  assert.equal(overview.rows.length, scanned.series, 'the dashboard shows every series the scan read');
  assert.equal(readFileSync(join(history, 'site/dashboard.js'), 'utf8'), builtDashboardJs, 'the dashboard ships the built pages');
  assert.match(readFileSync(join(history, 'site/index.html'), 'utf8'), /dashboard\.js/);
  say(`import, scan, dashboard: ok (${scanned.series} series)`);

  const serve = benchbot(empty(), ['serve', '--help']);
  ok(serve, 'benchbot serve --help');
  assert.match(serve.stdout, /^usage: benchbot serve/);
  assert.match(serve.stdout, /WEBHOOK_SECRET/);

  // Exit codes come through: an input error is 2.
  const missing = benchbot(empty(), ['compare', 'nope.json', 'nada.json']);
  ok(missing, 'benchbot compare of missing files', 2);
  assert.match(missing.stderr, /nope\.json/);
  say('serve --help, exit code 2: ok');
}
