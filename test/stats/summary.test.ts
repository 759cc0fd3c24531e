import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { bimodality } from '../../src/stats/bimodality.ts';
import { geometricMean } from '../../src/stats/geometric-mean.ts';
import { mannKendall } from '../../src/stats/mann-kendall.ts';
import { robustCv } from '../../src/stats/robust-cv.ts';
import { seededRandom } from '../support/random.ts';

// Vectors from scripts/stats-vectors.py: scipy.stats.gmean, median_abs_deviation(scale="normal"),
// skew/kurtosis(bias=False), kendalltau(range(n), x, method="asymptotic"), and numpy Mann-Kendall.
interface Vectors {
  geometricMean: { x: number[]; value: number }[];
  robustCv: { x: number[]; value: number }[];
  bimodality: { x: number[]; skewness: number; kurtosis: number; coefficient: number }[];
  mannKendall: { x: number[]; s: number; variance: number; p: number; pNoContinuity: number }[];
}
const vectors = (JSON.parse(readFileSync(new URL('vectors/summary.json', import.meta.url), 'utf8')) as { cases: Vectors }).cases;
const close = (a: number | null, b: number) => a !== null && (a === b || Math.abs(a - b) <= 1e-9 * Math.abs(b) || Math.abs(a - b) <= 1e-14);

test('geometricMean matches scipy.stats.gmean; null where the log mean is undefined', () => {
  for (const c of vectors.geometricMean) assert.ok(close(geometricMean(c.x), c.value), `${geometricMean(c.x)} vs ${c.value}`);
  assert.equal(geometricMean([]), null);
  assert.equal(geometricMean([1, 0]), null);
  assert.equal(geometricMean([1, -2]), null);
  assert.equal(geometricMean([2, 0.5]), 1);
});

test('robustCv matches scipy median_abs_deviation(scale="normal") / |median|', () => {
  for (const c of vectors.robustCv) assert.ok(close(robustCv(c.x), c.value), `${robustCv(c.x)} vs ${c.value}`);
  assert.equal(robustCv([]), null);
  assert.equal(robustCv([0, 0, 1]), null);
  assert.equal(robustCv([5]), 0);
});

test('bimodality coefficient matches scipy skew/kurtosis(bias=False)', () => {
  for (const c of vectors.bimodality) {
    const b = bimodality(c.x);
    assert.ok(close(b.skewness, c.skewness) && close(b.kurtosis, c.kurtosis) && close(b.coefficient, c.coefficient), `n ${c.x.length}: ${b.coefficient} vs ${c.coefficient}`);
  }
  assert.deepEqual(bimodality([1, 2, 3]), { coefficient: null, skewness: null, kurtosis: null, minorShare: 0, bimodal: false });
  assert.equal(bimodality([4, 4, 4, 4, 4]).coefficient, null);
});

test('bimodality flags two modes and leaves unimodal timing shapes alone', () => {
  const random = seededRandom(21);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const rate = (gen: () => number, n: number) => {
    let flagged = 0;
    for (let t = 0; t < 500; t++) if (bimodality(Array.from({ length: n }, gen)).bimodal) flagged++;
    return flagged / 500;
  };
  const twoModes = () => (random() < 0.5 ? 100 : 112) + normal();
  const lopsided = () => (random() < 0.75 ? 100 : 115) + normal();
  const gaussian = () => 100 + normal();
  const lognormal = () => 100 * Math.exp(0.2 * normal());
  const withOutliers = () => 100 + normal() + (random() < 0.05 ? 30 : 0);
  const uniform = () => 100 + random();
  for (const n of [20, 30]) {
    assert.ok(rate(twoModes, n) > 0.9, `two modes n ${n}: ${rate(twoModes, n)}`);
    assert.ok(rate(lopsided, n) > 0.6, `lopsided modes n ${n}`);
    assert.ok(rate(gaussian, n) < 0.02, `gaussian n ${n}`);
    assert.ok(rate(lognormal, n) < 0.05, `lognormal n ${n}`);
    assert.ok(rate(withOutliers, n) < 0.1, `outliers n ${n}: ${rate(withOutliers, n)}`);
    assert.ok(rate(uniform, n) < 0.6, `uniform n ${n}: ${rate(uniform, n)} (documented blind spot)`);
  }
  assert.equal(bimodality([1, 1, 1, 1, 9, 9, 9, 9]).bimodal, false, 'too few values to flag');
});

test('mannKendall matches numpy S/variance and kendalltau p (without continuity correction)', () => {
  for (const c of vectors.mannKendall) {
    const classic = mannKendall(c.x);
    const plain = mannKendall(c.x, { continuity: false });
    assert.equal(classic.s, c.s);
    assert.ok(close(classic.variance, c.variance));
    assert.ok(close(classic.p, c.p), `continuity p ${classic.p} vs ${c.p}`);
    assert.ok(close(plain.p, c.pNoContinuity), `kendalltau p ${plain.p} vs ${c.pNoContinuity}`);
  }
  assert.deepEqual(mannKendall([3, 1]), { s: -1, variance: 1, z: 0, p: 1 });
  assert.equal(mannKendall([2, 2, 2, 2]).p, 1);
  assert.ok(mannKendall(Array.from({ length: 20 }, (_, i) => 100 - i + (i % 3))).p < 1e-4);
});
