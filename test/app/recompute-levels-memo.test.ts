// The `/bench` recompute runs in a worker (bench-recompute.ts), a fresh one after an idle minute or a failed report, and a worker has its own module state:
// the group-sequential levels (stats/sequential-alpha.ts, 100-500 ms of integration cold) are handed to each worker and
// taken back, so the app computes them once per look schedule, not once per completed run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRecomputer } from '../../src/app/bench-recompute.ts';
import { DEFAULT_LOOKS, groupSequentialLevels, knownGroupSequentialLevels, rememberGroupSequentialLevels } from '../../src/stats/sequential-alpha.ts';
import { benchArtifact, makeZip, sha } from './app-harness.ts';

const meta = { requestedBy: 'maintainer', commentUrl: '', base: sha('base'), head: sha('head') };

test('the levels a recompute worker computed come back to the app and go into the next worker', { timeout: 60_000 }, async (t) => {
  assert.deepEqual(knownGroupSequentialLevels(), [], 'nothing computed on this thread yet');
  const recompute = createRecomputer();
  const started = performance.now();
  const first = await recompute({ zip: makeZip(benchArtifact()), args: {}, meta });
  const firstMs = performance.now() - started;
  assert.ok(first?.body.includes('BM_Parse/64'), 'the report was recomputed');
  const known = knownGroupSequentialLevels();
  assert.equal(known.length, 2, 'both decisions\' levels (difference, equivalence) came back from the worker');
  // What came back is what this thread computes itself (it is now a memo hit, so compare against the numbers returned).
  const levels = known.map(([, l]) => l).sort((a, b) => a[0] - b[0]);
  const direct = [groupSequentialLevels({ alpha: 0.05, looks: DEFAULT_LOOKS }), groupSequentialLevels({ alpha: 0.05, looks: DEFAULT_LOOKS, sides: 1 })].sort((a, b) => a[0] - b[0]);
  assert.deepEqual(levels, direct);

  const again = performance.now();
  const second = await recompute({ zip: makeZip(benchArtifact()), args: {}, meta });
  t.diagnostic(`recompute: ${firstMs.toFixed(0)} ms with the worker computing the levels, ${(performance.now() - again).toFixed(0)} ms with them known`);
  assert.equal(second?.body, first?.body, 'the same report either way');

  // The worker uses what it is handed, even over its own memo: with levels too small for any look to reject, the 10% slowdown is not flagged.
  rememberGroupSequentialLevels(known.map(([key, l]) => [key, l.map(() => 1e-12)]));
  const poisoned = await recompute({ zip: makeZip(benchArtifact()), args: {}, meta });
  assert.notEqual(poisoned?.body, first?.body, 'the handed-in levels decided the report');
  rememberGroupSequentialLevels(known);
  assert.equal((await recompute({ zip: makeZip(benchArtifact()), args: {}, meta }))?.body, first?.body);
});

test('the memo returns copies, and only well-formed entries from another thread are taken', () => {
  const looks = [7, 11, 13];
  const levels = groupSequentialLevels({ alpha: 0.02, looks });
  levels[0] = 0.5;
  assert.notEqual(groupSequentialLevels({ alpha: 0.02, looks })[0], 0.5, 'a caller changing its array does not change the memo');
  const key = knownGroupSequentialLevels().find(([, l]) => l.length === 3)?.[0];
  assert.ok(key);
  rememberGroupSequentialLevels([[`${key}x`, [2]], ['other', 'not levels'], 'junk']);
  assert.equal(knownGroupSequentialLevels().filter(([k]) => k === `${key}x` || k === 'other').length, 0, 'malformed entries are skipped');
});
