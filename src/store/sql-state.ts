/**
 * sql-state: the versioned key/value state (acks, the app's deliveries,
 * bisect sessions), with compare-and-set for writers that race.
 */
import type { SqlAccess } from './sql-conn.ts';
import { StoreError, type EffectEntry, type EffectTake, type StateEntry } from './store.ts';

export async function getState(db: SqlAccess, key: string): Promise<StateEntry | undefined> {
  checkStateKey(key);
  return db.read(async (c) => {
    const [r] = await c.all('SELECT value, version FROM state WHERE key = ?', [key]);
    return r ? { key, value: JSON.parse(String(r.value)), version: Number(r.version) } : undefined;
  });
}

export async function putState(db: SqlAccess, key: string, value: unknown): Promise<number> {
  checkStateKey(key);
  const text = stateJson(key, value);
  return db.write(async (c) => {
    const [r] = await c.all(
      `INSERT INTO state (key, value, version, updated_at) VALUES (?, ?, 1, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = state.version + 1, updated_at = excluded.updated_at
       RETURNING version`,
      [key, text, new Date().toISOString()],
    );
    return Number(r.version);
  });
}

export async function compareAndSetState(db: SqlAccess, key: string, expectedVersion: number | null, value: unknown): Promise<number | null> {
  checkStateKey(key);
  const text = stateJson(key, value);
  if (expectedVersion !== null && !Number.isInteger(expectedVersion)) throw new StoreError(`state ${JSON.stringify(key)}: expectedVersion must be an integer or null`);
  return db.write(async (c) => {
    const now = new Date().toISOString();
    const rows =
      expectedVersion === null
        ? await c.all('INSERT INTO state (key, value, version, updated_at) VALUES (?, ?, 1, ?) ON CONFLICT (key) DO NOTHING RETURNING version', [key, text, now])
        : await c.all('UPDATE state SET value = ?, version = version + 1, updated_at = ? WHERE key = ? AND version = ? RETURNING version', [text, now, key, expectedVersion]);
    return rows.length === 0 ? null : Number(rows[0].version);
  });
}

export async function deleteState(db: SqlAccess, key: string, expectedVersion?: number): Promise<boolean> {
  checkStateKey(key);
  return db.write(async (c) =>
    expectedVersion === undefined
      ? (await c.run('DELETE FROM state WHERE key = ?', [key])) > 0
      : (await c.run('DELETE FROM state WHERE key = ? AND version = ?', [key, expectedVersion])) > 0,
  );
}

export async function listState(db: SqlAccess, prefix: string): Promise<StateEntry[]> {
  // substr counts characters (code points) in both dialects, so no LIKE escaping and no collation surprises.
  const length = [...prefix].length;
  return db.read(async (c) =>
    (await c.all('SELECT key, value, version FROM state WHERE substr(key, 1, ?) = ? ORDER BY key', [length, prefix])).map((r) => ({
      key: String(r.key),
      value: JSON.parse(String(r.value)),
      version: Number(r.version),
    })),
  );
}

const EFFECT_COLUMNS = 'key, status, holder, lease_until, github_id, result, attempts, intended_at, done_at, version';

function effectOf(r: Record<string, unknown>): EffectEntry {
  return {
    key: String(r.key),
    status: r.status === 'done' ? 'done' : 'intended',
    holder: r.holder === null ? null : String(r.holder),
    leaseUntil: r.lease_until === null ? null : Number(r.lease_until),
    githubId: r.github_id === null ? null : Number(r.github_id),
    result: r.result === null ? null : (JSON.parse(String(r.result)) as Record<string, unknown>),
    attempts: Number(r.attempts),
    intendedAt: String(r.intended_at),
    doneAt: r.done_at === null ? null : String(r.done_at),
    version: Number(r.version),
  };
}

export async function takeEffect(db: SqlAccess, key: string, holder: string, nowMs: number, leaseMs: number): Promise<EffectTake> {
  checkStateKey(key);
  const leaseUntil = nowMs + leaseMs;
  const at = new Date(nowMs).toISOString();
  return db.write(async (c) => {
    for (;;) {
      const [row] = await c.all(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE key = ?`, [key]);
      if (row === undefined) {
        const inserted = await c.all(
          "INSERT INTO effects (key, status, holder, lease_until, github_id, result, attempts, intended_at, done_at, version) VALUES (?, 'intended', ?, ?, NULL, NULL, 1, ?, NULL, 1) ON CONFLICT (key) DO NOTHING RETURNING version",
          [key, holder, leaseUntil, at],
        );
        if (inserted.length === 1) return { taken: true, before: undefined };
        continue;
      }
      const before = effectOf(row);
      if (before.holder !== null && (before.leaseUntil ?? 0) > nowMs) return { taken: false, current: before };
      // Compare-and-set on the version: under READ COMMITTED another taker may have won since the read.
      const changed = await c.run(
        "UPDATE effects SET status = 'intended', holder = ?, lease_until = ?, attempts = attempts + 1, intended_at = ?, version = version + 1 WHERE key = ? AND version = ?",
        [holder, leaseUntil, at, key, before.version],
      );
      if (changed === 1) return { taken: true, before };
    }
  });
}

export async function renewEffect(db: SqlAccess, key: string, holder: string, leaseUntil: number): Promise<boolean> {
  return db.write(async (c) => (await c.run('UPDATE effects SET lease_until = ?, version = version + 1 WHERE key = ? AND holder = ?', [leaseUntil, key, holder])) === 1);
}

export async function finishEffect(db: SqlAccess, key: string, holder: string, githubId: number, result: Record<string, unknown>): Promise<boolean> {
  const text = stateJson(key, result);
  if (!Number.isSafeInteger(githubId)) throw new StoreError(`effect ${JSON.stringify(key)}: the GitHub id must be an integer, got ${JSON.stringify(githubId)}`);
  return db.write(async (c) => (await c.run(
    "UPDATE effects SET status = 'done', holder = NULL, lease_until = NULL, github_id = ?, result = ?, done_at = ?, version = version + 1 WHERE key = ? AND holder = ?",
    [githubId, text, new Date().toISOString(), key, holder],
  )) === 1);
}

export async function releaseEffect(db: SqlAccess, key: string, holder: string, back: EffectEntry | undefined | 'unknown'): Promise<boolean> {
  return db.write(async (c) => {
    if (back === 'unknown') return (await c.run('UPDATE effects SET holder = NULL, lease_until = NULL, version = version + 1 WHERE key = ? AND holder = ?', [key, holder])) === 1;
    if (back === undefined) return (await c.run('DELETE FROM effects WHERE key = ? AND holder = ?', [key, holder])) === 1;
    return (await c.run(
      'UPDATE effects SET status = ?, holder = NULL, lease_until = NULL, github_id = ?, result = ?, intended_at = ?, done_at = ?, version = version + 1 WHERE key = ? AND holder = ?',
      [back.status, back.githubId, back.result === null ? null : stateJson(key, back.result), back.intendedAt, back.doneAt, key, holder],
    )) === 1;
  });
}

export async function getEffect(db: SqlAccess, key: string): Promise<EffectEntry | undefined> {
  checkStateKey(key);
  return db.read(async (c) => {
    const [r] = await c.all(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE key = ?`, [key]);
    return r === undefined ? undefined : effectOf(r);
  });
}

export async function listEffects(db: SqlAccess, prefix: string): Promise<EffectEntry[]> {
  const length = [...prefix].length;
  return db.read(async (c) => (await c.all(`SELECT ${EFFECT_COLUMNS} FROM effects WHERE substr(key, 1, ?) = ? ORDER BY key`, [length, prefix])).map(effectOf));
}

export async function deleteEffect(db: SqlAccess, key: string, version: number): Promise<boolean> {
  return db.write(async (c) => (await c.run('DELETE FROM effects WHERE key = ? AND version = ? AND holder IS NULL', [key, version])) === 1);
}

function checkStateKey(key: string): void {
  if (typeof key !== 'string' || key === '' || key.includes('\u0000')) throw new StoreError(`state key must be a non-empty string without NUL, got ${JSON.stringify(key)}`);
}

function stateJson(key: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new StoreError(`state ${JSON.stringify(key)}: value is not JSON-serializable (${error instanceof Error ? error.message : String(error)})`);
  }
  if (text === undefined) throw new StoreError(`state ${JSON.stringify(key)}: value is not JSON-serializable (got ${typeof value})`);
  return text;
}
