import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mannKendall } from '../../src/stats/mann-kendall.ts';
import { seededRandom } from '../support/random.ts';

// S by definition, every pair visited: the reference the merge-sort count must equal.
function bruteForceS(values: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) for (let j = i + 1; j < values.length; j++) s += Math.sign(values[j] - values[i]);
  return s;
}

test('S from the merge-sort count equals the pairwise sum (ties, trends, tiny n)', () => {
  const random = seededRandom(5);
  for (let trial = 0; trial < 300; trial++) {
    const n = trial < 6 ? trial : 2 + Math.floor(random() * 400);
    const lattice = [0, 1, 5, 0.001][trial % 4];
    const drift = [0, 0.01, -0.02][trial % 3];
    const values = Array.from({ length: n }, (_, i) => {
      const v = 100 + drift * i + random() * 10;
      return lattice === 0 ? v : Math.round(v / lattice) * lattice;
    });
    assert.equal(mannKendall(values).s, bruteForceS(values), `trial ${trial} n ${n}`);
  }
});

test('200,000 rounds finish at once (the pairwise sum would be 2e10 steps)', () => {
  const random = seededRandom(8);
  const values = Array.from({ length: 200_000 }, (_, i) => 100 + random() + i * 1e-6);
  const started = performance.now();
  const result = mannKendall(values);
  const ms = performance.now() - started;
  assert.ok(ms < 5000, `took ${Math.round(ms)} ms`);
  assert.ok(result.s > 0 && result.p < 1e-6, `a rising series: S ${result.s}, p ${result.p}`);
});
