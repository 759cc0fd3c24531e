import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseSeries, endsDiffer, valuesOf } from '../../src/bisect/choose-series.ts';
import type { Direction, Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

let seed = 4100;
/** m is one series at one end: 12 values around `center` with 0.5% noise. */
const m = (benchmark: string, center: number, metric = 'time', better: Direction = 'lower', unit = 'ns'): Measurement => ({
  benchmark, metric, unit, better, values: lognormalSamples(12, center, 0.005, seed++),
});
const all = { benchmarks: [], threshold: 0.02 };
const name = (c: ReturnType<typeof chooseSeries>) => (c === null ? null : `${c.benchmark} ${c.metric}`);

test('a significant worsening beyond the threshold wins over a larger improvement', () => {
  const good = [m('fast', 100), m('slow', 100)];
  const bad = [m('fast', 70), m('slow', 106)];
  assert.deepEqual(chooseSeries(good, bad, all), { benchmark: 'slow', metric: 'time', unit: 'ns', better: 'lower' });
});

test('of several worsenings the largest one; higher-is-better metrics worsen downwards', () => {
  const good = [m('parse', 100), m('parse', 500, 'bytes_per_second', 'higher', 'B/s'), m('load', 100)];
  const bad = [m('parse', 105), m('parse', 400, 'bytes_per_second', 'higher', 'B/s'), m('load', 108)];
  assert.equal(name(chooseSeries(good, bad, all)), 'parse bytes_per_second');
  // Throughput that rose is an improvement, not the regression to follow.
  const better = [m('parse', 105), m('parse', 600, 'bytes_per_second', 'higher', 'B/s'), m('load', 108)];
  assert.equal(name(chooseSeries(good, better, all)), 'load time');
});

test('a worsening under the threshold does not outrank: without any that counts, the largest change of any kind', () => {
  const good = [m('tiny', 100), m('better', 100)];
  const bad = [m('tiny', 101), m('better', 90)];
  assert.equal(name(chooseSeries(good, bad, all)), 'better time');
  assert.equal(name(chooseSeries(good, bad, { ...all, threshold: 0.005 })), 'tiny time');
});

test('the filter restricts the choice to the named benchmarks and metric', () => {
  const good = [m('a', 100), m('b', 100), m('b', 100, 'cpu_time')];
  const bad = [m('a', 130), m('b', 105), m('b', 110, 'cpu_time')];
  assert.equal(name(chooseSeries(good, bad, all)), 'a time');
  assert.equal(name(chooseSeries(good, bad, { ...all, benchmarks: ['b'] })), 'b cpu_time');
  assert.equal(name(chooseSeries(good, bad, { ...all, benchmarks: ['b'], metric: 'time' })), 'b time');
  assert.equal(chooseSeries(good, bad, { ...all, benchmarks: ['c'] }), null);
  assert.equal(chooseSeries(good, bad, { ...all, metric: 'instructions' }), null);
});

test('a series one end lacks, or with fewer than two values on a side, is never chosen', () => {
  const lone = { ...m('lone', 100), values: [100] };
  assert.equal(chooseSeries([m('only-good', 100), lone], [m('only-bad', 200), { ...lone, values: [150, 151, 152] }], all), null);
  assert.equal(name(chooseSeries([m('x', 100), m('y', 100)], [m('x', 120)], all)), 'x time');
  assert.equal(chooseSeries([], [m('x', 1)], all), null);
});

test('valuesOf finds one series by benchmark and metric', () => {
  const ms = [m('a', 1), m('a', 2, 'cpu_time')];
  assert.equal(valuesOf(ms, { benchmark: 'a', metric: 'cpu_time' }), ms[1].values);
  assert.equal(valuesOf(ms, { benchmark: 'b', metric: 'time' }), undefined);
});

test('endsDiffer: a significant change of at least the threshold either way; none without loggable values', () => {
  const base = lognormalSamples(12, 100, 0.005, 1);
  const slower = endsDiffer(base, lognormalSamples(12, 108, 0.005, 2), 0.02);
  assert.equal(slower.differs, true);
  assert.ok(slower.change !== null && slower.change.lower > 1.06 && slower.change.upper < 1.10, JSON.stringify(slower));
  assert.equal(endsDiffer(base, lognormalSamples(12, 92, 0.005, 3), 0.02).differs, true);
  assert.equal(endsDiffer(base, lognormalSamples(12, 101, 0.005, 4), 0.02).differs, false, 'significant, but under the threshold');
  assert.equal(endsDiffer(base, lognormalSamples(12, 100, 0.005, 5), 0.02).differs, false);
  assert.deepEqual(endsDiffer(base, [0, 1, 2], 0.02), { change: null, differs: false });
});
