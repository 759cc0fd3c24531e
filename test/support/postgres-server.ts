import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** PostgresServer is a throwaway PostgreSQL cluster for one test process. */
export interface PostgresServer {
  /** Connection URL of an empty database on the server (trust auth, TCP on 127.0.0.1). */
  url: string;
  /** createDatabase makes another empty database and returns its URL. */
  createDatabase(name: string): string;
  /** stop shuts the server down (fast mode) and deletes its directory. */
  stop(): void;
}

/** PG_BIN is where the server binaries are looked for; BENCHBOT_PG_BIN overrides it. */
export const PG_BIN = process.env.BENCHBOT_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * postgresUnavailable says why no server can be started here, or undefined
 * when one can: tests skip ONLY when the binaries are missing.
 */
export function postgresUnavailable(): string | undefined {
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!existsSync(join(PG_BIN, tool))) return `PostgreSQL 15 binaries not found (${join(PG_BIN, tool)} is missing; install postgresql-15 or set BENCHBOT_PG_BIN)`;
  }
  return undefined;
}

/**
 * startPostgres runs initdb into a fresh temporary directory and starts the
 * server on a free port with its unix socket inside that directory, so
 * nothing on the machine is touched. PostgreSQL refuses to run as root, so as
 * root the cluster belongs to the `postgres` user (or `nobody` where there is
 * none) and the binaries run through runuser. Durability is switched off:
 * the tests kill clients, never the server.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const why = postgresUnavailable();
  if (why) throw new Error(why);
  const asUser = userInfo().uid === 0 ? unprivilegedUser() : undefined;
  // Under root, TMPDIR may sit below a directory the cluster's owner cannot enter.
  const dir = mkdtempSync(join(asUser ? '/tmp' : tmpdir(), 'benchbot-pg-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'socket');
  mkdirSync(socket);
  if (asUser) {
    for (const path of [dir, socket]) chownSync(path, asUser.uid, asUser.gid);
  }
  const run = (tool: string, args: string[]): string => {
    const [cmd, argv] = asUser ? ['runuser', ['-u', asUser.name, '--', join(PG_BIN, tool), ...args]] : [join(PG_BIN, tool), args];
    const result = spawnSync(cmd, argv, { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    if (result.status !== 0) {
      throw new Error(`${tool} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stdout}\n${result.stderr}`);
    }
    return result.stdout;
  };
  try {
    run('initdb', ['-D', data, '-U', 'benchbot', '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-instructions']);
    const port = await freePort();
    const options = [
      `-p ${port}`,
      `-k ${socket}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=50',
    ].join(' ');
    run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
    const stop = (): void => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const createDatabase = (name: string): string => {
      run('createdb', ['-h', socket, '-p', String(port), '-U', 'benchbot', name]);
      return `postgres://benchbot@127.0.0.1:${port}/${name}`;
    };
    try {
      return { url: createDatabase('benchbot_test'), createDatabase, stop };
    } catch (error) {
      stop();
      throw error;
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function unprivilegedUser(): { name: string; uid: number; gid: number } {
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      return { name, uid, gid };
    } catch {
      // try the next candidate
    }
  }
  throw new Error('running as root and neither a `postgres` nor a `nobody` user exists to own the test cluster');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
