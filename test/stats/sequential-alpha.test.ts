import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOOKS, sequentialAlpha } from '../../src/stats/sequential-alpha.ts';
import { mannWhitneyU } from '../../src/stats/mann-whitney.ts';
import { seededRandom } from '../support/random.ts';

test('per-look levels are positive and sum to alpha for every spending function', () => {
  for (const spending of ['pocock', 'obrien-fleming', 'bonferroni'] as const) {
    for (const alpha of [0.05, 0.01, 0.1]) {
      const levels = sequentialAlpha({ alpha, spending });
      assert.equal(levels.length, DEFAULT_LOOKS.length);
      assert.ok(levels.every((l) => l > 0));
      const total = levels.reduce((a, b) => a + b, 0);
      assert.ok(total <= alpha && total > alpha * (1 - 1e-12), `${spending} ${alpha}: ${total}`);
    }
  }
  const pocock = sequentialAlpha();
  assert.ok(Math.abs(pocock[0] - 0.05 * Math.log(1 + (Math.E - 1) / 4)) < 1e-15);
  const obf = sequentialAlpha({ spending: 'obrien-fleming' });
  assert.ok(obf[0] < 1e-3 && obf[4] > 0.02, 'O\'Brien-Fleming keeps alpha for the last look');
  assert.throws(() => sequentialAlpha({ looks: [10, 10] }), RangeError);
  assert.throws(() => sequentialAlpha({ alpha: 0 }), RangeError);
});

// Null simulation: base and head from one distribution, looks at 10..40 rounds per side,
// stop at the first look whose U test rejects at that look's level.
function falseAlarmRate(levels: readonly number[], trials: number, seed: number, lattice: number | null): number {
  const random = seededRandom(seed);
  const draw = () => {
    const v = 100 * Math.exp(0.05 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
    return lattice === null ? v : Math.round(v / lattice) * lattice;
  };
  let alarms = 0;
  for (let t = 0; t < trials; t++) {
    const base = Array.from({ length: 40 }, draw);
    const head = Array.from({ length: 40 }, draw);
    if (DEFAULT_LOOKS.some((n, k) => mannWhitneyU(base.slice(0, n), head.slice(0, n)).p <= levels[k])) alarms++;
  }
  return alarms / trials;
}

test('overall false-alarm rate stays at or below alpha under the null (seeded simulation)', () => {
  const trials = 4000;
  for (const spending of ['pocock', 'obrien-fleming'] as const) {
    const rate = falseAlarmRate(sequentialAlpha({ alpha: 0.05, spending }), trials, 17, null);
    assert.ok(rate <= 0.05, `${spending}: ${rate}`);
  }
  const tied = falseAlarmRate(sequentialAlpha({ alpha: 0.05 }), trials, 18, 0.5);
  assert.ok(tied <= 0.05, `pocock with ties: ${tied}`);
  // Without the split, five looks at 0.05 each inflate the error well past alpha.
  const naive = falseAlarmRate(DEFAULT_LOOKS.map(() => 0.05), trials, 17, null);
  assert.ok(naive > 0.07, `naive: ${naive}`);
});
