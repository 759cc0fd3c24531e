import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAb } from '../../src/runner/run-ab.ts';
import { renderRunReport } from '../../src/report/run-report.ts';
import { samplesJson } from '../../src/jobs/results-artifact.ts';
import { createExecutor } from '../../src/runner/executor.ts';
import { silentProgress } from '../../src/runner/progress.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

// A run's verdicts come from looks at 10, 15, 20 ... rounds, each tested at
// its own alpha. `compare --run-report` takes the overall alpha and the look
// schedule from the run's JSON report and replays the looks on the raw
// rounds, so the run's verdicts are reproduced anywhere; plain `compare`
// tests the pooled rounds once at the overall alpha.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

test('compare --run-report reproduces every verdict of a run from its raw rounds and its JSON report', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.03 });
  const settings = {
    repo: repo.dir, base: 'base', head: 'head', bench: './bench.sh', build: './build.sh', minRuns: 10, maxRuns: 20, warmup: 1,
    threshold: 0.02, alpha: 0.05, rules: [], roundTimeoutMs: 10_000, buildTimeoutMs: 30_000, seed: 7, counters: false,
    allowDirty: false, stateDir: join(repo.dir, '.benchbot'), labels: [], maxFailedRounds: 3,
  };
  // Noise of 4% around a 3% slowdown: not every comparison is decided at the first look.
  process.env.BENCH_NOISE = '0.04';
  let result;
  try {
    result = await runAb(settings, { executor: createExecutor({ kind: 'local' }), progress: silentProgress, now: () => '2026-11-23T00:00:00.000Z' });
  } finally {
    delete process.env.BENCH_NOISE;
  }
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-run-report-'));
  writeFileSync(join(dir, 'report.json'), renderRunReport(result, 'json'));
  writeFileSync(join(dir, 'base.json'), samplesJson(result.base));
  writeFileSync(join(dir, 'head.json'), samplesJson(result.head));
  const compare = spawnSync(process.execPath, [BIN, 'compare', 'base.json', 'head.json', '--run-report', 'report.json', '--output', 'json'], { cwd: dir, encoding: 'utf8' });
  assert.notEqual(compare.status, 2, compare.stderr);
  const replayed = JSON.parse(compare.stdout);
  const key = (c: { benchmark: string; metric: string }) => `${c.benchmark} ${c.metric}`;
  const run = new Map(result.report.comparisons.map((c) => [key(c), c]));
  assert.equal(replayed.comparisons.length, run.size);
  for (const c of replayed.comparisons) {
    const original = run.get(key(c));
    assert.ok(original, key(c));
    assert.equal(c.verdict, original.verdict, `${key(c)}: the run said ${original.verdict}`);
    assert.equal(c.ratio, original.ratio, key(c));
    assert.deepEqual(c.ratio_ci, original.ratioCi, key(c));
  }
  assert.equal(replayed.alpha, result.report.alpha, 'the last look\'s alpha, as the run reported it');
  assert.equal(replayed.overall_alpha, 0.05);
  const bad = spawnSync(process.execPath, [BIN, 'compare', 'base.json', 'head.json', '--run-report', 'base.json'], { cwd: dir, encoding: 'utf8' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--run-report base\.json: not a run's JSON report/);
});

test('compare --run-report re-judges a benchmark stopped for futility as the run did, and names it', async () => {
  // parse 2% slower at 6% noise keeps the run going to its budget; hash stops for futility at the first look and is
  // decided on the rounds measured for parse (the fixture's noise is seeded per round: the same rounds every time).
  const repo = makeFixtureRepo({ headFactor: 1.02 });
  const settings = {
    repo: repo.dir, base: 'base', head: 'head', bench: './bench.sh', build: './build.sh', minRuns: 5, maxRuns: 10, warmup: 1,
    threshold: 0.02, alpha: 0.05, rules: [], roundTimeoutMs: 10_000, buildTimeoutMs: 30_000, seed: 7, counters: false,
    allowDirty: false, stateDir: join(repo.dir, '.benchbot'), labels: [], maxFailedRounds: 3,
  };
  process.env.BENCH_NOISE = '0.06';
  let result;
  try {
    result = await runAb(settings, { executor: createExecutor({ kind: 'local' }), progress: silentProgress, now: () => '2026-11-23T00:00:00.000Z' });
  } finally {
    delete process.env.BENCH_NOISE;
  }
  const hash = result.report.comparisons.find((c) => c.benchmark === 'hash');
  assert.deepEqual([hash?.verdict, hash?.decidedAt, hash?.futileAt], ['unchanged', 10, 5]);
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-run-report-'));
  writeFileSync(join(dir, 'report.json'), renderRunReport(result, 'json'));
  writeFileSync(join(dir, 'base.json'), samplesJson(result.base));
  writeFileSync(join(dir, 'head.json'), samplesJson(result.head));
  const run = (output: string) => spawnSync(process.execPath, [BIN, 'compare', 'base.json', 'head.json', '--run-report', 'report.json', '--output', output], { cwd: dir, encoding: 'utf8' });
  const json = run('json');
  assert.notEqual(json.status, 2, json.stderr);
  const rows = (comparisons: { benchmark: string; verdict: string; decided_at?: number; futile_at?: number }[]) => comparisons.map((c) => [c.benchmark, c.verdict, c.decided_at, c.futile_at]);
  const own = JSON.parse(renderRunReport(result, 'json')) as { comparisons: { benchmark: string; verdict: string; decided_at?: number; futile_at?: number }[] };
  assert.deepEqual(rows(JSON.parse(json.stdout).comparisons), rows(own.comparisons));
  assert.match(run('text').stdout, /decided on rounds measured for others, after their own futility stop: hash \(time\) unchanged at 10, futile at 5/);
  assert.match(run('markdown').stdout, /Decided on rounds measured for others, after their own futility stop: hash \(time\) unchanged at 10, futile at 5\./);
});
