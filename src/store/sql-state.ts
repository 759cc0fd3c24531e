/**
 * sql-state: the versioned key/value state (acks, the app's deliveries,
 * bisect sessions), with compare-and-set for writers that race.
 */
import type { SqlAccess } from './sql-conn.ts';
import { StoreError, type StateEntry } from './store.ts';

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
