import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePytestRepo, PYTEST_NAMES, pytestMissing } from '../support/pytest-project.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// `benchbot run --instructions --format pytest-benchmark` through the public
// CLI on a generated git repository of a real pytest-benchmark project whose
// head adds one step to a 100-step loop (about +1% of test_checksum's work):
// the counted work finds it with 3 repeats per side, every other benchmark
// unchanged, and it gets a differential profile (of the interpreter's C
// functions: callgrind does not see Python functions).

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

test('run --instructions --format pytest-benchmark: the +1% step is regressed in counted work, the rest unchanged, and it is profiled', { timeout: 120_000 }, async (t) => {
  const missing = pytestMissing();
  if (missing) {
    t.skip(`${missing}: pytest-benchmark counting cannot be tested here`);
    return;
  }
  const repo = makePytestRepo();
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const markdown = join(repo.dir, 'comment.md');
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...process.env, BENCHBOT_LOCK: join(repo.dir, 'machine.lock'), GITHUB_ACTIONS: '' };
  const run = await spawnWithProgress(process.execPath, [
    BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--format', 'pytest-benchmark', '--result-file', 'bench.json',
    '--min-runs', '2', '--max-runs', '2', '--warmup', '0', '--max-load', '1000', '--no-store',
    // Two of the five benchmarks: the changed one and an untouched one (a counted pytest process costs tens of seconds on a busy 2-core
    // machine). Three repeats: CPython's counts agree to a few hundredths of a percent, not exactly, and two such repeats decide nothing.
    '--instructions', '--instructions-repeats', '3', '--instructions-filter', 'checksum|sorted', '--output', 'json', '--export-markdown', markdown,
    // The step is about +1% of test_checksum's work (+0.99% measured): not beyond pytest-benchmark's default work threshold (1%: CPython's count
    // moves with the memory layout), so the test asks for the compiled harnesses' 0.5%, which an explicit flag must give.
    '--work-threshold', '0.5%',
  ], { label: 'run --instructions pytest', cwd: repo.dir, env, timeoutMs: 115_000 });
  assert.equal(run.status, 1, `a regression exits 1: ${run.stderr}`);
  assert.match(run.stderr, /instructions: counting under valgrind/);
  assert.doesNotMatch(run.stderr, /no iteration schedule benchbot can fix/);

  const json = JSON.parse(run.stdout) as { work_threshold?: number; comparisons: { benchmark: string; metric: string; verdict: string; ratio: number; spread?: { base: number; head: number } }[]; profiles?: { benchmark: string; self: { name: string; share: number }[] }[] };
  assert.equal(json.work_threshold, 0.005, 'the explicit --work-threshold wins over pytest-benchmark\'s default');
  const counted = json.comparisons.filter((c) => c.metric === 'instructions');
  assert.deepEqual(counted.map((c) => c.benchmark).sort(), PYTEST_NAMES.filter((n) => /checksum|sorted/.test(n)).sort(), 'the benchmarks the filter picked were counted');
  for (const c of counted) {
    assert.ok((c.spread?.base ?? 1) <= 0.002 && (c.spread?.head ?? 1) <= 0.002, `${c.benchmark}: its repeats agree: ${JSON.stringify(c.spread)}`);
    if (c.benchmark.endsWith('::test_checksum')) {
      assert.equal(c.verdict, 'regressed', `test_checksum x${c.ratio}`);
      assert.ok(c.ratio > 1.005 && c.ratio < 1.02, `about +1%: x${c.ratio}`);
    } else assert.equal(c.verdict, 'unchanged', `${c.benchmark} x${c.ratio}`);
  }
  const md = readFileSync(markdown, 'utf8');
  assert.match(md, /1 regression: <code>test_bench\.py::test_checksum<\/code> <code>instructions<\/code> \+\d\.\d+%/);
  const profile = json.profiles?.find((p) => p.benchmark.endsWith('::test_checksum'));
  t.diagnostic(`profile of test_checksum: ${JSON.stringify(profile?.self.slice(0, 3))}`);
  assert.ok(profile !== undefined, 'the regressed benchmark was profiled');
  const kept = join(repo.dir, '.benchbot', 'callgrind');
  const [folder] = readdirSync(kept);
  for (const s of ['base', 'head']) assert.equal(readdirSync(join(kept, folder, s)).filter((f) => f.endsWith('.callgrind')).length, 6, `${s}: 2 benchmarks x 3 repeats`);
});
