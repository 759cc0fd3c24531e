import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRunArgs } from '../../src/cli/run-command.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { makeMergeRepo } from '../bisect-edges/merge-repo.ts';

// One rule for paths (README, `benchbot help`): every relative path a user
// types, and the default store, is relative to the directory the command is
// typed in, for every command. `run` used to resolve --store and its default
// against --repo, so the demo's `--store .benchbot-demo/benchbot.db` landed
// in .benchbot-demo/repo/.benchbot-demo/benchbot.db and an `export` after
// `run --repo ../x` exported an empty store.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  const env = { ...process.env, BENCHBOT_LOCK: join(cwd, 'machine.lock'), GITHUB_ACTIONS: '', BENCHBOT_DATABASE_URL: '' };
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** workspace puts a fixture repository at WORK/projects/repo and returns both. */
function workspace() {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-paths-'));
  const fixture = makeFixtureRepo({ headFactor: 1.1 });
  mkdirSync(join(work, 'projects'));
  const repo = join(work, 'projects', 'repo');
  renameSync(fixture.dir, repo);
  return { work, repo };
}

const run = ['run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--max-load', '1000', '--max-runs', '10'];

test('run --repo DIR --store REL puts the store at REL under the current directory, not under DIR', () => {
  const { work, repo } = workspace();
  const r = benchbot(work, ...run, '--repo', 'projects/repo', '--store', 'demo/benchbot.db', '--output', 'json');
  assert.equal(r.status, 1, r.stderr);
  assert.ok(existsSync(join(work, 'demo/benchbot.db')), 'the store is where the user said, relative to where they said it');
  assert.ok(!existsSync(join(repo, 'demo/benchbot.db')), 'not under --repo');
  // What the demo did: the same directory named in --repo and in --store.
  const again = benchbot(work, ...run, '--repo', 'projects/repo', '--store', 'projects/history.db', '--output', 'json');
  assert.equal(again.status, 1, again.stderr);
  assert.ok(existsSync(join(work, 'projects/history.db')));
  assert.ok(!existsSync(join(repo, 'projects/history.db')));
});

test('run --repo ../x then export from the same directory: both use ./.benchbot/benchbot.db, so the export has the runs', () => {
  const { work, repo } = workspace();
  const here = join(work, 'here');
  mkdirSync(here);
  const r = benchbot(here, ...run, '--repo', relative(here, repo));
  assert.equal(r.status, 1, r.stderr);
  assert.ok(existsSync(join(here, '.benchbot/benchbot.db')), 'the default store is in the current directory');
  assert.ok(!existsSync(join(repo, '.benchbot/benchbot.db')), 'and not in the repository');
  const exported = benchbot(here, 'export', '--output', 'history.ndjson');
  assert.equal(exported.status, 0, exported.stderr);
  assert.match(exported.stdout, /exported 2 runs to history\.ndjson/);
  assert.ok(existsSync(join(here, 'history.ndjson')), 'export --output is relative to the current directory');
  const scan = benchbot(here, 'scan', '--store', '.benchbot/benchbot.db', '--output', 'json');
  assert.equal(scan.status, 0, scan.stderr);
});

test('parseRunArgs: relative --store and BENCHBOT_DATABASE_URL paths resolve against the current directory; URLs stay', () => {
  const base = ['--base', 'a', '--head', 'b', '--bench', 'x', '--repo', 'elsewhere/repo'];
  assert.equal(parseRunArgs([...base, '--store', 'h.db'], '/work/here', {}).store, '/work/here/h.db');
  assert.equal(parseRunArgs([...base, '--store', 'sqlite:h.db'], '/work/here', {}).store, '/work/here/h.db');
  assert.equal(parseRunArgs(base, '/work/here', {}).store, '/work/here/.benchbot/benchbot.db');
  assert.equal(parseRunArgs(base, '/work/here', { BENCHBOT_DATABASE_URL: 'db/h.db' }).store, '/work/here/db/h.db');
  assert.equal(parseRunArgs([...base, '--store', 'postgres://u@db/bench'], '/work/here', {}).store, 'postgres://u@db/bench');
  assert.equal(parseRunArgs(base, '/work/here', { BENCHBOT_DATABASE_URL: 'postgres://u:secret@db/bench' }).store, undefined, 'a URL from the environment is read by the store itself');
  assert.equal(parseRunArgs(base, '/work/here', {}).repo, '/work/here/elsewhere/repo');
});

test('benchbot clean removes the worktrees run left (git worktree list is clean again); the store stays', () => {
  const { work, repo } = workspace();
  const r = benchbot(work, ...run, '--repo', 'projects/repo', '--build', './build.sh');
  assert.equal(r.status, 1, r.stderr);
  const listed = () => spawnSync('git', ['-C', repo, 'worktree', 'list', '--porcelain'], { encoding: 'utf8' }).stdout.split('\n').filter((l) => l.startsWith('worktree '));
  assert.equal(listed().length, 3, 'the repository and a worktree per side');
  const dry = benchbot(work, 'clean', '--repo', 'projects/repo', '--dry-run');
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /2 worktree\(s\) would be removed/);
  assert.equal(listed().length, 3);
  const cleaned = benchbot(work, 'clean', '--repo', 'projects/repo');
  assert.equal(cleaned.status, 0, cleaned.stderr);
  assert.match(cleaned.stdout, /2 worktree\(s\) removed/);
  assert.equal(listed().length, 1);
  assert.ok(!existsSync(join(repo, '.benchbot/worktrees')));
  assert.ok(existsSync(join(work, '.benchbot/benchbot.db')), 'the history is not touched');
  assert.match(benchbot(work, 'clean', '--repo', 'projects/repo').stdout, /0 worktree\(s\) removed/);
  assert.match(benchbot(work, 'clean', '--repo', 'nowhere').stderr, /--repo .*nowhere: no such directory/);
});

test('bisect --repo DIR --store REL reads and keeps its store at REL under the current directory', () => {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-paths-'));
  const merge = makeMergeRepo({ merges: 2, culprit: 2 });
  mkdirSync(join(work, 'projects'));
  const repo = join(work, 'projects', 'repo');
  renameSync(merge.dir, repo);
  const r = benchbot(work, 'bisect', '--repo', 'projects/repo', '--good', merge.good, '--bad', merge.bad, '--bench', './bench.sh', '--build', './build.sh', '--rounds', '4', '--store', 'refs/history.db', '--max-load', '1000', '--output', 'json');
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(work, 'refs/history.db')), 'the store is relative to the current directory');
  assert.ok(!existsSync(join(repo, 'refs/history.db')), 'not to --repo');
  // A line per session in a plain log, none per round.
  assert.match(r.stderr, /^probe [0-9a-f]{12}: (good|bad|unknown)/m);
  assert.doesNotMatch(r.stderr, /^round \d+ of/m);
});

test('every measuring command takes the machine flags, with the same defaults in its --help', () => {
  const lines = (command: string) => benchbot(tmpdir(), command, '--help').stdout;
  for (const command of ['run', 'bisect', 'bisect-oracle']) {
    const help = lines(command);
    for (const flag of ['--max-load L', '--load-wait S', '--lock-timeout S']) assert.ok(help.includes(flag), `${command} --help lacks ${flag}`);
    assert.match(help, /--load-wait S .*\(default 300\)/);
    assert.match(help, /--lock-timeout S .*\(default 3600\)/);
  }
  assert.match(lines('calibrate'), /--max-load, --load-wait, --lock-timeout/);
});
