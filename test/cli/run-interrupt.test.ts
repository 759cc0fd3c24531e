// Ctrl-C during `benchbot run` (issue 21, part 6): the user is told what was
// measured and discarded, the machine lock is released, the benchmark that
// was running is stopped with benchbot, and the store is as it was. And a
// finished run leaves the user's repository clean in `git status`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

/** alive: the process exists and is not a zombie (an orphan waits for its new parent to reap it, which in containers can take a while). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0] !== 'Z';
  } catch {
    return false;
  }
}

test('SIGINT during run says what was measured and discarded, exits 130, removes the lock, stops the benchmark and stores nothing', async (t) => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-interrupt-'));
  const lock = join(scratch, 'machine.lock');
  const pids = join(scratch, 'bench.pids');
  const env = { ...process.env, BENCHBOT_LOCK: lock, GITHUB_ACTIONS: '', BENCH_SLEEP: '1', BENCHBOT_DATABASE_URL: '' };
  const child = spawn(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', `echo $$ >> ${pids}; exec ./bench.sh`, '--max-load', '1000', '--min-runs', '10', '--max-runs', '40'], { cwd: repo.dir, env });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  // Interrupt once the measuring has started and a few rounds (1 s each) are in.
  const started = Date.now();
  while (!/== measuring/.test(stderr)) {
    assert.ok(Date.now() - started < 60_000, `run did not start measuring within a minute:\n${stderr}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  await new Promise((done) => setTimeout(done, 3500));
  assert.ok(existsSync(lock), 'the run holds the machine lock while it measures');
  t.diagnostic(`interrupting after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, stderr);
  assert.match(stderr, /benchbot run: interrupted \(SIGINT\) during measuring: .* \(rounds: base \d+, head \d+/);
  assert.match(stderr, /What it measured is discarded: nothing of it is stored, the store is as it was\. The machine lock is released/);
  assert.ok(!existsSync(lock), 'the machine lock is removed');
  // The round that was running (its own process group, out of Ctrl-C's reach) ended with benchbot.
  const benchmarks = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
  assert.ok(benchmarks.length >= 2, `rounds started: ${benchmarks.length}`);
  await new Promise((done) => setTimeout(done, 200));
  assert.deepEqual(benchmarks.filter(alive), [], 'no benchmark process outlives benchbot');
  const store = await openStore(undefined, { cwd: repo.dir });
  try {
    assert.equal((await store.listRuns({})).length, 0, 'nothing of the interrupted run is stored');
  } finally {
    await store.close();
  }
});

test('Ctrl-C during the build (the terminal signals the whole process group) is reported as the interrupt, exit 130, lock removed', async () => {
  const repo = makeFixtureRepo();
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-interrupt-'));
  const lock = join(scratch, 'machine.lock');
  const env = { ...process.env, BENCHBOT_LOCK: lock, GITHUB_ACTIONS: '', BENCHBOT_DATABASE_URL: '' };
  // detached: benchbot leads its own process group, as a shell's foreground job does; the build is in it.
  const child = spawn(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', 'sleep 30', '--max-load', '1000'], { cwd: repo.dir, env, detached: true });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => { stderr += chunk; });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const started = Date.now();
  while (!/== base/.test(stderr)) {
    assert.ok(Date.now() - started < 60_000, `run did not start building within a minute:\n${stderr}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  await new Promise((done) => setTimeout(done, 1000));
  process.kill(-(child.pid as number), 'SIGINT');
  assert.equal(await exited, 130, stderr);
  assert.match(stderr, /benchbot run: interrupted \(SIGINT\) during base: [0-9a-f]{12}\. What it measured is discarded/);
  assert.doesNotMatch(stderr, /failed/);
  assert.ok(!existsSync(lock), 'the machine lock is removed');
});

test('after a run, git status of the user\'s repository is clean: .benchbot/ (store, worktrees) ignores itself', () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-status-'));
  const env = { ...process.env, BENCHBOT_LOCK: join(scratch, 'machine.lock'), GITHUB_ACTIONS: '', BENCHBOT_DATABASE_URL: '' };
  const run = spawnSync(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--max-load', '1000', '--max-runs', '10'], { cwd: repo.dir, env, encoding: 'utf8' });
  assert.equal(run.status, 1, run.stderr);
  assert.ok(existsSync(join(repo.dir, '.benchbot', 'benchbot.db')), 'the store is where the docs say');
  assert.ok(readdirSync(join(repo.dir, '.benchbot', 'worktrees')).length >= 1, 'the worktrees are where the docs say');
  assert.equal(execFileSync('git', ['-C', repo.dir, 'status', '--porcelain'], { encoding: 'utf8' }), '');
  // benchbot clean still finds and removes the worktrees.
  const clean = spawnSync(process.execPath, [BIN, 'clean'], { cwd: repo.dir, env, encoding: 'utf8' });
  assert.equal(clean.status, 0, clean.stderr);
  assert.equal(execFileSync('git', ['-C', repo.dir, 'status', '--porcelain'], { encoding: 'utf8' }), '');
});
