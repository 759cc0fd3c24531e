import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dipStatistic, dipTest } from '../../src/stats/dip-test.ts';
import { seededRandom } from '../support/random.ts';
import { lognormalSamples } from '../support/samples.ts';

const vectors = JSON.parse(readFileSync(new URL('vectors/dip.json', import.meta.url), 'utf8')) as { cases: { kind: string; x: number[]; dip: number }[] };

test('the dip agrees with the diptest package (R diptest C code) to 1e-12 on every vector', () => {
  assert.ok(vectors.cases.length > 100);
  for (const c of vectors.cases) {
    const got = dipStatistic(Float64Array.from(c.x).sort());
    assert.ok(Math.abs(got - c.dip) <= 1e-12, `${c.kind} n=${c.x.length}: ${got} vs ${c.dip}`);
  }
});

test('dip test p-values are calibrated on uniform samples (the least favourable unimodal law)', () => {
  const random = seededRandom(7);
  for (const n of [12, 30, 70]) {
    const reps = 20_000;
    let below = 0;
    for (let r = 0; r < reps; r++) if (dipTest(Array.from({ length: n }, random)).p < 0.01) below++;
    // Binomial(20000, 0.01): sd 14; allow 4 sd either way.
    assert.ok(Math.abs(below - 200) <= 56, `n=${n}: ${below} of ${reps} below 0.01`);
  }
});

test('dip test: heavy-tailed and outlier-ridden unimodal samples are not called bimodal', () => {
  let small = 0;
  for (let i = 0; i < 2000; i++) {
    const x = lognormalSamples(30, 100, 0.4, i);
    // One preempted round in three, far out: a tail, not a second cluster.
    x[i % 30] *= 3;
    if (dipTest(x).p < 0.01) small++;
  }
  assert.ok(small <= 20, `${small} of 2000 below 0.01`);
});

test('dip test: two clusters 10% apart are found with p-values small enough for a large family', () => {
  // Balanced modes clear a 20,000-test family at 30 values; a 30% minor mode needs about 60 for a 1,000-test one.
  for (const [n, share, family] of [[30, 0.5, 20_000], [40, 0.5, 20_000], [60, 0.3, 1_000]] as const) {
    const k = Math.round(n * share);
    const x = [...lognormalSamples(n - k, 100, 0.01, n), ...lognormalSamples(k, 110, 0.01, n + 1)];
    const { dip, p } = dipTest(x);
    assert.ok(p < 0.05 / family, `n=${n} share=${share}: dip ${dip}, p ${p}`);
  }
  assert.deepEqual(dipTest([1, 2, 3]), { dip: 0, p: 1 });
  assert.deepEqual(dipTest(Array(12).fill(5)), { dip: 0, p: 1 });
});

test('dip test: rounded values on neighbouring levels are one mode, not two', () => {
  // Counters and coarse timers: two or five adjacent levels, many ties.
  assert.ok(dipTest([7, 7, 7, 8, 8, 8, 8, 8, 8, 7, 7, 8, 9, 8, 7, 8, 8, 7, 8, 8]).p > 0.5);
  assert.ok(dipTest(Array.from({ length: 40 }, (_, i) => [0, 1, 1, 2, 2, 2, 3, 3, 4][i % 9])).p > 0.5);
  // An empty level between two groups is a gap, and is seen.
  assert.ok(dipTest([...Array(20).fill(10), ...Array(20).fill(20), 11, 19]).p < 1e-6);
});
