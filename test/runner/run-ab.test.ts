import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAb, type NoiseLearning, type RunAbSettings, type RunHistory } from '../../src/runner/run-ab.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lookLevels } from '../../src/stats/sequential-alpha.ts';
import { createExecutor } from '../../src/runner/executor.ts';
import { silentProgress } from '../../src/runner/progress.ts';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { compileNameFilter } from '../../src/compare/name-filter.ts';
import { replayLooks } from '../../src/compare/replay-looks.ts';
import { samplingLine } from '../../src/report/run-report.ts';

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

// Issue 11 changed this rule: sampling used to go on to the budget whatever the data said; now a
// comparison that the budget cannot decide stops for futility, and states the bound it reached.
test('a change the budget cannot decide stops at the first look for futility, stating the bound it reached', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.02 });
  process.env.BENCH_NOISE = '0.3';
  try {
    const result = await runAb(settings(repo.dir, { minRuns: 5, maxRuns: 15, threshold: 0.02 }), deps());
    assert.deepEqual(result.looks.map((l) => l.roundsPerSide), [5]);
    assert.deepEqual(result.undecided.sort(), ['hash (time)', 'parse (time)']);
    for (const c of result.report.comparisons) {
      assert.equal(c.verdict, 'inconclusive');
      assert.equal(c.decision, 'futility');
      assert.equal(c.decidedAt, 5);
      assert.ok((c.bound as number) > 0.02, `${c.benchmark}: bound ${c.bound}`);
    }
  } finally {
    delete process.env.BENCH_NOISE;
  }
});

test('a nightly (futility off) measures the same hopeless change to the budget, and the report job replays it to the same verdicts', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.02 });
  process.env.BENCH_NOISE = '0.3';
  try {
    const result = await runAb(settings(repo.dir, { minRuns: 5, maxRuns: 15, threshold: 0.02, futility: false }), deps());
    assert.deepEqual(result.looks.map((l) => l.roundsPerSide), [5, 10, 15], 'no futility stop: every look up to the budget');
    assert.equal(result.base.measurements.find((m) => m.benchmark === 'parse')?.values.length, 15);
    for (const c of result.report.comparisons) assert.notEqual(c.decision, 'futility');
    const side = (run: typeof result.base) => ({ measurements: run.measurements, warnings: [], hints: {} });
    const replay = (futility: boolean) => replayLooks(side(result.base), side(result.head), { threshold: 0.02, alpha: 0.05, rules: [], minRuns: 5, maxRuns: 15, futility });
    const verdicts = (r: { comparisons: Array<{ benchmark: string; verdict: string; decision?: string; ratio: number | null }> }) => r.comparisons.map((c) => [c.benchmark, c.verdict, c.decision, c.ratio]);
    assert.deepEqual(verdicts(replay(false)), verdicts(result.report));
    // Replayed as a PR run would have stopped (futility on), the hopeless benchmarks settle at the first look instead.
    assert.ok(replay(true).comparisons.every((c) => c.decision === 'futility'));
  } finally {
    delete process.env.BENCH_NOISE;
  }
});

test('sampling goes on while a decision is possible; what the budget leaves undecided is reported with its bound', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.02 });
  process.env.BENCH_NOISE = '0.06';
  try {
    const result = await runAb(settings(repo.dir, { minRuns: 5, maxRuns: 10, threshold: 0.02 }), deps());
    assert.deepEqual(result.looks.map((l) => l.roundsPerSide), [5, 10]);
    assert.deepEqual(result.looks.map((l) => l.alpha), lookLevels(0.05, [5, 10]).difference, 'each look is tested at its exact group-sequential level');
    const byName = Object.fromEntries(result.report.comparisons.map((c) => [c.benchmark, c]));
    assert.equal(byName.parse.decision, 'budget');
    assert.ok((byName.parse.bound as number) > 0.02 && (byName.parse.bound as number) < 0.06, `parse bound ${byName.parse.bound}`);
    assert.equal(byName.parse.base?.n, 10);
    // hash could not be shown within 2% in 10 rounds at the first look, so it stopped at 5 for futility; parse kept the
    // rounds going, and hash, judged again on them (futility is non-binding), was decided at the last look.
    assert.equal(byName.hash.futileAt, 5);
    assert.equal(byName.hash.verdict, 'unchanged');
    assert.equal(byName.hash.decidedAt, 10);
    assert.equal(byName.hash.base?.n, 10, 'a verdict on rounds measured for others has the numbers of the look that decided it');
    assert.deepEqual(result.looks.map((l) => [l.futile, l.rejudged]), [[1, 0], [0, 1]]);
    assert.match(samplingLine(result), /decided on rounds measured for others, after their own futility stop: hash \(time\) unchanged at 10, futile at 5/);
    assert.deepEqual(result.undecided, ['parse (time)']);
    // The report job's replay of the same rounds re-judges the same way.
    const side = (run: typeof result.base) => ({ measurements: run.measurements, warnings: [], hints: {} });
    const replayed = replayLooks(side(result.base), side(result.head), { threshold: 0.02, alpha: 0.05, rules: [], minRuns: 5, maxRuns: 10 });
    const rows = (r: typeof result.report) => r.comparisons.map((c) => [c.benchmark, c.verdict, c.decision, c.decidedAt, c.futileAt, c.ratio]);
    assert.deepEqual(rows(replayed), rows(result.report));
  } finally {
    delete process.env.BENCH_NOISE;
  }
});

test('a round that measures a benchmark several times contributes their median, one value per round', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const bench = './bench.sh; ./bench.sh; ./bench.sh';
  const median = await runAb(settings(repo.dir, { bench, minRuns: 4, maxRuns: 4 }), deps());
  assert.equal(median.base.measurements.find((m) => m.benchmark === 'parse')?.values.length, 4);
  const all = await runAb(settings(repo.dir, { bench, minRuns: 4, maxRuns: 4, roundSummary: 'all' }), deps());
  assert.equal(all.base.measurements.find((m) => m.benchmark === 'parse')?.values.length, 12);
  const repeated = await runAb(settings(repo.dir, { minRuns: 4, maxRuns: 4, repetitions: 3, roundSummary: 'all' }), deps());
  assert.equal(repeated.base.measurements.find((m) => m.benchmark === 'parse')?.values.length, 12, '--repetitions 3 runs the command three times a round');
});

test('--pin-cpu runs every round under taskset on the given CPUs; auto pins only to isolated CPUs', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const bench = 'grep Cpus_allowed_list /proc/self/status >> affinity.txt; ./bench.sh';
  const pinned = await runAb(settings(repo.dir, { bench, minRuns: 2, maxRuns: 2, warmup: 0, pinCpu: '0' }), deps());
  assert.equal(pinned.pinned, '0');
  const affinity = readFileSync(join(repo.dir, '.benchbot/worktrees', repo.baseSha.slice(0, 12), 'affinity.txt'), 'utf8').trim().split('\n');
  assert.ok(affinity.length >= 2 && affinity.every((line) => /:\s*0$/.test(line)), affinity.join('; '));
  const auto = await runAb(settings(repo.dir, { minRuns: 2, maxRuns: 2, warmup: 0, pinCpu: 'auto' }), deps());
  assert.equal(auto.pinned, auto.base.fingerprint.isolatedCpus && auto.base.fingerprint.isolatedCpus !== 'none' ? auto.base.fingerprint.isolatedCpus : undefined);
  await assert.rejects(runAb(settings(repo.dir, { minRuns: 2, maxRuns: 2, pinCpu: '999' }), deps()), /--pin-cpu 999: cannot pin there/);
});

test('stored base rounds of the same SHA join the base side when they pass the drift check, and the memory learns each side\'s noise', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const first = await runAb(settings(repo.dir, { minRuns: 10, maxRuns: 10 }), deps());
  const learned: NoiseLearning[][] = [];
  const history = (stored: Measurement[]): RunHistory => ({
    storedRounds: async (sha) => (sha === repo.baseSha ? stored : []),
    learn: async (_fingerprint, observations) => {
      learned.push(observations);
      return new Map(observations.map((o) => [`${o.benchmark}\u0000${o.metric}`, o.sigma]));
    },
  });
  const pooled = await runAb(settings(repo.dir, { minRuns: 10, maxRuns: 10, poolBase: true }), { ...deps(), history: history(first.base.measurements) });
  assert.deepEqual(pooled.pooled, { 'parse (time)': 10, 'hash (time)': 10 });
  assert.equal(pooled.report.comparisons.find((c) => c.benchmark === 'hash')?.base?.n, 20);
  assert.equal(pooled.report.comparisons.find((c) => c.benchmark === 'hash')?.pooledBase, 10);
  assert.equal(learned.length, 1);
  assert.deepEqual(learned[0].map((o) => `${o.benchmark} ${o.rounds}`).sort(), ['hash 10', 'hash 10', 'parse 10', 'parse 10'], 'one observation per side, from today\'s rounds only');
  const hash = pooled.report.comparisons.find((c) => c.benchmark === 'hash');
  assert.ok(hash?.detectable !== undefined && hash.detectable > 0.02 && hash.suggestedThreshold !== undefined, `detectable ${hash?.detectable}`);

  const drifted = first.base.measurements.map((m) => ({ ...m, values: m.values.map((v) => v * 1.03) }));
  const refused = await runAb(settings(repo.dir, { minRuns: 10, maxRuns: 10, poolBase: true }), { ...deps(), history: history(drifted) });
  assert.deepEqual(refused.pooled, {});
  assert.match(refused.poolRefused['hash (time)'], /drift check failed: today's base vs 10 stored rounds -2\.9%/);
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
  const result = await runAb(settings(repo.dir, { filter: compileNameFilter('^hash$'), minRuns: 3, maxRuns: 3 }), deps());
  assert.deepEqual(result.report.comparisons.map((c) => c.benchmark), ['hash']);
});
