import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { activityFromDecay, defaultMaxLoad, waitForQuietMachine } from '../../src/runner/load-guard.ts';

/** script returns a readLoad that plays the given loads in order (the last one repeats) and a sleep that only records. */
function script(loads: (number | undefined)[]) {
  let reads = 0;
  const slept: number[] = [];
  return {
    readLoad: () => loads[Math.min(reads++, loads.length - 1)],
    sleep: async (ms: number) => void slept.push(ms),
    slept,
    reads: () => reads,
  };
}

test('a quiet machine passes at once', async () => {
  const s = script([0.2]);
  assert.deepEqual(await waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 60_000, pollMs: 5000, ...s }), { load: 0.2, waitedMs: 0 });
  assert.deepEqual(s.slept, []);
});

test('a load at the threshold is quiet enough', async () => {
  assert.equal((await waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 0, ...script([0.7]) })).load, 0.7);
});

test('it waits while the load is high and goes when it drops', async () => {
  const s = script([2.5, 1.4, 0.9, 0.6]);
  const seen: [number, number][] = [];
  const quiet = await waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 60_000, pollMs: 5000, ...s, onWait: (load, waited) => seen.push([load, waited]) });
  assert.deepEqual(quiet, { load: 0.6, waitedMs: 15_000 });
  assert.deepEqual(s.slept, [5000, 5000, 5000]);
  assert.deepEqual(seen, [[2.5, 0], [1.4, 5000], [0.9, 10_000]]);
});

test('after the wait it refuses, naming the load, the threshold, the wait and the flags', async () => {
  const s = script([3.21]);
  await assert.rejects(waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 12_000, pollMs: 5000, ...s }), (error: unknown) => {
    assert.ok(error instanceof RunnerError);
    assert.match(error.message, /load average is 3\.21, above --max-load 0\.7/);
    assert.match(error.message, /waited \(--load-wait 12 s\)/);
    assert.match(error.message, /for the 12 s benchbot waited/);
    return true;
  });
  // The last sleep is cut to the remaining time: the wait is bounded exactly.
  assert.deepEqual(s.slept, [5000, 5000, 2000]);
  assert.equal(s.reads(), 4);
});

test('a load that cannot be read does not block the run; Infinity turns the guard off', async () => {
  assert.deepEqual(await waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 0, ...script([undefined]) }), { load: undefined, waitedMs: 0 });
  const s = script([99]);
  assert.deepEqual(await waitForQuietMachine({ maxLoad: Infinity, timeoutMs: 0, ...s }), { load: undefined, waitedMs: 0 });
  assert.equal(s.reads(), 0);
});

test('readLoad may be async (Executor.loadAverage)', async () => {
  const loads = [1.5, 0.1];
  const quiet = await waitForQuietMachine({ maxLoad: 1, timeoutMs: 10, pollMs: 1, readLoad: async () => loads.shift() });
  assert.deepEqual(quiet, { load: 0.1, waitedMs: 1 });
});

test('defaultMaxLoad is 0.5 + 0.1 per core', () => {
  assert.equal(defaultMaxLoad(2), 0.7);
  assert.equal(defaultMaxLoad(8), 1.3);
  assert.equal(defaultMaxLoad(64), 6.9);
  assert.equal(defaultMaxLoad(undefined), 1);
  assert.equal(defaultMaxLoad(0), 1);
});

test('the decaying tail of finished work does not hold the run: three kernel updates of an idle machine are enough', async () => {
  // The 1-minute average after a build on an idle 2-core machine: 1.84 decaying by e^(-5/60) every 5 s,
  // read every second (each value five times). The old guard waited about 60 s for it to fall below 0.7.
  const decay = Math.exp(-5 / 60);
  const updates = Array.from({ length: 20 }, (_, k) => Math.round(1.84 * decay ** k * 100) / 100);
  const s = script(updates.flatMap((l) => [l, l, l, l, l]));
  const quiet = await waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 300_000, pollMs: 1000, tail: true, ...s });
  assert.ok(quiet.activity !== undefined && quiet.activity < 0.3, `activity ${quiet.activity}`);
  assert.ok(quiet.waitedMs <= 16_000, `waited ${quiet.waitedMs} ms`);
  assert.ok((quiet.load ?? 0) > 0.7, 'it went while the average was still above the limit');
});

test('a machine that stays busy is no tail: the guard waits and then refuses', async () => {
  // One busy process on top of the tail: the average settles towards 1.5, and every update says about 1.5 busy.
  const decay = Math.exp(-5 / 60);
  const updates = Array.from({ length: 80 }, (_, k) => Math.round((1.5 + 0.4 * decay ** k) * 100) / 100);
  const s = script(updates.flatMap((l) => [l, l, l, l, l]));
  await assert.rejects(waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 60_000, pollMs: 1000, tail: true, ...s }), /load average is 1\.\d+, above --max-load 0\.7/);
});

test('a steady load that does not move is read as that many busy tasks', async () => {
  const s = script([2]);
  await assert.rejects(waitForQuietMachine({ maxLoad: 0.7, timeoutMs: 30_000, pollMs: 1000, tail: true, ...s }), /busy/);
});

test('activityFromDecay recovers the busy tasks behind one kernel update', () => {
  const decay = Math.exp(-5 / 60);
  assert.ok(Math.abs(activityFromDecay(2, 2 * decay + 1 * (1 - decay)) - 1) < 1e-9);
  assert.equal(activityFromDecay(2, 2 * decay), 0);
  assert.equal(activityFromDecay(1, 1), 1);
});
