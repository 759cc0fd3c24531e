import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.ts';
import { makeCountedRepo, toolchainMissing } from '../support/counted-projects.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// `benchbot run --instructions` through the public CLI on a generated git
// repository of a real Google Benchmark program whose head adds a second
// pass to BM_Sum: the counts are stored beside the wall time under the same
// benchmark names, only BM_Sum's rose, and the callgrind files stay in the
// state directory for a differential profile; --instructions-filter picks
// which benchmarks are counted.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function env(cwd: string): NodeJS.ProcessEnv {
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  return { ...process.env, BENCHBOT_LOCK: join(cwd, 'machine.lock'), GITHUB_ACTIONS: '' };
}

const FEW_ROUNDS = ['--min-runs', '2', '--max-runs', '2', '--warmup', '0', '--max-load', '1000'];

test('benchbot run --instructions stores each benchmark\'s count beside its wall time, and only the changed one moved', { timeout: 120_000 }, async (t) => {
  const missing = toolchainMissing('google-benchmark');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const repo = makeCountedRepo('google-benchmark');
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const run = await spawnWithProgress(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', ...FEW_ROUNDS, '--instructions', '--instructions-repeats', '2', '--instructions-filter', '^BM_', '--output', 'json'], { label: 'run --instructions', cwd: repo.dir, env: env(repo.dir), timeoutMs: 110_000 });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  assert.match(run.stderr, /instructions: counting under valgrind/);
  const store = await openStore(undefined, { cwd: repo.dir });
  try {
    const runs = await store.listRuns({});
    const side = async (role: string) => (await store.getRun(runs.find((r) => r.role === role)!.id))!;
    const [base, head] = [await side('base'), await side('head')];
    const counted = (r: typeof base, benchmark: string) => r.measurements.find((m) => m.benchmark === benchmark && m.metric === 'instructions');
    for (const benchmark of ['BM_Sum', 'BM_Hash/256']) {
      for (const r of [base, head]) {
        assert.ok(r.measurements.some((m) => m.benchmark === benchmark && m.metric === 'real_time'), `${benchmark} has its wall time`);
        const m = counted(r, benchmark);
        assert.equal(m?.values.length, 2, `${benchmark}: two counts per side`);
        assert.equal(m?.unit, 'count');
        assert.equal(m?.values[0], m?.values[1], `${benchmark} counts the same twice`);
        assert.ok(r.measurements.some((x) => x.benchmark === benchmark && x.metric === 'estimated_cycles'));
      }
    }
    assert.ok(counted(head, 'BM_Sum')!.values[0] > 1.2 * counted(base, 'BM_Sum')!.values[0], 'the second pass shows in BM_Sum');
    // --instructions-filter '^BM_' left the fixture Table/Scan to its wall time.
    assert.ok(head.measurements.some((m) => m.benchmark === 'Table/Scan' && m.metric === 'real_time'));
    assert.equal(counted(head, 'Table/Scan'), undefined);
    assert.equal(counted(head, 'BM_Hash/256')!.values[0], counted(base, 'BM_Hash/256')!.values[0], 'BM_Hash is untouched');
  } finally {
    await store.close();
  }
  const report = JSON.parse(run.stdout) as { comparisons: { benchmark: string; metric: string }[] };
  assert.ok(report.comparisons.some((c) => c.benchmark === 'BM_Sum' && c.metric === 'instructions'), 'the report compares the counts');
  const kept = join(repo.dir, '.benchbot', 'callgrind');
  const [folder] = readdirSync(kept);
  assert.match(folder, new RegExp(`^${repo.baseSha.slice(0, 12)}-${repo.headSha.slice(0, 12)}-`));
  for (const s of ['base', 'head']) assert.equal(readdirSync(join(kept, folder, s)).filter((f) => f.endsWith('.callgrind')).length, 4, `${s}: 2 benchmarks x 2 repeats`);
});

test('--instructions refuses --counters, and its companions need it', () => {
  const cwd = fileURLToPath(new URL('../../', import.meta.url));
  const go = (...args: string[]) => spawnSync(process.execPath, [BIN, 'run', '--base', 'a', '--head', 'b', '--bench', 'true', ...args], { cwd, encoding: 'utf8', env: env(cwd) });
  const both = go('--instructions', '--counters');
  assert.equal(both.status, 2);
  assert.match(both.stderr, /--counters and --instructions: choose one/);
  const alone = go('--instructions-filter', 'BM_');
  assert.equal(alone.status, 2);
  assert.match(alone.stderr, /--instructions-filter needs --instructions/);
  const bad = go('--instructions', '--instructions-filter', '(a');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--instructions-filter "\(a": not a valid regular expression/);
  assert.ok(!existsSync(join(cwd, '.benchbot', 'callgrind')), 'nothing was counted');
});

test('--counters where perf reads <not supported> (this VM) says so once per run, not per round or side', { timeout: 60_000 }, (t) => {
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const run = spawnSync(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', ...FEW_ROUNDS, '--max-runs', '4', '--counters', '--no-store'], { cwd: repo.dir, encoding: 'utf8', env: env(repo.dir) });
  assert.equal(run.status, 0, run.stderr);
  const said = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.includes('--counters:'));
  if (said.length === 0) {
    t.skip('perf reads the counters on this machine: nothing to say');
    return;
  }
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0], /base and head: --counters: perf (stat cannot read .* on this machine|is not installed)/);
});
