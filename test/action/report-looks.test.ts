/**
 * The report job replays the measuring job's looks: the same raw samples
 * give the same verdicts at the same per-look alpha, with the look schedule
 * derived from the report job's own settings (min-runs, max-runs, alpha) and
 * the rounds in the samples, never from a field of the artifact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFixtureRepo } from '../support/fixture-repo.ts';
import { runStep } from './run-step.ts';
import { lognormalSamples } from '../support/samples.ts';

interface JsonRow { benchmark: string; metric: string; verdict: string; decided_at?: number; futile_at?: number }
interface JsonReport { alpha: number; overall_alpha?: number; comparisons: JsonRow[]; summary: Record<string, number> }

async function measureThenReport(headFactor: number, noise: string, settings: Record<string, string>) {
  const repo = makeFixtureRepo({ headFactor });
  const work = mkdtempSync(join(tmpdir(), 'benchbot-looks-'));
  const env = { PATH: process.env.PATH ?? '', HOME: work, GITHUB_WORKSPACE: repo.dir, RUNNER_TEMP: join(work, 'measure'), BENCHBOT_LOCK: join(work, 'lock'), BENCH_NOISE: noise };
  const measured = await runStep({ bench: './bench.sh', build: './build.sh', format: 'plain', base: repo.baseSha, head: repo.headSha, store: 'none', 'max-load': '1000', ...settings }, env);
  assert.equal(measured.code, 0, measured.lines.join('\n'));
  const artifact = measured.outputs['artifact-path'];
  // The artifact's own report says the overall alpha was 0.5 and every look at 0.5: the report job must not listen.
  const own = JSON.parse(readFileSync(join(artifact, 'report.json'), 'utf8')) as JsonReport & Record<string, unknown>;
  writeFileSync(join(artifact, 'report.json'), JSON.stringify({ ...own, alpha: 0.5, overall_alpha: 0.5, looks: [{ rounds_per_side: 2, alpha: 0.5 }], max_rounds_per_side: 2 }));
  const summary = join(work, 'summary.md');
  writeFileSync(summary, '');
  const reported = await runStep({ merge: artifact, head: repo.headSha, base: repo.baseSha, 'github-token': '', ...settings }, { HOME: work, RUNNER_TEMP: join(work, 'report'), GITHUB_STEP_SUMMARY: summary });
  assert.equal(reported.code, 0, reported.lines.join('\n'));
  const recomputed = JSON.parse(readFileSync(join(reported.outputs['artifact-path'], 'report.json'), 'utf8')) as JsonReport;
  return { own, recomputed, summary: readFileSync(summary, 'utf8'), measured };
}

const verdicts = (r: JsonReport) => r.comparisons.map((c) => `${c.benchmark} ${c.metric}: ${c.verdict}@${c.decided_at ?? '-'}`).sort();

test('same raw samples: the report job\'s verdicts and per-look alpha are the measuring job\'s', { timeout: 180_000 }, async () => {
  // parse 3% slower with 0.5% noise: decided at the first look (10 rounds per side), at that look's alpha, not at 0.05.
  const { own, recomputed, summary } = await measureThenReport(1.03, '0.005', { 'min-runs': '10', 'max-runs': '40' });
  assert.ok(own.alpha < 0.05, `the measuring job decided at a per-look alpha below 0.05, not ${own.alpha}`);
  assert.deepEqual(verdicts(recomputed), verdicts(own));
  assert.equal(recomputed.alpha, own.alpha);
  assert.equal(recomputed.overall_alpha, 0.05);
  assert.equal(recomputed.summary.regressed, 1);
  // The footer explains the split alpha, as the measuring job's does.
  assert.match(summary, /this look was tested at alpha 0\.018/);
});

test('a benchmark stopped for futility and decided on the rounds measured for others: the report job re-judges it the same way and says so', { timeout: 180_000 }, async () => {
  // Seeded rounds, one line per call of the bench command (the first is the warm-up): `keeper` 1.5% slower at 1.5%
  // noise keeps the rounds going; `slow` 10% slower, its first 10 rounds at 50% noise (a busy machine), then quiet.
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const work = mkdtempSync(join(tmpdir(), 'benchbot-looks-'));
  const busyThenQuiet = (center: number, s: number) => [...lognormalSamples(10, center, 0.5, s), ...lognormalSamples(30, center, 0.02, s + 1000)];
  const rounds = (keeper: number[], slow: number[]) => ['keeper: 100 us|slow: 100 us', ...keeper.map((k, i) => `keeper: ${k} us|slow: ${slow[i]} us`)].join('\n');
  writeFileSync(join(work, 'base.txt'), `${rounds(lognormalSamples(40, 100, 0.015, 31), busyThenQuiet(100, 32))}\n`);
  writeFileSync(join(work, 'head.txt'), `${rounds(lognormalSamples(40, 101.5, 0.015, 33), busyThenQuiet(110, 34))}\n`);
  // slow.txt says which side this worktree is; .round counts the calls.
  writeFileSync(join(work, 'bench.sh'), `#!/bin/sh\nn=$(cat .round 2>/dev/null || echo 0); n=$((n+1)); echo $n > .round\nside=base; [ "$(cat slow.txt)" = 1 ] || side=head\nsed -n "\${n}p" ${work}/$side.txt | tr '|' '\\n'\n`);
  chmodSync(join(work, 'bench.sh'), 0o755);
  const env = { PATH: process.env.PATH ?? '', HOME: work, GITHUB_WORKSPACE: repo.dir, RUNNER_TEMP: join(work, 'measure'), BENCHBOT_LOCK: join(work, 'lock') };
  const settings = { 'min-runs': '10', 'max-runs': '40' };
  const measured = await runStep({ bench: join(work, 'bench.sh'), build: './build.sh', format: 'plain', base: repo.baseSha, head: repo.headSha, store: 'none', 'max-load': '1000', ...settings }, env);
  assert.equal(measured.code, 0, measured.lines.join('\n'));
  const artifact = measured.outputs['artifact-path'];
  const own = JSON.parse(readFileSync(join(artifact, 'report.json'), 'utf8')) as JsonReport;
  const summary = join(work, 'summary.md');
  writeFileSync(summary, '');
  const reported = await runStep({ merge: artifact, head: repo.headSha, base: repo.baseSha, 'github-token': '', ...settings }, { HOME: work, RUNNER_TEMP: join(work, 'report'), GITHUB_STEP_SUMMARY: summary });
  assert.equal(reported.code, 0, reported.lines.join('\n'));
  const recomputed = JSON.parse(readFileSync(join(reported.outputs['artifact-path'], 'report.json'), 'utf8')) as JsonReport;
  const rows = (r: JsonReport) => r.comparisons.map((c) => `${c.benchmark} ${c.metric}: ${c.verdict}@${c.decided_at ?? '-'} futile@${c.futile_at ?? '-'}`).sort();
  const slow = own.comparisons.find((c) => c.benchmark === 'slow');
  assert.equal(slow?.futile_at, 10, 'slow stopped for futility at the first look');
  assert.equal(slow?.verdict, 'regressed', 'and was found on the rounds measured for keeper');
  assert.deepEqual(rows(recomputed), rows(own));
  assert.match(readFileSync(summary, 'utf8'), new RegExp(`decided on rounds measured for others, after their own futility stop: slow \\(time\\) regressed at ${slow?.decided_at}, futile at 10`));
});
