import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCriterionCache, criterionBench, criterionEnv, criterionMissing, makeCriterionRepo } from '../support/criterion-project.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// `benchbot run --instructions` through the public CLI on a generated git
// repository of a real criterion crate (the README's recipe: cargo bench
// with criterion's options and a filter, --result-file target/criterion)
// whose head makes `hash` do 1% more work: the counts decide `hash`
// regressed in one session of 3 repeats per side, the untouched benchmarks
// unchanged, and the profile of the regression names `hash` first.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

const missing = criterionMissing();

test('run --instructions on a criterion crate finds 1% more work in hash and names the function', { skip: missing ?? false, timeout: 120_000 }, async (t) => {
  const repo = makeCriterionRepo();
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  // Compiles criterion into the shared cache when the machine has not yet (scripts/prepare-tests.sh does it once); each side's build copies it.
  ensureCriterionCache();
  const markdown = join(repo.dir, 'comment.md');
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...criterionEnv(), BENCHBOT_LOCK: join(repo.dir, 'machine.lock'), GITHUB_ACTIONS: '', BENCHBOT_DATABASE_URL: '' };
  const run = await spawnWithProgress(process.execPath, [
    BIN, 'run', '--base', 'base', '--head', 'head', '--bench', criterionBench(), '--build', './build.sh', '--result-file', 'target/criterion',
    '--min-runs', '2', '--max-runs', '2', '--warmup', '0', '--max-load', '1000', '--no-store',
    '--instructions', '--output', 'json', '--export-markdown', markdown,
  ], { label: 'run --instructions (criterion)', cwd: repo.dir, env, timeoutMs: 115_000 });
  assert.equal(run.status, 1, `a regression exits 1: ${run.stderr}`);
  const json = JSON.parse(run.stdout) as { comparisons: { benchmark: string; metric: string; verdict: string; ratio: number; spread?: { base: number; head: number } }[]; profiles?: { benchmark: string; self: { name: string; share: number | null }[] }[] };
  const work = (benchmark: string) => json.comparisons.find((c) => c.benchmark === benchmark && c.metric === 'instructions');
  const hash = work('hash');
  assert.equal(hash?.verdict, 'regressed', JSON.stringify(hash));
  assert.ok(hash!.ratio > 1.007 && hash!.ratio < 1.02, `hash: x${hash!.ratio}`);
  assert.deepEqual(hash?.spread, { base: 0, head: 0 }, 'the three repeats of each side are equal');
  for (const benchmark of ['sort/256', 'sort/1024']) assert.equal(work(benchmark)?.verdict, 'unchanged', `${benchmark}: ${JSON.stringify(work(benchmark))}`);
  // Where: the regression's differential profile names the function that does more work first, with most of the change.
  const profile = json.profiles?.find((p) => p.benchmark === 'hash');
  assert.ok(profile, `a profile of hash: ${JSON.stringify(json.profiles)}`);
  assert.match(profile!.self[0].name, /benchbot_criterion_capture::hash/);
  assert.ok((profile!.self[0].share ?? 0) >= 0.8, `share ${profile!.self[0].share}`);
  const md = readFileSync(markdown, 'utf8');
  assert.match(md, /### benchbot: 1 regression: <code>hash<\/code> <code>instructions<\/code> \+1\.\d+%\./, 'the headline names the counted regression');
  assert.match(md, /Where <code>hash<\/code> changed: .*100\.0% of it in <code>benchbot_criterion_capture::hash<\/code>/, 'the PR comment says where');
});
