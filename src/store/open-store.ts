import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { PostgresStore } from './postgres-store.ts';
import { connectionSecrets, redact, scrubError } from './redact.ts';
import { SqliteStore } from './sqlite-store.ts';
import { StoreError, type Store, type StoreOptions } from './store.ts';

/** DEFAULT_SQLITE_PATH is where the embedded store lives, relative to the working directory. */
export const DEFAULT_SQLITE_PATH = join('.benchbot', 'benchbot.db');

/** STORE_URL_ENV names the environment variable read when no --store is given. */
export const STORE_URL_ENV = 'BENCHBOT_DATABASE_URL';

/** StoreLocation is where a store URL points: a SQLite file or a PostgreSQL server. */
export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; display: string };

/** OpenStoreOptions say where relative paths and the default live, and tune the adapter. */
export interface OpenStoreOptions extends StoreOptions {
  /** Directory that relative SQLite paths and the default `.benchbot/benchbot.db` are under. */
  cwd: string;
  /** Environment for BENCHBOT_DATABASE_URL (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Run pending migrations on open (default true). */
  migrate?: boolean;
  /**
   * mustExist refuses a SQLite file that does not exist yet instead of
   * creating it: for commands that only read history, where a missing store
   * is a mistyped path or the wrong directory, not an empty history.
   */
  mustExist?: boolean;
}

/**
 * resolveStoreLocation decides which store a URL means, without touching
 * anything: `postgres://` or `postgresql://` is PostgreSQL; `sqlite:PATH`
 * (also `sqlite://PATH`) or a plain path is a SQLite file, relative to `cwd`;
 * no URL (or an empty one) falls back to BENCHBOT_DATABASE_URL, then to
 * `.benchbot/benchbot.db` under `cwd`. Any other scheme is a StoreError.
 */
export function resolveStoreLocation(url: string | undefined, options: { cwd: string; env?: Record<string, string | undefined> }): StoreLocation {
  const env = options.env ?? process.env;
  const chosen = nonEmpty(url) ?? nonEmpty(env[STORE_URL_ENV]);
  if (chosen === undefined) return { kind: 'sqlite', path: resolve(options.cwd, DEFAULT_SQLITE_PATH) };
  if (/^postgres(ql)?:\/\//i.test(chosen)) {
    try {
      new URL(chosen);
    } catch {
      throw new StoreError(`the store URL ${redact(chosen)} is not a valid URL; write it as postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
    }
    return { kind: 'postgres', url: chosen, display: redact(chosen) };
  }
  // libpq's keyword/value form is not a file name: taken as one, it became a SQLite file named after the password.
  if (KEYWORD_VALUE.test(chosen)) {
    throw new StoreError(`the store ${redact(chosen)} is a keyword/value connection string, which benchbot does not read; write it as a URL: postgres://USER:PASSWORD@HOST:PORT/DATABASE (percent-encode special characters in the password)`);
  }
  const sqlite = /^sqlite:(\/\/)?/i.exec(chosen);
  if (sqlite) {
    const path = chosen.slice(sqlite[0].length);
    if (path === '') throw new StoreError(`the store URL ${chosen} names no file; write sqlite:PATH, e.g. sqlite:${DEFAULT_SQLITE_PATH}`);
    return { kind: 'sqlite', path: resolve(options.cwd, path) };
  }
  // A scheme of two or more letters is a URL we do not speak (one letter is a Windows drive).
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(chosen);
  if (scheme && !isAbsolute(chosen)) {
    throw new StoreError(`unsupported store URL scheme "${scheme[1]}:" in ${redact(chosen)}; use a file path, sqlite:PATH, or postgres://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  return { kind: 'sqlite', path: resolve(options.cwd, chosen) };
}

/**
 * openStore opens (and by default migrates) the store a URL points to; see
 * resolveStoreLocation for the URL forms. It fails with a StoreError naming
 * the path or URL and what to fix, before anything is written.
 */
export async function openStore(url: string | undefined, options: OpenStoreOptions): Promise<Store> {
  const secrets = connectionSecrets(nonEmpty(url) ?? nonEmpty((options.env ?? process.env)[STORE_URL_ENV]) ?? '');
  try {
    const location = resolveStoreLocation(url, options);
    if (options.mustExist && location.kind === 'sqlite' && !existsSync(location.path)) {
      throw new StoreError(`no store at ${location.path}: nothing has been stored there. Name the store with --store PATH (or BENCHBOT_DATABASE_URL), run this in the directory that holds .benchbot/, or create one: benchbot run and benchbot import store runs`);
    }
    const store = location.kind === 'sqlite' ? SqliteStore.open(location.path, options) : await PostgresStore.open(location.url, options);
    if (options.migrate !== false) {
      try {
        await store.migrate();
      } catch (error) {
        await store.close().catch(() => undefined);
        throw error;
      }
    }
    return store;
  } catch (error) {
    // Every way out of here may carry the URL (a driver's own message, a SQLite path holding `password=`): hide its secrets.
    throw scrubError(error, { secrets });
  }
}

/** KEYWORD_VALUE recognizes libpq's `host=... dbname=...` form by a known keyword at the start. */
const KEYWORD_VALUE = /^\s*(?:host|hostaddr|port|dbname|user|password|passfile|sslmode|service|connect_timeout|application_name|options)\s*=/i;

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
