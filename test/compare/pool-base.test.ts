import { test } from 'node:test';
import assert from 'node:assert/strict';
import { poolBase, POOL_CAP, MIN_STORED } from '../../src/compare/pool-base.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const m = (benchmark: string, values: number[], unit = 'ns'): Measurement => ({ benchmark, metric: 'real_time', unit, better: 'lower', values });
const options = { threshold: () => 0.02 };

test('stored rounds that agree with today join after today\'s, the most recent first kept, at most twice today\'s count', () => {
  const today = m('a', lognormalSamples(10, 100, 0.01, 1));
  const older = m('a', lognormalSamples(30, 100, 0.01, 2));
  const newer = m('a', lognormalSamples(5, 100, 0.01, 3));
  const out = poolBase([today], [older, newer], options);
  const values = out.measurements[0].values;
  assert.equal(values.length, 10 + POOL_CAP * 10);
  assert.deepEqual(values.slice(0, 10), today.values, 'today\'s rounds first, untouched');
  assert.deepEqual(values.slice(-5), newer.values, 'the most recent stored rounds are the ones kept');
  assert.equal(out.pooled.get('a\u0000real_time'), 20);
});

test('stored rounds in another time unit are converted; too few are not worth the check; a drift of 1% at a 2% threshold is refused', () => {
  const today = m('a', lognormalSamples(10, 100, 0.01, 4));
  const inMicros = m('a', lognormalSamples(10, 0.1, 0.01, 5), 'us');
  const converted = poolBase([today], [inMicros], options);
  assert.ok(Math.abs(converted.measurements[0].values[15] - inMicros.values[5] * 1000) < 1e-9);
  const few = poolBase([today], [m('a', [100, 100, 100].slice(0, MIN_STORED - 2))], options);
  assert.equal(few.measurements[0].values.length, 10);
  const drifted = poolBase([m('a', lognormalSamples(20, 100, 0.002, 6))], [m('a', lognormalSamples(20, 101, 0.002, 7))], options);
  assert.equal(drifted.pooled.size, 0);
  assert.match(drifted.refused.get('a\u0000real_time') as string, /drift check failed: today's base vs 20 stored rounds -1\.0%/);
});
