import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closestName } from '../../src/model/closest-name.ts';

test('closestName finds the near name (a letter missing, extra, changed or two swapped) and refuses far ones', () => {
  const flags = ['--threshold', '--threshold-for', '--alpha', '--output', '--format'];
  assert.equal(closestName('--treshold', flags), '--threshold');
  assert.equal(closestName('--THRESHOLD', flags), '--threshold');
  assert.equal(closestName('--threshold-fro', flags), '--threshold-for');
  assert.equal(closestName('--aplha', flags), '--alpha');
  assert.equal(closestName('googlebenchmark', ['go', 'google-benchmark', 'benchbot']), 'google-benchmark');
  assert.equal(closestName('scna', ['scan', 'serve', 'parse']), 'scan');
  // Short names need a near match: one edit, never an unrelated word of the same length.
  assert.equal(closestName('go', ['jmh', 'dart']), undefined);
  assert.equal(closestName('--zzz', flags), undefined);
  assert.equal(closestName('', flags), undefined);
});
