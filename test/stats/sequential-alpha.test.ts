import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_LOOKS, groupSequentialLevels, sequentialAlpha } from '../../src/stats/sequential-alpha.ts';
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

// groupSequentialLevels: exact boundaries for the same spending (issue 11: the looks are what makes
// verdicts decide at 10-20 rounds per side; the union bound wasted most of alpha at the later looks).
test('exact group-sequential levels: the first look is f(t_1), later looks test at more than their share, and more than the union bound', () => {
  const union = sequentialAlpha();
  const two = groupSequentialLevels();
  const one = groupSequentialLevels({ sides: 1 });
  assert.ok(Math.abs(two[0] - union[0]) < 1e-12 && Math.abs(one[0] - union[0]) < 1e-12);
  for (let k = 1; k < union.length; k++) {
    assert.ok(two[k] > union[k] * 1.5, `look ${k}: ${two[k]} vs ${union[k]}`);
    assert.ok(one[k] >= two[k], 'a one-sided design loses less to the other tail');
    assert.ok(two[k] < 0.05);
  }
  // Equally spaced looks approach the classic Pocock level (0.0158 for five looks at 0.05).
  const pocock = groupSequentialLevels({ looks: [1, 2, 3, 4, 5] });
  assert.ok(pocock.every((l) => l > 0.014 && l < 0.018), pocock.join(', '));
});

test('exact group-sequential levels keep the overall false-alarm rate at alpha under the null (seeded simulation)', () => {
  const trials = 4000;
  // 4000 trials: a true rate of 0.05 lands below 0.057 with probability about 0.99.
  const rate = falseAlarmRate(groupSequentialLevels({ alpha: 0.05 }), trials, 19, null);
  assert.ok(rate <= 0.057, `two-sided: ${rate}`);
  assert.ok(rate > 0.03, `two-sided: ${rate} is far below alpha: the boundaries waste it`);
  const tied = falseAlarmRate(groupSequentialLevels({ alpha: 0.05 }), trials, 20, 0.5);
  assert.ok(tied <= 0.057, `with ties: ${tied}`);
  // One-sided: the direction of the shift the equivalence test guards against, at its own levels.
  const levels = groupSequentialLevels({ alpha: 0.05, sides: 1 });
  const random = seededRandom(21);
  const draw = () => 100 * Math.exp(0.05 * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()));
  let alarms = 0;
  for (let t = 0; t < trials; t++) {
    const base = Array.from({ length: 40 }, draw);
    const head = Array.from({ length: 40 }, draw);
    const hit = DEFAULT_LOOKS.some((n, k) => {
      const r = mannWhitneyU(base.slice(0, n), head.slice(0, n));
      const oneSided = r.u < (n * n) / 2 ? r.p / 2 : 1 - r.p / 2;
      return oneSided <= levels[k];
    });
    if (hit) alarms++;
  }
  assert.ok(alarms / trials <= 0.057, `one-sided: ${alarms / trials}`);
});
