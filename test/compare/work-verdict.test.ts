import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeWork, MIN_AGREEING_REPEATS, SET_ASIDE_FROM, setAsideFarthest, WORK_AGREEMENT } from '../../src/compare/work-verdict.ts';
import { compareRuns, DEFAULT_COMPARE_OPTIONS, DEFAULT_WORK_THRESHOLD, defaultWorkThreshold, HARNESS_WORK_THRESHOLDS, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { seededRandom } from '../support/random.ts';
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

test('a zero count among 5 repeats is not set aside: a broken count is said, not hidden', () => {
  const j = judgeWork([0, 100, 100, 100, 100], [100, 100, 100, 100, 100], theta);
  assert.equal(j.verdict, 'inconclusive');
  assert.equal(j.setAside, undefined);
  assert.match(j.reason ?? '', /zero/);
});

test(`from ${SET_ASIDE_FROM} repeats a side sets aside the one farthest from its median in ratio terms, the higher on a tie`, () => {
  assert.equal(SET_ASIDE_FROM, 5);
  // 92 is 8% below the median, 101 1% above: 92 goes, wherever it stands.
  assert.deepEqual(setAsideFarthest([100, 101, 92, 100.5, 100.2]), { kept: [100, 101, 100.5, 100.2], setAside: 92 });
  // In ratio terms, not differences: 90 is 1/0.9 = 11.1% from 100, 110.5 only 10.5%, though 10.5 > 10 apart.
  assert.equal(setAsideFarthest([90, 100, 100, 100, 110.5]).setAside, 90);
  // 50 and 200 are both a factor 2 from 100: the higher goes, in either order.
  assert.equal(setAsideFarthest([50, 100, 100, 100, 200]).setAside, 200);
  assert.equal(setAsideFarthest([200, 100, 50, 100, 100]).setAside, 200);
  // Through judgeWork: only the side that set one aside says so, and spread is that of the repeats kept.
  const j = judgeWork([100, 101, 92, 100.5, 100.2], [100, 100, 100], 0.02);
  assert.deepEqual(j.setAside, { base: 92 });
  assert.ok(Math.abs(j.spread.base - (101 / 100 - 1)) < 1e-12, `base spread ${j.spread.base}`);
  const both = judgeWork([100, 101, 92, 100.5, 100.2], [100, 100, 100, 100, 107], 0.02);
  assert.deepEqual(both.setAside, { base: 92, head: 107 });
  assert.deepEqual(both.spread.head, 0);
});

test('with 4 repeats nothing is set aside: an outlier of 4 still makes the side disagree', () => {
  const base = [1_000_000, 1_000_500, 999_800, 1_080_000];
  const head = [1_000_200, 999_900, 1_000_100, 1_000_000];
  const four = judgeWork(base, head, 0.01);
  assert.equal(four.setAside, undefined);
  assert.equal(four.verdict, 'inconclusive');
  assert.ok(four.spread.base > 0.07, 'the 8% repeat is judged');
  // A fifth repeat on each side: the 8% one is set aside and the rest agree.
  const five = judgeWork([...base, 1_000_300], [...head, 1_000_400], 0.01);
  assert.deepEqual(five.setAside, { base: 1_080_000, head: 1_000_400 });
  assert.equal(five.verdict, 'unchanged');
});

test('5 repeats with one 8% outlier are unchanged at 1% when the others agree; a real +2% on all 5 is still regressed', () => {
  const base = [4_012_018, 4_013_100, 4_011_700, 4_012_500, 4_012_018];
  const head = [4_012_300, 4_011_900, 4_012_018 * 1.08, 4_012_700, 4_012_100];
  const j = judgeWork(base, head, 0.01);
  assert.equal(j.verdict, 'unchanged');
  assert.equal(j.setAside?.head, 4_012_018 * 1.08);
  assert.ok(Math.abs((j.ratio as number) - 1) < 0.001, `ratio ${j.ratio}`);
  // Judged whole, the same repeats are undecided: the outlier puts a pair 8% apart.
  assert.equal(judgeWork(base, head, 0.01, Infinity).verdict, 'inconclusive');
  // +2% on every repeat of head, one outlier on each side: the change is not what is set aside.
  const up = judgeWork([...base.slice(0, 4), 4_012_018 * 0.93], base.map((v, i) => (i === 1 ? v * 1.02 * 1.09 : v * 1.02)), 0.01);
  assert.equal(up.verdict, 'regressed');
  assert.ok(up.setAside?.base !== undefined && up.setAside.head !== undefined, 'both outliers set aside');
  assert.ok(Math.abs((up.ratio as number) - 1.02) < 0.001, `ratio ${up.ratio}`);
  assert.equal(judgeWork(base, base.map((v) => v * 1.02), 0.01).verdict, 'regressed');
});

/**
 * layoutRepeats draws n counts as a CPython benchmark counted in n memory
 * layouts: each repeat independently lands in an outlying layout with
 * probability 1/7 (one of the 7 layouts measured on pint) and then moves by
 * the benchmark's own `jump`; otherwise it has 0.2% Gaussian noise.
 */
function layoutRepeats(random: () => number, n: number, jump: number): { values: number[]; jumped: number } {
  const values: number[] = [];
  let jumped = 0;
  for (let i = 0; i < n; i++) {
    const u = Math.max(random(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    const out = random() < 1 / 7;
    if (out) jumped += 1;
    values.push(1e6 * (1 + 0.002 * z) * (out ? 1 + jump : 1));
  }
  return { values, jumped };
}

test('A/A across memory layouts: 5 repeats per side with the farthest set aside stay unchanged where judging all 5 is undecided', (t) => {
  const trials = 4000;
  const threshold = 0.01;
  const tally = (from: number) => {
    const random = seededRandom(20_261_129); // the same draws for both rules
    const counts = { unchanged: 0, undecided: 0, changed: 0, changedWithoutMostJumped: 0 };
    for (let i = 0; i < trials; i++) {
      // A benchmark's outlying layout moves it by a fixed 3-9%, up or down.
      const jump = (random() < 0.5 ? -1 : 1) * (0.03 + 0.06 * random());
      const base = layoutRepeats(random, 5, jump);
      const head = layoutRepeats(random, 5, jump);
      const verdict = judgeWork(base.values, head.values, threshold, from).verdict;
      if (verdict === 'unchanged') counts.unchanged += 1;
      else if (verdict === 'inconclusive') counts.undecided += 1;
      else {
        counts.changed += 1;
        if (Math.max(base.jumped, head.jumped) < 4) counts.changedWithoutMostJumped += 1;
      }
    }
    return counts;
  };
  const aside = tally(SET_ASIDE_FROM);
  const whole = tally(Infinity);
  t.diagnostic(`set aside: ${aside.unchanged} unchanged, ${aside.undecided} undecided, ${aside.changed} false changes of ${trials}`);
  t.diagnostic(`judged whole: ${whole.unchanged} unchanged, ${whole.undecided} undecided, ${whole.changed} false changes of ${trials}`);
  // A false change needs 4 or 5 of a side's 5 layouts to jump (then the one set aside is the ordinary one):
  // about 0.37% of comparisons (2 x (5 x (1/7)^4 x 6/7 + (1/7)^5)), 15 in 4,000; twice that is the bound.
  assert.equal(aside.changedWithoutMostJumped, 0, 'no false change while most of a side was in ordinary layouts');
  assert.ok(aside.changed <= 30, `${aside.changed} false changes in ${trials}`);
  // Undecided only when a side has 2 or more outlying layouts: about 28% (1 - (1 - 0.152)^2).
  assert.ok(aside.undecided <= 0.32 * trials, `${aside.undecided} undecided in ${trials}`);
  // Judging every repeat, any outlying layout (79% of comparisons) leaves it undecided: at least twice as many not unchanged.
  assert.ok(whole.undecided + whole.changed >= 2 * (aside.undecided + aside.changed), `whole ${whole.undecided + whole.changed}, set aside ${aside.undecided + aside.changed}`);
  assert.ok(aside.unchanged >= 3 * whole.unchanged, `unchanged: set aside ${aside.unchanged}, whole ${whole.unchanged}`);
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

test('compareRuns carries the repeat set aside into the comparison: each side its median and range of the rest, n every repeat', () => {
  const base = side([count('layout', 'instructions', [2_000_000, 2_000_400, 2_000_200, 1_999_900, 2_000_100])]);
  const head = side([count('layout', 'instructions', [2_000_300, 2_000_000, 2_170_000, 2_000_200, 1_999_800])]);
  const c = compareRuns(base, head).comparisons[0];
  assert.equal(c.verdict, 'unchanged');
  assert.deepEqual(c.setAside, { base: 2_000_400, head: 2_170_000 });
  assert.deepEqual(c.head, { n: 5, median: 2_000_100, ci: [1_999_800, 2_000_300] }, 'the 8.5% repeat is out of the median and the range');
  assert.deepEqual(c.base?.ci, [1_999_900, 2_000_200]);
  assert.equal(c.ratio, 2_000_100 / 2_000_050);
  // 3 repeats: nothing set aside, the field absent.
  const three = compareRuns(side([count('x', 'instructions', [5, 5, 5])]), side([count('x', 'instructions', [5, 5, 5])])).comparisons[0];
  assert.equal(three.setAside, undefined);
});

test('a report without work metrics has no work threshold', () => {
  const report = compareRuns(side([{ benchmark: 'a', metric: 'real_time', unit: 'ns', better: 'lower', values: [1, 2, 3] }]), side([{ benchmark: 'a', metric: 'real_time', unit: 'ns', better: 'lower', values: [1, 2, 3] }]));
  assert.equal(report.workThreshold, undefined);
});

test('defaultWorkThreshold: 1% for pytest-benchmark (CPython\'s count moves with the memory layout), 0.5% for every other harness and an unknown one', () => {
  assert.equal(defaultWorkThreshold('pytest-benchmark'), 0.01);
  assert.equal(HARNESS_WORK_THRESHOLDS['pytest-benchmark'], defaultWorkThreshold('pytest-benchmark'), 'the table is the one place');
  for (const compiled of ['google-benchmark', 'go', 'criterion', 'command', 'benchbot', undefined]) assert.equal(defaultWorkThreshold(compiled), DEFAULT_WORK_THRESHOLD, String(compiled));
  // A harness name comes from the results: a name on Object's prototype is no harness.
  for (const inherited of ['constructor', 'toString', '__proto__']) assert.equal(defaultWorkThreshold(inherited), DEFAULT_WORK_THRESHOLD, inherited);
});

test('compareRuns: without a work threshold, counted work is judged at its harness\'s default; one given wins', () => {
  // +0.8%: beyond the 0.5% of compiled harnesses, within pytest-benchmark's 1%.
  const base = [1_000_000, 1_000_000, 1_000_000];
  const sides = (harness?: string) => [base, base.map((v) => v * 1.008)].map((values) => ({ ...side([count('test_x', 'instructions', values)]), ...(harness ? { harness } : {}) }));
  const judge = (harness: string | undefined, options = DEFAULT_COMPARE_OPTIONS) => {
    const [b, h] = sides(harness);
    const report = compareRuns(b, h, options);
    return [report.workThreshold, report.comparisons[0].verdict];
  };
  assert.deepEqual(judge('pytest-benchmark'), [0.01, 'unchanged']);
  assert.deepEqual(judge('go'), [DEFAULT_WORK_THRESHOLD, 'regressed']);
  assert.deepEqual(judge(undefined), [DEFAULT_WORK_THRESHOLD, 'regressed']);
  assert.deepEqual(judge('pytest-benchmark', { ...DEFAULT_COMPARE_OPTIONS, workThreshold: 0.005 }), [0.005, 'regressed']);
  // One side's harness unknown (its rounds failed): the other's decides.
  const [b, h] = sides('pytest-benchmark');
  assert.equal(compareRuns({ ...b, harness: undefined }, h).workThreshold, 0.01);
});
