import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeWork, MIN_AGREEING_REPEATS, WORK_AGREEMENT } from '../../src/compare/work-verdict.ts';
import { compareRuns, DEFAULT_COMPARE_OPTIONS, DEFAULT_WORK_THRESHOLD, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const theta = DEFAULT_WORK_THRESHOLD;
const count = (benchmark: string, metric: string, values: number[]): Measurement => ({ benchmark, metric, unit: 'count', better: 'lower', values });
const side = (measurements: Measurement[]): CompareSide => ({ measurements, warnings: [], hints: {} });

test('counts that repeat exactly: +1% is a regression, -1% an improvement, +0.3% unchanged at the 0.5% default', () => {
  const base = [4_012_018, 4_012_018, 4_012_018];
  const up = judgeWork(base, base.map((v) => v * 1.01), theta);
  assert.equal(up.verdict, 'regressed');
  assert.ok(Math.abs((up.ratio as number) - 1.01) < 1e-12);
  assert.deepEqual(up.spread, { base: 0, head: 0 });
  assert.equal(judgeWork(base, base.map((v) => v * 0.99), theta).verdict, 'improved');
  assert.equal(judgeWork(base, base.map((v) => v * 1.003), theta).verdict, 'unchanged');
  assert.equal(judgeWork(base, base, theta).verdict, 'unchanged');
  // The threshold is the caller's: at 2%, +1% is within it.
  assert.equal(judgeWork(base, base.map((v) => v * 1.01), 0.02).verdict, 'unchanged');
});

test('a change beyond the threshold with a side whose repeats spread more than a quarter of it is undecided, with the reason', () => {
  const base = [1_000_000, 1_000_000, 1_000_000];
  const head = [1_010_000, 1_013_000, 1_020_000]; // +1.3% median, spread 1.0%: more than a quarter of the change
  const j = judgeWork(base, head, theta);
  assert.equal(j.verdict, 'inconclusive');
  assert.match(j.reason ?? '', /^repeats disagree: head spread 0\.99% against a change of \+1\.30%$/);
  // The same change with a spread of a fifth of it agrees.
  const tight = judgeWork(base, [1_012_000, 1_013_000, 1_014_500], theta);
  assert.ok(Math.log(1.0145 / 1.012) <= WORK_AGREEMENT * Math.log(1.013));
  assert.equal(tight.verdict, 'regressed');
});

test('a small change with repeats too far apart to call it unchanged is undecided, and says so', () => {
  const j = judgeWork([100_000, 100_400, 100_800], [100_100, 100_200, 100_300], theta);
  assert.equal(j.verdict, 'inconclusive');
  assert.match(j.reason ?? '', /^repeats disagree: base spread 0\.8%, head spread 0\.2%: too far apart to call -0\.2% unchanged at ±0\.5%$/);
});

test(`fewer than ${MIN_AGREEING_REPEATS} repeats agree only when equal; one repeat decides nothing`, () => {
  assert.equal(judgeWork([500, 500], [510, 510], theta).verdict, 'regressed');
  const differing = judgeWork([500, 501], [510, 510], theta);
  assert.equal(differing.verdict, 'inconclusive');
  assert.match(differing.reason ?? '', /2 repeats on base differ by 0\.2% \(3 needed when they differ\)/);
  const one = judgeWork([500], [510, 510, 510], theta);
  assert.equal(one.verdict, 'inconclusive');
  assert.match(one.reason ?? '', /one repeat on base/);
  // Two unequal repeats can still show a change is within the threshold: every pair is.
  assert.equal(judgeWork([500, 501], [500, 500], theta).verdict, 'unchanged');
});

test('a zero count has no ratio and is undecided with a reason, never a crash', () => {
  const j = judgeWork([0, 0, 0], [10, 10, 10], theta);
  assert.equal(j.verdict, 'inconclusive');
  assert.equal(j.ratio, null);
  assert.match(j.reason ?? '', /zero/);
});

test('A/A under noise of any size: 3 repeats per side find a change in under 1 in 1,000 benchmarks', (t) => {
  for (const cv of [0.001, 0.003, 0.005, 0.01, 0.03]) {
    let found = 0;
    const trials = 4000;
    for (let i = 0; i < trials; i++) {
      const j = judgeWork(lognormalSamples(3, 1e6, cv, 2 * i + 1), lognormalSamples(3, 1e6, cv, 2 * i + 2), theta);
      if (j.verdict === 'regressed' || j.verdict === 'improved') found += 1;
    }
    t.diagnostic(`noise ${cv * 100}%: ${found} of ${trials} A/A comparisons called a change`);
    assert.ok(found <= trials / 1000, `noise ${cv}: ${found} false findings in ${trials}`);
  }
});

test('compareRuns decides work metrics by their repeats, in a family of their own outside the FDR, next to the time', () => {
  const base = side([
    count('BM_Hash', 'instructions', [3_932_260, 3_932_260, 3_932_260]),
    count('BM_Hash', 'estimated_cycles', [4_700_000, 4_700_000, 4_700_000]),
    { benchmark: 'BM_Hash', metric: 'real_time', unit: 'ns', better: 'lower', values: lognormalSamples(10, 74_500, 0.2, 1) },
  ]);
  const head = side([
    count('BM_Hash', 'instructions', [3_971_560, 3_971_560, 3_971_560]),
    count('BM_Hash', 'estimated_cycles', [4_700_100, 4_700_100, 4_700_100]),
    { benchmark: 'BM_Hash', metric: 'real_time', unit: 'ns', better: 'lower', values: lognormalSamples(10, 75_200, 0.2, 2) },
  ]);
  const report = compareRuns(base, head);
  const instructions = report.comparisons.find((c) => c.metric === 'instructions');
  const cycles = report.comparisons.find((c) => c.metric === 'estimated_cycles');
  const time = report.comparisons.find((c) => c.metric === 'real_time');
  assert.ok(instructions && cycles && time);
  assert.equal(instructions.verdict, 'regressed');
  assert.equal(instructions.decision, 'counted');
  assert.equal(instructions.family, 'work');
  assert.equal(instructions.p, null);
  assert.equal(instructions.q, null);
  assert.equal(instructions.threshold, DEFAULT_WORK_THRESHOLD);
  assert.deepEqual(instructions.base?.ci, [3_932_260, 3_932_260], 'a side shows the range of its repeats');
  assert.deepEqual(instructions.spread, { base: 0, head: 0 });
  assert.equal(cycles.verdict, 'unchanged');
  assert.equal(time.family, 'primary', 'the time keeps its family');
  assert.deepEqual(report.families, { primary: 1, secondary: 0 }, 'work metrics join no FDR family');
  assert.equal(report.workThreshold, DEFAULT_WORK_THRESHOLD);
  assert.ok(!instructions.warnings.some((w) => w.startsWith('too few samples')), 'no timing hygiene for counts');
  // The work threshold is an option of its own; the time threshold does not move it.
  const coarse = compareRuns(base, head, { ...DEFAULT_COMPARE_OPTIONS, workThreshold: 0.02 });
  assert.equal(coarse.comparisons.find((c) => c.metric === 'instructions')?.verdict, 'unchanged');
  const timeOnly = compareRuns(base, head, { ...DEFAULT_COMPARE_OPTIONS, threshold: 0.2, rules: [{ glob: 'BM_*', threshold: 0.5 }] });
  assert.equal(timeOnly.comparisons.find((c) => c.metric === 'instructions')?.verdict, 'regressed');
});

test('a report without work metrics has no work threshold', () => {
  const report = compareRuns(side([{ benchmark: 'a', metric: 'real_time', unit: 'ns', better: 'lower', values: [1, 2, 3] }]), side([{ benchmark: 'a', metric: 'real_time', unit: 'ns', better: 'lower', values: [1, 2, 3] }]));
  assert.equal(report.workThreshold, undefined);
});
