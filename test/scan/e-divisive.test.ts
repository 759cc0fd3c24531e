// Windowed E-divisive against Apache Otava itself: test/scan/vectors/edivisive.json
// is written by scripts/edivisive-reference.py running otava.analysis on generated series.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { eDivisive } from '../../src/scan/e-divisive.ts';
import { tTestFromStats } from '../../src/scan/student-t.ts';

interface VectorPoint { index: number; qhat: number; p: number; meanBefore: number; meanAfter: number; magnitude: number }
interface VectorCase { kind: string; windowLen: number; maxPValue: number; minMagnitude: number; series: number[]; weak: VectorPoint[]; changePoints: VectorPoint[] }
const doc = JSON.parse(readFileSync(new URL('vectors/edivisive.json', import.meta.url), 'utf8')) as { peer: string; cases: VectorCase[] };

function close(actual: number, expected: number, what: string): void {
  const scale = Math.max(Math.abs(expected), 1e-300);
  assert.ok(Math.abs(actual - expected) <= 1e-9 * scale + 1e-300, `${what}: ${actual} vs ${expected}`);
}

test(`eDivisive agrees with ${doc.peer} on ${doc.cases.length} generated series`, () => {
  assert.ok(doc.cases.length >= 50);
  let withChanges = 0;
  for (const [i, c] of doc.cases.entries()) {
    const r = eDivisive(c.series, { windowLen: c.windowLen, maxPValue: c.maxPValue, minMagnitude: c.minMagnitude });
    const label = `case ${i} (${c.kind}, window ${c.windowLen})`;
    assert.deepEqual(r.weakChangePoints.map((p) => p.index), c.weak.map((p) => p.index), `${label}: weak change points`);
    assert.deepEqual(r.changePoints.map((p) => p.index), c.changePoints.map((p) => p.index), `${label}: change points`);
    for (const [j, expected] of c.changePoints.entries()) {
      const actual = r.changePoints[j];
      close(actual.p, expected.p, `${label} p`);
      close(actual.qhat, expected.qhat, `${label} qhat`);
      close(actual.meanBefore, expected.meanBefore, `${label} mean before`);
      close(actual.magnitude, expected.magnitude, `${label} magnitude`);
    }
    for (const [j, expected] of c.weak.entries()) close(r.weakChangePoints[j].p, expected.p, `${label} weak p`);
    if (c.changePoints.length > 0) withChanges++;
  }
  // The vectors must exercise both outcomes.
  assert.ok(withChanges >= 20 && withChanges < doc.cases.length);
});

test('tTestFromStats handles degenerate variance', () => {
  assert.equal(tTestFromStats(1, 0, 3, 1, 0, 3), 1);
  assert.equal(tTestFromStats(1, 0, 3, 2, 0, 3), 0);
  assert.equal(tTestFromStats(1, 1, 1, 2, 1, 1), 1);
});

test('eDivisive rejects non-finite values and tiny windows', () => {
  assert.throws(() => eDivisive([1, NaN, 2]), RangeError);
  assert.throws(() => eDivisive([1, 2, 3], { windowLen: 1 }), RangeError);
  assert.deepEqual(eDivisive([]).changePoints, []);
  assert.deepEqual(eDivisive([5]).changePoints, []);
});
