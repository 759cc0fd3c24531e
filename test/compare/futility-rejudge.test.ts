/**
 * Futility is non-binding: a benchmark stopped for futility is judged again
 * at every later look while the suite's run goes on for others (every round
 * runs the whole command, so its rounds exist), at that look's
 * group-sequential level. These tests replay seeded suites through the looks
 * `run` and the report job take (replayLooks, applyLook).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replayLooks } from '../../src/compare/replay-looks.ts';
import type { CompareSide } from '../../src/compare/compare-runs.ts';
import type { Comparison } from '../../src/model/comparison.ts';
import { decidedForOthers } from '../../src/compare/adaptive-stop.ts';
import { toJsonReport } from '../../src/report/json-report.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (series: Record<string, number[]>): CompareSide => ({
  measurements: Object.entries(series).map(([benchmark, values]) => ({ benchmark, metric: 'time', unit: 'ns', better: 'lower' as const, values })),
  warnings: [], hints: {},
});
const settings = { threshold: 0.02, alpha: 0.05, rules: [], minRuns: 10, maxRuns: 40 };
const byName = (comparisons: Comparison[]) => Object.fromEntries(comparisons.map((c) => [c.benchmark, c]));

// `slow` is 10% slower at head; its first 10 rounds ran on a busy machine (50% noise), the rest on a quiet one (2%),
// as in the demo under load. `keeper` is a 1.5% change at 1.5% noise: rarely decided early, it keeps the rounds going.
function suite(seed: number): { base: Record<string, number[]>; head: Record<string, number[]> } {
  const busyThenQuiet = (center: number, s: number) => [...lognormalSamples(10, center, 0.5, s), ...lognormalSamples(30, center, 0.02, s + 1000)];
  return {
    base: { keeper: lognormalSamples(40, 100, 0.015, seed * 10 + 1), slow: busyThenQuiet(100, seed * 10 + 2) },
    head: { keeper: lognormalSamples(40, 101.5, 0.015, seed * 10 + 3), slow: busyThenQuiet(110, seed * 10 + 4) },
  };
}

test('a benchmark futile at the first look is decided on the rounds measured for the others, and says so', () => {
  const { base, head } = suite(3);
  const report = replayLooks(side(base), side(head), settings);
  const { keeper, slow } = byName(report.comparisons);
  assert.equal(keeper.decision, 'budget', 'keeper kept the run going to the budget');
  assert.equal(slow.futileAt, 10, 'slow was stopped for futility at the first look');
  assert.equal(slow.verdict, 'regressed');
  assert.ok((slow.decidedAt as number) > 10, `decided at ${slow.decidedAt}`);
  assert.equal(slow.base?.n, slow.decidedAt, 'with the numbers of the look that decided it');
  assert.ok(decidedForOthers(slow) && !decidedForOthers(keeper));
  const json = byName(toJsonReport(report).comparisons as unknown as Comparison[]) as unknown as Record<string, Record<string, unknown>>;
  assert.equal(json.slow.futile_at, 10);
  assert.equal(json.slow.decided_at, slow.decidedAt);
  // Alone, the same benchmark's run stops at its futility stop: the verdict it had before re-judging.
  const alone = replayLooks(side({ slow: base.slow }), side({ slow: head.slow }), settings).comparisons[0];
  assert.equal(alone.decision, 'futility');
  assert.equal(alone.decidedAt, 10);
});

test('over 40 seeded suites, re-judging finds the slowdown that futility had stopped in more of them', (t) => {
  let found = 0;
  let foundAlone = 0;
  let rejudged = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const { base, head } = suite(seed);
    const slow = byName(replayLooks(side(base), side(head), settings).comparisons).slow;
    const alone = replayLooks(side({ slow: base.slow }), side({ slow: head.slow }), settings).comparisons[0];
    if (slow.verdict === 'regressed') found += 1;
    if (decidedForOthers(slow)) rejudged += 1;
    // The suite's run stops no earlier than the benchmark's own would: what it decided alone, it decides in the suite.
    if (alone.verdict === 'regressed') {
      foundAlone += 1;
      assert.equal(slow.verdict, 'regressed', `seed ${seed}`);
    }
    assert.notEqual(slow.verdict, 'improved', `seed ${seed}`);
  }
  t.diagnostic(`found ${found}/40 in the suite, ${foundAlone}/40 alone, ${rejudged} after a futility stop`);
  assert.ok(rejudged > 0 && found === foundAlone + rejudged, `found ${found}, alone ${foundAlone}, re-judged ${rejudged}`);
});

test('A/A: re-judging after futility adds no false findings beyond alpha (300 seeded suites)', (t) => {
  const cvs = [0.02, 0.05, 0.1, 0.2, 0.3, 0.5];
  let nulls = 0;
  let falseFindings = 0;
  let futile = 0;
  let rejudgedFalse = 0;
  for (let s = 0; s < 300; s++) {
    // A real 2% change at 3% noise keeps most runs going towards the budget; the six unchanged benchmarks are the A/A.
    const make = (k: number, keeper: number) => side({ keeper: lognormalSamples(40, 100 * keeper, 0.03, s * 1000 + 7 + k), ...Object.fromEntries(cvs.map((cv, i) => [`b${i}`, lognormalSamples(40, 100, cv, s * 1000 + i * 10 + k)])) });
    for (const c of replayLooks(make(1, 1), make(2, 1.02), settings).comparisons) {
      if (c.benchmark === 'keeper') continue;
      nulls += 1;
      const wrong = c.verdict === 'regressed' || c.verdict === 'improved';
      if (wrong) falseFindings += 1;
      if (c.futileAt !== undefined) {
        futile += 1;
        if (wrong) rejudgedFalse += 1;
      }
    }
  }
  t.diagnostic(`${falseFindings} false of ${nulls} unchanged comparisons; ${futile} stopped for futility and judged again, ${rejudgedFalse} of them falsely`);
  assert.ok(futile > nulls / 4, `futility stopped ${futile} of ${nulls}: the simulation exercises re-judging`);
  assert.ok(falseFindings / nulls <= settings.alpha, `false-finding rate ${falseFindings / nulls} above alpha ${settings.alpha}`);
  assert.ok(rejudgedFalse / futile <= settings.alpha, `false findings after futility ${rejudgedFalse} of ${futile}`);
});
