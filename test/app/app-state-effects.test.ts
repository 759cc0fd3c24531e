// AppState.withEffect on a real SQLite store, two AppStates on it playing two
// replicas: makers take turns and reuse what the last one made, a crashed
// maker's lease is taken over after it ran out (and the next maker is told
// the outcome is unknown), a live one's is renewed, a maker that fails
// leaves the effect intended (uncertain) and one that makes nothing leaves
// the record as it was.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createAppState, EFFECT_LEASE_MS, type EffectAttempt, type EffectResult } from '../../src/app/app-state.ts';
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
  const record = await store.getEffect('report-comment:o/r#1');
  assert.deepEqual([record?.status, record?.githubId, record?.attempts], ['done', 112, 12]);
});

test('a lease not renewed (a crashed maker) is taken over, told the outcome is unknown and what was made before it; a live holder is waited for', async () => {
  const clock = Date.parse('2026-01-01T00:00:00Z');
  const state = createAppState(store, () => clock);
  // A maker that recorded { id: 5, open: true }, then another that took the key and died.
  assert.equal((await store.takeEffect('check-run:o/r#2:abc', 'first', clock - 10 * EFFECT_LEASE_MS, EFFECT_LEASE_MS)).taken, true);
  await store.finishEffect('check-run:o/r#2:abc', 'first', 5, { open: true });
  assert.equal((await store.takeEffect('check-run:o/r#2:abc', 'crashed', clock - EFFECT_LEASE_MS - 1, EFFECT_LEASE_MS)).taken, true);
  const took = await state.withEffect('check-run:o/r#2:abc', async (last, attempt) => ({ id: (last as EffectResult).id, open: false, took: last, uncertain: attempt.uncertain }));
  assert.deepEqual([took.took, took.uncertain], [{ id: 5, open: true }, true]);

  assert.equal((await store.takeEffect('check-run:o/r#3:abc', 'alive', clock - 1000, EFFECT_LEASE_MS)).taken, true);
  let made: EffectResult | undefined | 'not yet' = 'not yet';
  let uncertain: boolean | undefined;
  const waiting = state.withEffect('check-run:o/r#3:abc', async (last, attempt) => {
    made = last;
    uncertain = attempt.uncertain;
    return { id: 9 };
  });
  await sleep(150);
  assert.equal(made, 'not yet', 'a live holder is waited for');
  // Its maker finishes: the waiter goes on from what it made, certain of it.
  await store.finishEffect('check-run:o/r#3:abc', 'alive', 8, {});
  await waiting;
  assert.deepEqual([made, uncertain], [{ id: 8 }, false]);
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

test('a maker that throws leaves the effect intended, so the next one is told it is uncertain (and since when); one that makes nothing leaves the record as it was', async () => {
  const state = createAppState(store);
  await state.withEffect('reply:o/r#4', async () => ({ id: 41 }));
  await assert.rejects(state.withEffect('reply:o/r#4', async () => {
    throw new Error('GitHub answered 502');
  }), /502/);
  const failed = await store.getEffect('reply:o/r#4');
  assert.deepEqual([failed?.status, failed?.holder, failed?.githubId], ['intended', null, 41]);
  const attempts: EffectAttempt[] = [];
  assert.deepEqual(await state.withEffect('reply:o/r#4', async (last, attempt) => {
    attempts.push(attempt);
    return { id: (last as EffectResult).id };
  }), { id: 41 });
  assert.deepEqual([attempts[0].uncertain, attempts[0].since], [true, failed?.intendedAt]);
  assert.equal(await state.withEffect('reply:o/r#5', async () => null), null);
  assert.equal(await store.getEffect('reply:o/r#5'), undefined, 'nothing made: no key left behind');
});

test('effectOnce makes an effect once: the recorded result after that, and after an uncertain attempt what find finds, else a new one', async () => {
  const state = createAppState(store);
  const calls: string[] = [];
  const find = async (since: string) => {
    calls.push(`find since ${since === undefined ? '?' : 'then'}`);
    return calls.length > 3 ? { id: 77 } : null;
  };
  const make = async () => {
    calls.push('make');
    return { id: 70 + calls.length };
  };
  assert.deepEqual(await state.effectOnce('dispatch:o/r#1/1@t', find, make), { id: 71 });
  assert.deepEqual(await state.effectOnce('dispatch:o/r#1/1@t', find, make), { id: 71 });
  assert.deepEqual(calls, ['make'], 'made once, found in the record after');
  await assert.rejects(state.effectOnce('dispatch:o/r#1/2@t', find, async () => {
    calls.push('lost');
    throw new Error('GitHub answered 502');
  }));
  // Uncertain: looked for first; not found, made.
  assert.deepEqual(await state.effectOnce('dispatch:o/r#1/2@t', find, make), { id: 74 });
  await assert.rejects(state.effectOnce('dispatch:o/r#1/3@t', find, async () => {
    throw new Error('lost');
  }));
  // Found: not made again.
  assert.deepEqual(await state.effectOnce('dispatch:o/r#1/3@t', find, make), { id: 77 });
  assert.deepEqual(calls, ['make', 'lost', 'find since then', 'make', 'find since then']);
});

test('pruning forgets effects past the retention, never an open check run or a held key', async () => {
  const clock = Date.now();
  const state = createAppState(store, () => clock);
  const old = clock - 20 * 86_400_000;
  const record = async (key: string, at: number, result: Record<string, unknown>) => {
    await store.takeEffect(key, 'h', at, 1000);
    await store.finishEffect(key, 'h', 1, result);
  };
  await record('check-run:o/r#7:closed', old, { open: false });
  await record('check-run:o/r#7:open', old, { open: true });
  await record('dispatch:o/r#7/1@t', old, {});
  await store.takeEffect('check-run:o/r#7:held', 'h', clock, 60_000);
  // finishEffect stamps the store's clock: the records are aged in the file itself.
  const db = new DatabaseSync(join(dir, 'state.db'));
  db.prepare("UPDATE effects SET done_at = ? WHERE done_at IS NOT NULL AND key LIKE '%#7%'").run(new Date(old).toISOString());
  db.close();
  await record('check-run:o/r#7:recent', clock, { open: false });
  await state.pruneDeliveries(14 * 86_400_000);
  assert.deepEqual((await store.listEffects('check-run:o/r#7:')).map((e) => e.key), ['check-run:o/r#7:held', 'check-run:o/r#7:open', 'check-run:o/r#7:recent']);
  assert.equal(await store.getEffect('dispatch:o/r#7/1@t'), undefined);
});
