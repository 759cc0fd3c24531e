import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCountedRepo, toolchainMissing } from '../support/counted-projects.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// The PR comment of `benchbot run --instructions` as a user gets it, on a
// generated git repository of a real Google Benchmark program whose head
// adds a second pass to BM_Sum: one row per benchmark, the counted work
// deciding it with its time beside it, the headline naming the counted
// regression, and the JSON report's work fields (docs/report-json.md).

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

test('run --instructions: one row per benchmark, counted work first with its time beside it, the headline names the counted regression', { timeout: 120_000 }, async (t) => {
  const missing = toolchainMissing('google-benchmark');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const repo = makeCountedRepo('google-benchmark');
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const markdown = join(repo.dir, 'comment.md');
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...process.env, BENCHBOT_LOCK: join(repo.dir, 'machine.lock'), GITHUB_ACTIONS: '' };
  const run = await spawnWithProgress(process.execPath, [
    BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh',
    '--min-runs', '3', '--max-runs', '3', '--warmup', '0', '--max-load', '1000', '--no-store',
    '--instructions', '--output', 'json', '--export-markdown', markdown,
  ], { label: 'run --instructions', cwd: repo.dir, env, timeoutMs: 110_000 });
  assert.equal(run.status, 1, `a regression exits 1: ${run.stderr}`);

  const md = readFileSync(markdown, 'utf8');
  assert.match(md, /### benchbot: 1 regression: <code>BM_Sum<\/code> <code>instructions<\/code> \+\d+\.\d%\. Look at it before merging\./);
  // The counted repository's suite: BM_Sum (head adds a pass), BM_Hash/256 and the fixture benchmark Table/Scan.
  assert.match(md, /\n3 benchmarks: 1 regression, 2 unchanged\./);
  for (const name of ['BM_Sum', 'BM_Hash/256', 'Table/Scan']) {
    const rows = md.split('\n').filter((line) => line.startsWith(`| <code>${name}</code> |`));
    assert.equal(rows.length, 1, `${name}: one row`);
    assert.match(rows[0], /^\| <code>[^<]+<\/code> \| <code>instructions<\/code> \| [\d.]+k? \(n=3, equal\) \| [\d.]+k? \(n=3, equal\) \|/, `${name}: counted work first, its repeats equal`);
    assert.match(rows[0], /<code>(real|cpu)_time<\/code>/, `${name}: its time beside it`);
  }
  assert.match(md.split('\n').find((l) => l.startsWith('| <code>BM_Hash/256</code>')) ?? '', /\| unchanged \|/, 'the untouched benchmark\'s work is unchanged');
  assert.match(md, /Counted work \(instructions, estimated cycles under valgrind\) is not tested/);

  const json = JSON.parse(run.stdout);
  assert.equal(json.work_threshold, 0.005);
  const sum = json.comparisons.find((c: { benchmark: string; metric: string }) => c.benchmark === 'BM_Sum' && c.metric === 'instructions');
  assert.equal(sum.family, 'work');
  assert.equal(sum.decision, 'counted');
  assert.equal(sum.verdict, 'regressed');
  assert.deepEqual(sum.spread, { base: 0, head: 0 });
});
