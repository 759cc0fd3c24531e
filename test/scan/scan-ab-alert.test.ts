// The scan's interleaved alert, its sessions judged by run's looks, and real_time/cpu_time as one family.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sequentialAb } from '../../src/compare/sequential-ab.ts';
import { scanHistory } from '../../src/scan/scan-history.ts';
import type { Night, Series } from '../../src/scan/series.ts';
import { timeFamilies } from '../../src/scan/time-families.ts';

/** wave: n deterministic values around level with relative spread `spread`. */
const wave = (level: number, n: number, spread: number, phase: number) => Array.from({ length: n }, (_, j) => level * (1 + spread * Math.sin(phase + j * 2.39)));

test("sequentialAb stops where run's looks stop and adjusts p for that look", () => {
  const clear = sequentialAb(wave(100, 40, 0.01, 0), wave(130, 40, 0.01, 1), { threshold: 0.02, alpha: 0.05 });
  assert.ok(clear);
  assert.equal(clear.rounds, 10, 'a 30% shift under 1% noise is decided at the first look');
  assert.equal(clear.comparison.verdict, 'regressed');
  assert.ok(clear.pAdjusted !== null && clear.pAdjusted < 0.05);
  const noisy = sequentialAb(wave(100, 40, 0.1, 0), wave(106, 40, 0.1, 1), { threshold: 0.02, alpha: 0.05 });
  assert.ok(noisy);
  assert.equal(noisy.rounds, 30, 'a 6% shift under 10% noise takes more looks');
  assert.equal(noisy.comparison.verdict, 'regressed');
  assert.ok(noisy.level < 0.05);
  // Cut to 10 rounds, the same session is not decided: the rounds bought the decision.
  assert.notEqual(sequentialAb(wave(100, 10, 0.1, 0), wave(106, 10, 0.1, 1), { threshold: 0.02, alpha: 0.05 })?.comparison.verdict, 'regressed');
  const hopeless = sequentialAb(wave(100, 40, 0.2, 0), wave(104, 40, 0.2, 1), { threshold: 0.02, alpha: 0.05 });
  assert.equal(hopeless?.comparison.decision, 'futility', 'as run stops one that cannot be decided by the budget');
  // pAdjusted is below alpha exactly when the deciding look rejected.
  for (const s of [clear, noisy, hopeless as NonNullable<typeof hopeless>]) assert.equal((s.pAdjusted ?? 1) < 0.05, s.comparison.verdict === 'regressed' || s.comparison.verdict === 'improved');
  assert.equal(sequentialAb([1], [1, 2], { threshold: 0.02, alpha: 0.05 }), null);
});

function history(levels: number[], metric = 'time', spread = 0.004): Series {
  const sha = (i: number) => `n${String(i).padStart(3, '0')}`;
  const nights: Night[] = levels.map((level, i) => ({
    sha: sha(i),
    time: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    values: wave(level, 10, spread, i),
    ...(i > 0 ? { ab: { baseSha: sha(i - 1), base: wave(levels[i - 1], 10, spread, i + 0.5) } } : {}),
  }));
  return { benchmark: 'BM_X', metric, unit: 'ns', better: 'lower', machineKey: 'fp', branch: 'main', nights };
}

test('a step the night it lands: the A/B raises an ab-alert, only a later session of the pair confirms it', () => {
  const series = history([...Array(40).fill(100), 110]);
  const first = scanHistory([series]);
  assert.deepEqual(first.findings.filter((f) => f.kind !== 'watch'), [], 'not filed on the session that raised it');
  const waiting = first.awaiting.find((f) => f.kind === 'ab-alert');
  assert.ok(waiting, 'awaiting its confirmation');
  assert.equal(waiting.lastGood.sha, 'n039');
  assert.equal(waiting.firstBad.sha, 'n040');

  const confirm = (head: number) => {
    const nights = [...series.nights];
    const night = nights[40];
    nights[40] = { ...night, ab: { ...(night.ab as NonNullable<Night['ab']>), extra: [{ base: wave(100, 10, 0.004, 7), head: wave(head, 10, 0.004, 8) }] } };
    return scanHistory([{ ...series, nights }]);
  };
  const confirmed = confirm(110).findings.filter((f) => f.kind === 'ab-alert');
  assert.equal(confirmed.length, 1);
  assert.equal(confirmed[0].direction, 'regression');
  assert.equal(confirmed[0].confirmation?.sessions, 1, 'the later session alone');
  assert.ok(confirmed[0].ratio > 1.08 && confirmed[0].ratio < 1.12);
  // A later session that shows nothing refutes it.
  const refuted = confirm(100);
  assert.deepEqual(refuted.findings.filter((f) => f.kind !== 'watch'), []);
  assert.ok(refuted.refuted.some((f) => f.kind === 'ab-alert'));
  // abAlpha null: the history alone (one night is not enough for it).
  assert.deepEqual(scanHistory([series], { abAlpha: null }).awaiting, []);
});

test('the night A/B raises an ab-alert when it leans beyond the threshold, decided or not; not within it, nor when it is decided unchanged', () => {
  // One night's A/B of 40 rounds a side under 20% noise, head `shift` slower, after 40 quiet nights.
  const night = (shift: number, spread = 0.2) => {
    const series = history(Array(41).fill(100));
    const nights = [...series.nights];
    nights[40] = { ...nights[40], values: wave(100 * shift, 40, spread, 3), ab: { baseSha: 'n039', base: wave(100, 40, spread, 4) } };
    return { ...series, nights };
  };
  const alerted = (s: Series, options = {}) => scanHistory([s], options).awaiting.some((f) => f.kind === 'ab-alert' && f.firstBad.sha === 'n040');
  const lean = night(1.05);
  const judged = sequentialAb(lean.nights[40].ab?.base ?? [], lean.nights[40].values, { threshold: 0.02, alpha: 0.05, futility: false });
  assert.notEqual(judged?.comparison.verdict, 'regressed', 'the night alone does not decide +5% under 20% noise');
  assert.ok(alerted(lean), 'but it leans beyond 2%: one more session of the pair is measured');
  assert.equal(scanHistory([lean]).awaiting.find((f) => f.kind === 'ab-alert')?.direction, 'regression');
  assert.equal(alerted(lean, { abAlpha: 0.05 }), false, 'abAlpha 0.05 asks for a decided session');
  assert.equal(alerted(night(1.01)), false, 'within the threshold');
  assert.equal(alerted(night(1.0, 0.002)), false, 'decided unchanged');
  assert.equal(scanHistory([night(1 / 1.05)]).awaiting.find((f) => f.kind === 'ab-alert')?.direction, 'improvement');
});

test('the scan judges a session over all its rounds: a night A/B that a PR run would have stopped for futility', () => {
  // A 4% shift under 20% noise: hopeless for run's futility rule at the first look, yet measured to 40 rounds by the nightly.
  const base = wave(100, 40, 0.2, 0);
  const head = wave(104, 40, 0.2, 1);
  assert.equal(sequentialAb(base, head, { threshold: 0.02, alpha: 0.05 })?.comparison.decision, 'futility');
  const all = sequentialAb(base, head, { threshold: 0.02, alpha: 0.05, futility: false });
  assert.equal(all?.rounds, 40);
  assert.notEqual(all?.comparison.decision, 'futility');
});

test('real_time and cpu_time are one family: the quieter one is scanned, the other is not', () => {
  const flat = Array(40).fill(100);
  // real_time noisy (20% per round) with a step only it shows; cpu_time quiet and flat.
  const real = history([...flat, 140, 140, 140], 'real_time', 0.2);
  const cpu = history([...flat, 100, 100, 100], 'cpu_time', 0.004);
  const [family] = timeFamilies([real, cpu]);
  assert.equal(family.primary, 'cpu_time');
  assert.equal(family.secondary, 'real_time');
  assert.ok((family.noise.cpu_time ?? 1) < 0.5 * (family.noise.real_time ?? 0));
  const both = scanHistory([real, cpu]);
  assert.deepEqual([...both.findings, ...both.awaiting].filter((f) => f.metric === 'real_time'), [], 'real_time is not scanned');
  assert.equal(both.timeFamilies?.length, 1);
  // Alone (a harness without cpu_time), real_time is scanned.
  const alone = scanHistory([real]);
  assert.ok([...alone.findings, ...alone.awaiting].some((f) => f.metric === 'real_time' && f.kind !== 'watch'));
  // Equally quiet: real_time stays primary.
  assert.equal(timeFamilies([history(flat, 'real_time'), history(flat, 'cpu_time')])[0].primary, 'real_time');
});
