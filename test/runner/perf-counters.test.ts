import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePerfStatCsv, perfStatPrefix, PERF_EVENTS } from '../../src/runner/perf-counters.ts';
import { loadFixture } from '../support/fixtures.ts';

test('perf stat CSV with counts gives one measurement per event, user-space suffix dropped', () => {
  const { measurements, unsupported } = parsePerfStatCsv(loadFixture('perf/counters-handwritten.csv').text);
  assert.deepEqual(unsupported, []);
  assert.deepEqual(measurements.map((m) => m.metric), [...PERF_EVENTS]);
  const instructions = measurements.find((m) => m.metric === 'instructions');
  assert.deepEqual(instructions?.values, [1846372]);
  assert.equal(instructions?.better, 'lower');
  assert.equal(instructions?.benchmark, 'command');
});

test('a machine without hardware counters (a VM, as here) is reported, not read as zeros', () => {
  const { measurements, unsupported } = parsePerfStatCsv(loadFixture('perf/not-supported.csv').text);
  assert.deepEqual(measurements, []);
  assert.deepEqual(unsupported, [...PERF_EVENTS]);
});

test('the perf prefix asks for exactly the documented events, in CSV, into a file', () => {
  assert.equal(perfStatPrefix('out.csv'), 'perf stat -x, -e instructions,cycles,branch-misses,cache-misses -o out.csv --');
});
