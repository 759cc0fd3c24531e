import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lookSchedule, roundSchedule } from '../../src/compare/round-schedule.ts';
import { DEFAULT_LOOKS } from '../../src/stats/sequential-alpha.ts';

test('rounds come in ABBA / BAAB blocks, balanced, reproducible from the seed', () => {
  const order = roundSchedule(10, 42);
  assert.equal(order.length, 20);
  assert.equal(order.filter((s) => s === 'base').length, 10);
  for (let i = 0; i < order.length; i += 4) {
    const block = order.slice(i, i + 4).join(',');
    assert.ok(block === 'base,head,head,base' || block === 'head,base,base,head', block);
  }
  assert.deepEqual(roundSchedule(10, 42), order);
  const firsts = new Set(Array.from({ length: 20 }, (_, seed) => roundSchedule(2, seed)[0]));
  assert.equal(firsts.size, 2, 'the seed decides which side leads a block');
});

test('an odd number of rounds stays balanced', () => {
  const order = roundSchedule(5, 1);
  assert.equal(order.length, 10);
  assert.equal(order.filter((s) => s === 'head').length, 5);
});

test('looks follow the design between the minimum and maximum rounds', () => {
  assert.deepEqual(lookSchedule(10, 40, DEFAULT_LOOKS), [10, 15, 20, 30, 40]);
  assert.deepEqual(lookSchedule(5, 25, DEFAULT_LOOKS), [5, 10, 15, 20, 25]);
  assert.deepEqual(lookSchedule(30, 30, DEFAULT_LOOKS), [30]);
});
