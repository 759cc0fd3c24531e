// AppState.withEffect on a real SQLite store, two AppStates on it playing two
// replicas: makers take turns and reuse what the last one made, a crashed
// maker's intent is taken over after the lease, a live one's is renewed, and
// a maker that fails or makes nothing leaves the record as it was.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppState, EFFECT_LEASE_MS, type EffectResult } from '../../src/app/app-state.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';

let dir: string;
let store: Store;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'benchbot-effects-'));
  store = await openStore(join(dir, 'state.db'), { cwd: dir });
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('makers on two replicas take turns, and each after the first gets what the last made', async () => {
  const replicas = [createAppState(store), createAppState(store)];
  let making = 0;
  let most = 0;
  const seen: (number | undefined)[] = [];
  await Promise.all(Array.from({ length: 12 }, (_, i) => replicas[i % 2].withEffect('report-comment:o/r#1', async (last) => {
    most = Math.max(most, ++making);
    seen.push(last?.id);
    await sleep(5);
    making--;
    return { id: (last?.id ?? 100) + 1 };
  })));
  assert.equal(most, 1, 'never two makers at once');
  assert.deepEqual(seen, [undefined, ...Array.from({ length: 11 }, (_, i) => 101 + i)]);
  const record = (await store.getState('report-comment:o/r#1'))?.value as { id: number; status: string };
  assert.deepEqual([record.status, record.id], ['done', 112]);
});

test('an intent not renewed for the lease (a crashed maker) is taken over with what was made before it; a fresh one is waited for', async () => {
  const clock = Date.parse('2026-01-01T00:00:00Z');
  const state = createAppState(store, () => clock);
  await store.putState('check-run:o/r#2:abc', { status: 'intended', at: new Date(clock - EFFECT_LEASE_MS - 1).toISOString(), last: { id: 5, open: true } });
  const took = await state.withEffect('check-run:o/r#2:abc', async (last) => ({ id: (last as EffectResult).id, open: false, took: last }));
  assert.deepEqual(took.took, { id: 5, open: true });

  await store.putState('check-run:o/r#3:abc', { status: 'intended', at: new Date(clock - 1000).toISOString() });
  let made: EffectResult | undefined | 'not yet' = 'not yet';
  const waiting = state.withEffect('check-run:o/r#3:abc', async (last) => {
    made = last;
    return { id: 9 };
  });
  await sleep(150);
  assert.equal(made, 'not yet', 'a live intent is waited for');
  // Its maker finishes: the waiter goes on from what it made.
  const entry = await store.getState('check-run:o/r#3:abc');
  await store.compareAndSetState('check-run:o/r#3:abc', entry!.version, { status: 'done', at: new Date(clock).toISOString(), id: 8 });
  await waiting;
  assert.deepEqual(made, { id: 8 });
});

test('a live maker renews its intent: a replica does not take over while it works longer than the lease', async () => {
  const lease = 200;
  const a = createAppState(store, Date.now, lease);
  const b = createAppState(store, Date.now, lease);
  const order: string[] = [];
  const slow = a.withEffect('bisect-issue:o/r:s:1..2', async () => {
    order.push('a starts');
    await sleep(lease * 4);
    order.push('a ends');
    return { id: 1 };
  });
  await sleep(20);
  const second = b.withEffect('bisect-issue:o/r:s:1..2', async (last) => {
    order.push(`b starts after ${last?.id}`);
    return { id: 2 };
  });
  await Promise.all([slow, second]);
  assert.deepEqual(order, ['a starts', 'a ends', 'b starts after 1']);
});

test('a maker that throws or makes nothing leaves the record as it was', async () => {
  const state = createAppState(store);
  await state.withEffect('reply:o/r#4', async () => ({ id: 41 }));
  await assert.rejects(state.withEffect('reply:o/r#4', async () => {
    throw new Error('GitHub answered 502');
  }), /502/);
  assert.deepEqual(await state.withEffect('reply:o/r#4', async (last) => ({ id: (last as EffectResult).id })), { id: 41 });
  assert.equal(await state.withEffect('reply:o/r#5', async () => null), null);
  assert.equal(await store.getState('reply:o/r#5'), undefined, 'nothing made: no key left behind');
  // A reply id recorded before effects had keys ({ id, at }) is taken as done.
  await store.putState('reply:o/r#6', { id: 61, at: new Date().toISOString() });
  assert.deepEqual(await state.withEffect('reply:o/r#6', async (last) => ({ id: (last as EffectResult).id })), { id: 61 });
});

test('pruning forgets closed check run keys past the retention, never an open one', async () => {
  const clock = Date.now();
  const state = createAppState(store, () => clock);
  const old = new Date(clock - 20 * 86_400_000).toISOString();
  await store.putState('check-run:o/r#7:closed', { status: 'done', at: old, id: 71, open: false });
  await store.putState('check-run:o/r#7:open', { status: 'done', at: old, id: 72, open: true });
  await store.putState('check-run:o/r#7:recent', { status: 'done', at: new Date(clock).toISOString(), id: 73, open: false });
  await state.pruneDeliveries(14 * 86_400_000);
  assert.deepEqual((await store.listState('check-run:o/r#7:')).map((e) => e.key), ['check-run:o/r#7:open', 'check-run:o/r#7:recent']);
});
