import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { hodgesLehmann, ratioWithCi } from '../../src/stats/hodges-lehmann.ts';
import { mannWhitneyU } from '../../src/stats/mann-whitney.ts';
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
