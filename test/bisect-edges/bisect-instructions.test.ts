// benchbot bisect --instructions end to end on real code, with the machine kept busy by CPU hogs: a few percent more
// work in one benchmark is bisected by counting instructions, one count per probe; a regression of wall time alone
// (a nap, no work) is bisected on wall time, as without --instructions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCNapRepo, makeGoMergeRepo } from './code-merge-repo.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  const env = { ...process.env, BENCHBOT_LOCK: join(cwd, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '' };
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, seconds: (performance.now() - started) / 1000 };
}

/** hogs keeps every core of this 2-core box busy with a shell loop each (the busy machine of issue 23); stop() ends them by pid. */
function hogs(n = 2): { stop(): void } {
  const children: ChildProcess[] = [];
  for (let i = 0; i < n; i++) children.push(spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  return { stop: () => children.forEach((c) => c.kill('SIGKILL')) };
}

const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const hasGo = spawnSync('go', ['version']).status === 0;

test('a +3.9% work regression in one of two Go benchmarks, 32 merges, a busy machine: --instructions names the merge with one count per probe', { skip: !hasValgrind || !hasGo ? 'needs valgrind and go (scripts/prepare-tests.sh installs them)' : false }, (t) => {
  const repo = makeGoMergeRepo({ merges: 32, culprit: 21 });
  const load = hogs();
  let run: ReturnType<typeof benchbot>;
  try {
    // --max-load 1000: the hogs are the point; the load guard is tested in test/runner/load-guard.test.ts.
    run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', 'main', '--bench', "go test -run '^$' -bench . -benchtime 20ms", '--build', 'go build ./...',
      '--instructions', '--max-load', '1000', '--no-store', '--output', 'json');
  } finally {
    load.stop();
  }
  t.diagnostic(`bisect --instructions: ${run.seconds.toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.status, 'found', JSON.stringify(log.steps));
  assert.deepEqual(log.culprit, { sha: repo.culprit.sha, subject: repo.culprit.subject, pr: 121 });
  assert.match(log.benchmark, /^BenchmarkParse(-\d+)?$/);
  assert.equal(log.metric, 'instructions');
  assert.ok(log.reference.ratio > 1.03 && log.reference.ratio < 1.05, `good to bad ${log.reference.ratio}`);
  assert.equal(log.reference.reproducible, true);
  const probes = log.steps.filter((s: { kind: string }) => s.kind === 'probe');
  assert.ok(probes.length >= 4 && probes.length <= 6, `${probes.length} probes`);
  for (const s of probes) assert.equal(s.n, 1, 'one count per probe');
  for (const s of probes) assert.ok(['good', 'bad'].includes(s.verdict), JSON.stringify(s));
  assert.ok(log.sessions <= Math.ceil(Math.log2(32)) + 2, `sessions ${log.sessions}`);
  assert.match(run.stderr, /following BenchmarkParse(-\d+)? \(instructions, counted under valgrind: one count per probe\)/);
  // The report says what was followed: the markdown of the same bisect.json.
  const file = join(repo.dir, '.git', 'bisect.json');
  writeFileSync(file, run.stdout);
  const md = benchbot(repo.dir, 'bisect-log', file);
  assert.equal(md.status, 0, md.stderr);
  assert.match(md.stdout, /Followed the benchmark's instruction count under valgrind with a fixed iteration schedule: one count per probe/);
  assert.match(md.stdout, /#121/);
});

test('a regression of wall time alone (a 200 ms nap, the same work): --instructions sees equal counts and bisects on wall time', { skip: !hasValgrind ? 'needs valgrind (scripts/prepare-tests.sh installs it)' : false }, (t) => {
  const repo = makeCNapRepo({ merges: 8, culprit: 6 });
  const load = hogs();
  let run: ReturnType<typeof benchbot>;
  try {
    run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, '--bench', './bench', '--build', 'cc -O2 -o bench bench.c', '--format', 'command',
      '--rounds', '5', '--warmup', '0', '--instructions', '--instructions-repeats', '1', '--max-load', '1000', '--no-store', '--output', 'json');
  } finally {
    load.stop();
  }
  t.diagnostic(`bisect --instructions, wall time followed: ${run.seconds.toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.match(run.stderr, /instruction counts of good and bad do not differ beyond the threshold \(command [+-]0\.\d\d%\): following wall time/);
  assert.equal(log.metric, 'time');
  assert.equal(log.status, 'found', JSON.stringify(log.steps));
  assert.equal(log.culprit.pr, 106);
  assert.ok(log.reference.ratio > 2, `good to bad ${log.reference.ratio}`);
  for (const s of log.steps.filter((x: { kind: string }) => x.kind === 'probe')) assert.equal(s.n, 5, 'wall-time sessions, as without --instructions');
});

test('--instructions-repeats without --instructions is refused, naming the flag', () => {
  const repo = makeCNapRepo({ merges: 2, culprit: 2 });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, '--bench', './bench', '--instructions-repeats', '2');
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--instructions-repeats needs --instructions/);
  const zero = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, '--bench', './bench', '--instructions', '--instructions-repeats', '0');
  assert.equal(zero.status, 2);
  assert.match(zero.stderr, /--instructions-repeats 0: give a whole number of at least 1/);
});
