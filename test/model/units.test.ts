import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conversionFactor, directionOf, isTimeUnit, normalizeTimeUnit } from '../../src/model/units.ts';

test('time units convert among themselves, also per operation, and nothing else converts', () => {
  assert.equal(conversionFactor('us', 'ns'), 1000);
  assert.equal(conversionFactor('µs', 'ns'), 1000);
  assert.equal(conversionFactor('ns/op', 'us/op'), 1e-3);
  assert.equal(conversionFactor('s', 's'), 1);
  assert.equal(conversionFactor('ns/op', 'ns'), undefined);
  assert.equal(conversionFactor('B/op', 'allocs/op'), undefined);
  assert.equal(conversionFactor('count', 'ns'), undefined);
  assert.equal(normalizeTimeUnit('μs'), 'us');
  assert.equal(normalizeTimeUnit('op'), undefined);
});

test('direction follows metric and unit: rates up, times and counts down', () => {
  assert.equal(directionOf('time', 'ns/op'), 'lower');
  assert.equal(directionOf('real_time', 'ns'), 'lower');
  assert.equal(directionOf('bytes_per_second', 'bytes/s'), 'higher');
  assert.equal(directionOf('items_per_second', 'items/s'), 'higher');
  assert.equal(directionOf('throughput', 'ops/s'), 'higher');
  assert.equal(directionOf('MB/s', 'MB/s'), 'higher');
  assert.equal(directionOf('CallsToAlloc', 'count'), 'lower');
  assert.equal(directionOf('B/op', 'B/op'), 'lower');
  assert.equal(directionOf('allocs/op', 'allocs/op'), 'lower');
});

test('a unit spelled like an object property (constructor, toString, __proto__) is not a time and does not convert', () => {
  for (const unit of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    assert.equal(normalizeTimeUnit(unit), undefined, unit);
    assert.equal(isTimeUnit(`${unit}/op`), false, unit);
    assert.equal(conversionFactor(unit, 'ns'), undefined, unit);
  }
});
