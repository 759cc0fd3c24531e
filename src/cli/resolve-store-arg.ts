import { resolveStoreLocation } from '../store/open-store.ts';

/**
 * resolveStoreArg applies the CLI's one rule for paths to a `--store` value:
 * a relative SQLite path (given with --store, or in BENCHBOT_DATABASE_URL)
 * and the default `.benchbot/benchbot.db` resolve against `cwd`, the
 * directory the command was typed in, whatever `--repo` says. It returns an
 * absolute path for SQLite, the URL as given for PostgreSQL, and undefined
 * when BENCHBOT_DATABASE_URL names a PostgreSQL server (so that the store
 * reads the variable itself and its password never travels in settings).
 * A value that is no store at all is left for openStore to refuse.
 */
export function resolveStoreArg(value: string | undefined, cwd: string, env: Record<string, string | undefined>): string | undefined {
  let location;
  try {
    location = resolveStoreLocation(value, { cwd, env });
  } catch {
    return value;
  }
  if (location.kind === 'sqlite') return location.path;
  return value?.trim() ? value : undefined;
}
