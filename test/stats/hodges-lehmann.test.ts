import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hodgesLehmann, hodgesLehmannLevels, PairwiseDifferences, ratioWithCi, ratioWithCis } from '../../src/stats/hodges-lehmann.ts';
import { asymptoticPValue, chooseMethod, exactPValue, mannWhitneyU, rankSum } from '../../src/stats/mann-whitney.ts';
import { selectRanks } from '../../src/stats/order-statistics.ts';
import type { MannWhitneyMethod } from '../../src/stats/mann-whitney.ts';
import { seededRandom } from '../support/random.ts';

// Vectors from scripts/stats-vectors.py: an independent numpy implementation of
// the same definitions, with exact critical values from scipy's null distribution.
const decode = (v: number | string): number => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));
interface Result { alpha: number; option: MannWhitneyMethod; method: string; estimate: number | string; lower: number | string; upper: number | string; p: number }
const load = <T>(name: string): T[] => (JSON.parse(readFileSync(new URL(`vectors/${name}`, import.meta.url), 'utf8')) as { cases: T[] }).cases;
const samples = load<{ x: (number | string)[]; y: (number | string)[] }>('mann-whitney.json');
const cases = load<{ name: string; case: number; results: Result[] }>('hodges-lehmann.json');

function close(actual: number, expected: number, what: string): void {
  const ok = actual === expected || Math.abs(actual - expected) <= 1e-9 * Math.abs(expected) || Math.abs(actual - expected) <= 1e-12;
  assert.ok(ok, `${what}: got ${actual}, reference ${expected}`);
}

test('estimate and CI match the numpy/scipy reference on every vector', () => {
  let checked = 0;
  for (const c of cases) {
    const x = samples[c.case].x.map(decode);
    const y = samples[c.case].y.map(decode);
    for (const r of c.results) {
      const got = hodgesLehmann(x, y, { alpha: r.alpha, method: r.option });
      const what = `${c.name} alpha ${r.alpha} ${r.option}`;
      assert.equal(got.method, r.method, `${what} method`);
      close(got.estimate, decode(r.estimate), `${what} estimate`);
      close(got.lower, decode(r.lower), `${what} lower`);
      close(got.upper, decode(r.upper), `${what} upper`);
      close(got.p, r.p, `${what} p`);
      checked++;
    }
  }
  assert.ok(checked > 1000);
});

function draw(random: () => number, n: number, shift: number, lattice: number | null): number[] {
  return Array.from({ length: n }, () => {
    const v = 100 * Math.exp(0.1 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())) * shift;
    return lattice === null ? v : Math.round(v / lattice) * lattice;
  });
}

test('the CI excludes 0 exactly when the two-sided U test rejects (random samples)', () => {
  const random = seededRandom(7);
  let rejections = 0;
  let boundary = 0;
  for (let trial = 0; trial < 3000; trial++) {
    const n1 = 2 + Math.floor(random() * 59);
    const n2 = 2 + Math.floor(random() * 59);
    const shift = [1, 1, 1.01, 1.03, 1.1][Math.floor(random() * 5)];
    const lattice = [null, null, 0.5, 1, 5][Math.floor(random() * 5)];
    const alpha = [0.05, 0.01, 0.1, 0.2][Math.floor(random() * 4)];
    const method = (['auto', 'asymptotic', 'scipy'] as const)[Math.floor(random() * 3)];
    const x = draw(random, n1, 1, lattice);
    const y = draw(random, n2, shift, lattice);
    const hl = hodgesLehmann(x, y, { alpha, method });
    const test = mannWhitneyU(x, y, { method });
    const rejects = test.p <= alpha;
    assert.equal(hl.p, test.p);
    assert.equal(hl.excludesZero, rejects);
    if (rejects) rejections++;
    const closedExcludes = hl.lower > 0 || hl.upper < 0;
    if (closedExcludes !== rejects) {
      // The documented boundary case: 0 is a CI bound, which needs an x_i equal to some y_j.
      assert.ok(hl.lower === 0 || hl.upper === 0, `trial ${trial}: [${hl.lower}, ${hl.upper}] p ${test.p}`);
      assert.ok(x.some((v) => y.includes(v)));
      assert.equal(hl.method, 'asymptotic');
      boundary++;
    }
  }
  assert.ok(rejections > 300 && rejections < 2700, `${rejections} rejections: the property needs both outcomes`);
  assert.ok(boundary < 150, `${boundary} boundary cases: expected rare, and only on lattice data`);
});

test('exact CI is the set of shifts the exact test does not reject (brute force)', () => {
  const random = seededRandom(11);
  for (let trial = 0; trial < 150; trial++) {
    const n1 = 2 + Math.floor(random() * 9);
    const n2 = 2 + Math.floor(random() * 9);
    // Distinct even x, distinct odd y: no ties, every difference and midpoint exact.
    const shuffled = (parity: number) => Array.from({ length: 40 }, (_, i) => 2 * i + parity).sort(() => random() - 0.5);
    const x = shuffled(0).slice(0, n1);
    const offset = 2 * Math.floor(random() * 10);
    const y = shuffled(1).slice(0, n2).map((v) => v + offset);
    const alpha = [0.05, 0.1, 0.2][trial % 3];
    const hl = hodgesLehmann(x, y, { alpha });
    assert.equal(hl.method, 'exact');
    const diffs = [...new Set(y.flatMap((b) => x.map((a) => b - a)))].sort((a, b) => a - b);
    const probes = [diffs[0] - 1, ...diffs.slice(1).map((d, i) => (d + diffs[i]) / 2), diffs[diffs.length - 1] + 1];
    for (const d of probes) {
      const accepted = mannWhitneyU(x, y.map((v) => v - d), { method: 'exact' }).p > alpha;
      assert.equal(accepted, d > hl.lower && d < hl.upper, `trial ${trial} shift ${d} CI [${hl.lower}, ${hl.upper}]`);
    }
  }
});

test('edge cases: n = 1 per side is unbounded, identical samples give [0, 0]', () => {
  const one = hodgesLehmann([1], [3]);
  assert.deepEqual([one.estimate, one.lower, one.upper, one.p, one.excludesZero], [2, -Infinity, Infinity, 1, false]);
  const same = hodgesLehmann([5, 5, 5], [5, 5, 5]);
  assert.deepEqual([same.estimate, same.lower, same.upper, same.p, same.excludesZero], [0, 0, 0, 1, false]);
  assert.throws(() => hodgesLehmann([1, 2], [3, 4], { alpha: 0 }), RangeError);
  assert.throws(() => hodgesLehmann([], [3, 4]), RangeError);
});

test('ratioWithCi is exp of the HL shift of the logs, null for values <= 0', () => {
  const random = seededRandom(3);
  const base = draw(random, 20, 1, null);
  const head = draw(random, 20, 1.2, null);
  const r = ratioWithCi(base, head, 0.05);
  assert.ok(r);
  const hl = hodgesLehmann(base.map(Math.log), head.map(Math.log), { alpha: 0.05 });
  assert.equal(r.ratio, Math.exp(hl.estimate));
  assert.deepEqual([r.lower, r.upper], [Math.exp(hl.lower), Math.exp(hl.upper)]);
  assert.equal(r.excludesOne, hl.excludesZero);
  assert.ok(r.lower <= r.ratio && r.ratio <= r.upper);
  assert.ok(r.ratio > 1.1 && r.ratio < 1.3 && r.excludesOne);
  assert.equal(ratioWithCi([1, 2, 0], [1, 2, 3]), null);
  assert.equal(ratioWithCi([1, 2, 3], [1, -2, 3]), null);
  assert.equal(ratioWithCi([1, 2, 3], [1, Infinity, 3]), null);
  const tiny = ratioWithCi([1], [2]);
  assert.deepEqual([tiny?.ratio, tiny?.lower, tiny?.upper], [2, 0, Infinity]);
});

// The materialized path, as hodgesLehmann computed it before it learned to
// select from the implicit sorted matrix: every difference in memory, then
// quickselect. Kept as the reference the implicit path must equal exactly.
function materializedHodgesLehmann(x: number[], y: number[], alpha: number, option: MannWhitneyMethod = 'auto') {
  const n1 = x.length;
  const n2 = y.length;
  const ranks = rankSum(x, y);
  const method = chooseMethod(option, n1, n2, ranks.tieTerm > 0);
  const pOf = method === 'exact' ? (u: number) => exactPValue(u, n1, n2) : (u: number) => asymptoticPValue(u, n1, n2, ranks.tieTerm);
  const big = n1 * n2;
  let lo = 0;
  let hi = big + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (pOf(big / 2 + mid / 2) > alpha) lo = mid;
    else hi = mid;
  }
  const rank = Math.ceil(big / 2 - lo / 2);
  const diffs = new Float64Array(big);
  let k = 0;
  for (let j = 0; j < n2; j++) for (let i = 0; i < n1; i++) diffs[k++] = y[j] - x[i];
  const middle = big % 2 === 1 ? [(big - 1) / 2] : [big / 2 - 1, big / 2];
  selectRanks(diffs, rank <= 0 ? middle : [rank - 1, ...middle, big - rank]);
  const estimate = middle.length === 1 ? diffs[middle[0]] : (diffs[middle[0]] + diffs[middle[1]]) / 2;
  const p = pOf(ranks.u1);
  return { estimate, lower: rank <= 0 ? -Infinity : diffs[rank - 1], upper: rank <= 0 ? Infinity : diffs[big - rank], alpha, p, excludesZero: p <= alpha, method };
}

test('the implicit selection equals the materialized differences exactly (300 x 400 and smaller, ties, negatives, logs)', () => {
  const random = seededRandom(2024);
  const shapes: [number, number][] = [[300, 400], [400, 300], [1, 1], [1, 7], [9, 2], [57, 33], [250, 250]];
  for (let trial = 0; trial < 28; trial++) {
    const [n1, n2] = shapes[trial % shapes.length];
    const lattice = [null, 1, 0.25, null][trial % 4];
    const shift = [1, 1.02, 0.97, 1.5][Math.floor(trial / 7) % 4];
    let x = draw(random, n1, 1, lattice);
    let y = draw(random, n2, shift, lattice);
    if (trial % 3 === 1) [x, y] = [x.map(Math.log), y.map(Math.log)];
    if (trial % 5 === 2) [x, y] = [x.map((v) => v - 100), y.map((v) => v - 100)];
    for (const alpha of [0.05, 0.1]) {
      const what = `trial ${trial} ${n1} x ${n2} alpha ${alpha}`;
      assert.deepEqual(hodgesLehmann(x, y, { alpha }), materializedHodgesLehmann(x, y, alpha), what);
      assert.deepEqual(hodgesLehmann(x, y, { alpha, method: 'asymptotic' }), materializedHodgesLehmann(x, y, alpha, 'asymptotic'), `${what} asymptotic`);
    }
    if (trial === 0) {
      // Differences that overflow to Infinity: the bisection cannot list around them, but must still agree.
      const [huge, tiny] = [[-1.7e308, 0, 1, -1.5e308], [1.7e308, 2, 3, 1e308, 4]];
      assert.deepEqual(hodgesLehmann(huge, tiny, { alpha: 0.2 }), materializedHodgesLehmann(huge, tiny, 0.2));
      assert.deepEqual(new PairwiseDifferences(huge, tiny).orderStatistic(19), Infinity);
    }
    if (n1 * n2 <= 2000) {
      const all = Float64Array.from(y.flatMap((b) => x.map((a) => b - a))).sort();
      const differences = new PairwiseDifferences(x, y);
      all.forEach((d, r) => assert.equal(differences.orderStatistic(r), d, `trial ${trial} rank ${r}`));
    }
  }
});

test('200,000 x 200,000 values finish in bounded memory and time (4e10 differences)', () => {
  const random = seededRandom(99);
  const x = draw(random, 200_000, 1, null);
  const y = draw(random, 200_000, 1.01, 0.001);
  const started = performance.now();
  const hl = hodgesLehmann(x, y);
  const seconds = (performance.now() - started) / 1000;
  assert.ok(seconds < 30, `took ${seconds.toFixed(1)} s`);
  assert.equal(hl.method, 'asymptotic');
  // A 1% shift of values near 100 is about 1; 200 k per side pins it well inside.
  assert.ok(hl.lower < hl.estimate && hl.estimate < hl.upper && hl.lower > 0.8 && hl.upper < 1.2, `${hl.estimate} [${hl.lower}, ${hl.upper}]`);
  assert.ok(hl.excludesZero);
  const r = ratioWithCi(x, y);
  assert.ok(r && r.lower > 1.008 && r.upper < 1.012, JSON.stringify(r));
});

test('hodgesLehmannLevels and ratioWithCis give what one call per alpha gives', () => {
  const random = seededRandom(7);
  for (const [n1, n2] of [[30, 30], [5, 9], [200, 150], [1, 3]]) {
    const x = draw(random, n1, 1, null);
    const y = draw(random, n2, 1.03, null);
    const alphas = [0.05, 0.1, 0.01];
    assert.deepEqual(hodgesLehmannLevels(x, y, alphas), alphas.map((alpha) => hodgesLehmann(x, y, { alpha })), `${n1} x ${n2}`);
    assert.deepEqual(ratioWithCis(x, y, alphas), alphas.map((alpha) => ratioWithCi(x, y, alpha)), `${n1} x ${n2} ratio`);
  }
  assert.throws(() => hodgesLehmannLevels([1, 2], [3, 4], [0.05, 1]), /alpha must be in \(0, 1\), got 1/);
});
