import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAb, type RunAbSettings } from '../../src/runner/run-ab.ts';
import { createExecutor } from '../../src/runner/executor.ts';
import { silentProgress } from '../../src/runner/progress.ts';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

function settings(repo: string, overrides: Partial<RunAbSettings> = {}): RunAbSettings {
  return {
    repo, base: 'base', head: 'head', bench: './bench.sh', build: './build.sh', format: undefined, resultFile: undefined,
    minRuns: 10, maxRuns: 20, warmup: 1, threshold: 0.02, alpha: 0.05, rules: [], roundTimeoutMs: 10_000, buildTimeoutMs: 30_000,
    seed: 7, counters: false, allowDirty: false, stateDir: join(repo, '.benchbot'), labels: ['test'], maxFailedRounds: 3,
    ...overrides,
  };
}

const deps = () => ({ executor: createExecutor({ kind: 'local' }), progress: silentProgress, now: () => '2026-11-22T00:00:00.000Z' });

test('a 10% slowdown of one benchmark is found on that benchmark only, at the first look', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const result = await runAb(settings(repo.dir), deps());
  const verdicts = Object.fromEntries(result.report.comparisons.map((c) => [c.benchmark, c.verdict]));
  assert.deepEqual(verdicts, { parse: 'regressed', hash: 'unchanged' });
  const parse = result.report.comparisons.find((c) => c.benchmark === 'parse');
  assert.ok(parse?.ratioCi && parse.ratioCi[0] < 1.1 && parse.ratioCi[1] > 1.09, `CI ${parse?.ratioCi}`);
  assert.equal(result.roundsPerSide, 10, 'decisive at the first look');
  assert.equal(result.looks.length, 1);
  assert.equal(result.base.sha, repo.baseSha);
  assert.equal(result.head.sha, repo.headSha);
  assert.equal(result.base.role, 'base');
  assert.deepEqual(result.base.fingerprint.runnerLabels, ['test']);
  assert.equal(result.base.measurements.find((m) => m.benchmark === 'parse')?.values.length, 10);
  assert.ok(existsSync(join(repo.dir, '.benchbot/worktrees', repo.headSha.slice(0, 12), 'built.flag')));
});

test('a second run skips the builds of trees built before', async () => {
  const repo = makeFixtureRepo();
  const first = await runAb(settings(repo.dir, { minRuns: 2, maxRuns: 2 }), deps());
  const second = await runAb(settings(repo.dir, { minRuns: 2, maxRuns: 2 }), deps());
  assert.deepEqual(first.builds.map((b) => b.skipped), [false, false]);
  assert.deepEqual(second.builds.map((b) => b.skipped), [true, true]);
});

test('no change and the budget spent: sampling goes on through the looks and reports what stayed undecided', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.02 });
  process.env.BENCH_NOISE = '0.3';
  try {
    const result = await runAb(settings(repo.dir, { minRuns: 5, maxRuns: 15, threshold: 0.02 }), deps());
    assert.deepEqual(result.looks.map((l) => l.roundsPerSide), [5, 10, 15]);
    assert.deepEqual(result.undecided.sort(), ['hash (time)', 'parse (time)']);
  } finally {
    delete process.env.BENCH_NOISE;
  }
});

test('a crashed round is recorded and the run goes on; too many crashes end it with the last error', async () => {
  const repo = makeFixtureRepo();
  process.env.BENCH_FAIL_AT = '6';
  try {
    const result = await runAb(settings(repo.dir), deps());
    assert.equal(result.failures.length, 2, 'round 6 fails once per side');
    assert.match(result.failures[0].message, /exit code 3: segfault in round 6/);
    assert.equal(result.roundsPerSide, 10);
  } finally {
    delete process.env.BENCH_FAIL_AT;
  }
});

test('a round over its timeout is killed and reported as timed out', async () => {
  const repo = makeFixtureRepo();
  process.env.BENCH_SLEEP = '5';
  try {
    await assert.rejects(runAb(settings(repo.dir, { roundTimeoutMs: 300, warmup: 0 }), deps()), (error: Error) => {
      assert.ok(error instanceof RunnerError);
      assert.match(error.message, /does not run on (base|head) .*timed out after 0 s \(--round-timeout\)/);
      return true;
    });
  } finally {
    delete process.env.BENCH_SLEEP;
  }
});

test('bad setups end with a message that says what to fix', async () => {
  const repo = makeFixtureRepo();
  const fails = async (overrides: Partial<RunAbSettings>, pattern: RegExp) => {
    await assert.rejects(runAb(settings(repo.dir, overrides), deps()), (error: Error) => {
      assert.ok(error instanceof RunnerError, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };
  await fails({ base: 'no-such-branch' }, /--base no-such-branch: no such commit, branch or tag/);
  await fails({ head: '--upload-pack=evil' }, /--head --upload-pack=evil: not a git ref/);
  await fails({ repo: join(repo.dir, 'missing') }, /--repo .*missing: no such directory/);
  await fails({ repo: '/' }, /not a git repository/);
  await fails({ build: 'exit 4' }, /build of base \(.{12}\) failed with exit code 4/);
  await fails({ build: 'no-such-compiler --version' }, /exit code 127 \(a command was not found: install the build tool or fix --build\)/);
  await fails({ build: 'echo line1; echo compile error >&2; exit 1' }, /last lines of the build log ---\nline1\ncompile error/);
  await fails({ bench: './missing-bench.sh' }, /the benchmark does not run on base .*exit code 127/);

  writeFileSync(join(repo.dir, 'slow.txt'), '3\n');
  await fails({}, /uncommitted changes .*slow\.txt.*commit or stash them, or pass --allow-dirty/);
});

test('a head that prints nothing readable, or crashes, is refused with its output', async () => {
  const garbage = makeFixtureRepo({ headMode: 'garbage' });
  await assert.rejects(runAb(settings(garbage.dir), deps()), /does not run on head .*printed nothing benchbot can read/);
  const crash = makeFixtureRepo({ headMode: 'crash' });
  await assert.rejects(runAb(settings(crash.dir), deps()), /does not run on head .*exit code 2: cannot open data file/);
});

test('--format command times the whole command with hyperfine, one sample per round', async () => {
  const repo = makeFixtureRepo();
  const result = await runAb(settings(repo.dir, { format: 'command', minRuns: 3, maxRuns: 3, bench: 'sleep 0.01' }), deps());
  const [c] = result.report.comparisons;
  assert.equal(c.benchmark, 'command');
  assert.equal(c.unit, 's');
  assert.equal(c.base?.n, 3);
  assert.ok((c.base?.median ?? 0) >= 0.009);
});

test('a filter keeps only the matching benchmarks (/bench REGEX)', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const result = await runAb(settings(repo.dir, { filter: /^hash$/, minRuns: 3, maxRuns: 3 }), deps());
  assert.deepEqual(result.report.comparisons.map((c) => c.benchmark), ['hash']);
});
