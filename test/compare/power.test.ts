import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, type CompareSide } from '../../src/compare/compare-runs.ts';
import { boundOf, decisionChance, detectableChange, noiseSigma, suggestedThreshold } from '../../src/compare/power.ts';
import type { Comparison } from '../../src/model/comparison.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { sequentialAlpha } from '../../src/stats/sequential-alpha.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (values: number[]): CompareSide => ({ measurements: [{ benchmark: 'b', metric: 'real_time', unit: 'ns', better: 'lower', values } as Measurement], warnings: [], hints: {} });
const alphas = sequentialAlpha({ alpha: 0.05, looks: [10, 15, 20, 30] });
const lastAlpha = alphas[alphas.length - 1];

function verdictRate(n: number, cv: number, shift: number, threshold: number, verdict: Comparison['verdict'], trials = 300): number {
  let hits = 0;
  for (let t = 0; t < trials; t++) {
    const base = lognormalSamples(n, 100, cv, 10_000 + 2 * t);
    const head = lognormalSamples(n, 100 * (1 + shift), cv, 10_001 + 2 * t);
    const [c] = compareRuns(side(base), side(head), { threshold, alpha: lastAlpha, rules: [] }).comparisons;
    if (c.verdict === verdict) hits += 1;
  }
  return hits / trials;
}

test('noiseSigma is the per-round log noise the trimmed mean sees: about the CV for log-normal rounds', () => {
  const sigma = noiseSigma(lognormalSamples(400, 100, 0.03, 1)) as number;
  assert.ok(sigma > 0.027 && sigma < 0.04, `sigma ${sigma}`);
  assert.equal(noiseSigma([1, 2]), null);
  assert.equal(noiseSigma([1, 0, 2]), null);
});

test('detectableChange: a change that size is found regressed about 80% of the time at the budget; half of it much less often', () => {
  const sigma = 0.03;
  const d = detectableChange(sigma, { maxRoundsPerSide: 30, lastAlpha, threshold: 0.02 });
  assert.ok(d > 0.02 && d < 0.06, `detectable ${d}`);
  const rate = verdictRate(30, sigma, d, 0.02, 'regressed');
  assert.ok(rate > 0.68 && rate < 0.92, `found ${rate} at ${d}`);
  assert.ok(verdictRate(30, sigma, d / 2, 0.02, 'regressed') < 0.3);
});

test('suggestedThreshold: at that threshold an unchanged benchmark is decided unchanged at least about 80% of the time', () => {
  const sigma = 0.03;
  const theta = suggestedThreshold(sigma, { maxRoundsPerSide: 30, lastAlpha });
  assert.equal(Math.round(theta * 200), theta * 200, 'rounded to 0.5%');
  const rate = verdictRate(30, sigma, 0, theta, 'unchanged');
  assert.ok(rate >= 0.72, `unchanged ${rate} at ${theta}`);
  assert.ok(verdictRate(30, sigma, 0, theta - 0.01, 'unchanged') < rate);
});

test('decisionChance: hopeless noise gives almost no chance, a clear change almost certainty', () => {
  const one = (cv: number, shift: number, n: number) => compareRuns(side(lognormalSamples(n, 100, cv, 3)), side(lognormalSamples(n, 100 * (1 + shift), cv, 4)), { threshold: 0.02, alpha: alphas[0], rules: [] }).comparisons[0];
  const ctx = { roundsPerSide: 10, maxRoundsPerSide: 30, alpha: alphas[0], lastAlpha, threshold: 0.02 };
  assert.ok((decisionChance(one(0.2, 0.01, 10), ctx) as number) < 0.1);
  assert.ok((decisionChance(one(0.01, 0.06, 10), ctx) as number) > 0.9);
  assert.ok((decisionChance(one(0.01, 0, 10), ctx) as number) > 0.9);
  assert.equal(decisionChance({ ...one(0.01, 0, 10), equivalenceCi: undefined }, ctx), null);
});

test('boundOf reads the farther end of the TOST CI in cost terms', () => {
  assert.deepEqual(boundOf([0.99, 1.031], 'lower'), { bound: 1.031 - 1, side: 'slower' });
  const faster = boundOf([0.95, 1.01], 'lower');
  assert.equal(faster.side, 'faster');
  assert.ok(Math.abs(faster.bound - 0.05) < 1e-12);
  const rate = boundOf([0.95, 1.01], 'higher');
  assert.equal(rate.side, 'slower');
  assert.ok(Math.abs(rate.bound - (1 / 0.95 - 1)) < 1e-12);
});
