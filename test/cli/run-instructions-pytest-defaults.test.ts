import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePytestRepo, PYTEST_NAMES, pytestMissing } from '../support/pytest-project.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';
import { LAYOUT_SAMPLED_REPEATS } from '../../src/runner/valgrind-count.ts';
import { defaultWorkThreshold } from '../../src/compare/compare-runs.ts';

// `benchbot run --instructions --format pytest-benchmark` as it ships, no counting flag but the filter: each side
// counted in 5 memory layouts (CPython's counts move with the layout, docs/instructions.md), one repeat per side set
// aside, judged at pytest-benchmark's 1%. The head adds 5 steps to checksum's 100-step loop (about +5%): regressed;
// an untouched benchmark: unchanged.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

test('run --instructions --format pytest-benchmark at its defaults: 5 layouts per side, one set aside, 1%; +5% regressed, the untouched unchanged', { timeout: 240_000 }, async (t) => {
  const missing = pytestMissing();
  if (missing) {
    t.skip(`${missing}: pytest-benchmark counting cannot be tested here`);
    return;
  }
  const repo = makePytestRepo(5);
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const markdown = join(repo.dir, 'comment.md');
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...process.env, BENCHBOT_LOCK: join(repo.dir, 'machine.lock'), GITHUB_ACTIONS: '' };
  const run = await spawnWithProgress(process.execPath, [
    BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--format', 'pytest-benchmark', '--result-file', 'bench.json',
    '--min-runs', '2', '--max-runs', '2', '--warmup', '0', '--max-load', '1000', '--no-store', '--no-profile',
    '--instructions', '--instructions-filter', 'checksum|sorted', '--output', 'json', '--export-markdown', markdown,
  ], { label: 'run --instructions pytest (defaults)', cwd: repo.dir, env, timeoutMs: 235_000 });
  assert.equal(run.status, 1, `a regression exits 1: ${run.stderr}`);
  assert.match(run.stderr, new RegExp(`instructions: counting under valgrind, ${LAYOUT_SAMPLED_REPEATS} repeat\\(s\\) per side, each in another memory layout`));

  const json = JSON.parse(run.stdout) as { work_threshold?: number; comparisons: { benchmark: string; metric: string; verdict: string; ratio: number; base: { n: number }; head: { n: number }; set_aside?: { base?: number; head?: number } }[] };
  assert.equal(json.work_threshold, defaultWorkThreshold('pytest-benchmark'), 'judged at pytest-benchmark\'s own threshold');
  const counted = json.comparisons.filter((c) => c.metric === 'instructions');
  assert.deepEqual(counted.map((c) => c.benchmark).sort(), PYTEST_NAMES.filter((n) => /checksum|sorted/.test(n)).sort());
  for (const c of counted) {
    t.diagnostic(`${c.benchmark}: ${c.verdict} x${c.ratio.toFixed(5)}, set aside ${JSON.stringify(c.set_aside)}`);
    assert.equal(c.base.n, LAYOUT_SAMPLED_REPEATS, `${c.benchmark}: every layout counted on base`);
    assert.equal(c.head.n, LAYOUT_SAMPLED_REPEATS, `${c.benchmark}: every layout counted on head`);
    assert.ok(c.set_aside?.base !== undefined && c.set_aside.head !== undefined, `${c.benchmark}: one repeat per side set aside: ${JSON.stringify(c.set_aside)}`);
    if (c.benchmark.endsWith('::test_checksum')) {
      assert.equal(c.verdict, 'regressed', `test_checksum x${c.ratio}`);
      assert.ok(c.ratio > 1.03 && c.ratio < 1.08, `about +5%: x${c.ratio}`);
    } else assert.equal(c.verdict, 'unchanged', `${c.benchmark} x${c.ratio}`);
  }
  assert.match(readFileSync(markdown, 'utf8'), /1 set aside/);
  const kept = join(repo.dir, '.benchbot', 'callgrind');
  const [folder] = readdirSync(kept);
  for (const s of ['base', 'head']) assert.equal(readdirSync(join(kept, folder, s)).filter((f) => f.endsWith('.callgrind')).length, 2 * LAYOUT_SAMPLED_REPEATS, `${s}: 2 benchmarks x ${LAYOUT_SAMPLED_REPEATS} layouts`);
});
