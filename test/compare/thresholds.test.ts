import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globToRegExp, parsePercent, thresholdFor } from '../../src/compare/thresholds.ts';

test('parsePercent reads 2%, 0.02 and 2 as two percent and refuses nonsense', () => {
  assert.equal(parsePercent('2%'), 0.02);
  assert.equal(parsePercent('0.02'), 0.02);
  assert.equal(parsePercent('2'), 0.02);
  assert.equal(parsePercent(' 0.5% '), 0.005);
  for (const bad of ['', '%', 'two', '-2%', '150%', '2%%', '1e3']) assert.equal(parsePercent(bad), undefined, bad);
});

test('globs match whole names; the last matching rule wins', () => {
  assert.ok(globToRegExp('BM_Net*').test('BM_Network/64'));
  assert.ok(!globToRegExp('BM_Net').test('BM_Network'));
  assert.ok(globToRegExp('BM_?ort').test('BM_Sort'));
  assert.ok(globToRegExp('a.b(c)').test('a.b(c)'));
  assert.ok(!globToRegExp('a.b').test('axb'));
  const rules = [{ glob: 'BM_*', threshold: 0.05 }, { glob: 'BM_Net*', threshold: 0.1 }];
  assert.equal(thresholdFor('BM_Network', 0.02, rules), 0.1);
  assert.equal(thresholdFor('BM_Sort', 0.02, rules), 0.05);
  assert.equal(thresholdFor('Other', 0.02, rules), 0.02);
});
