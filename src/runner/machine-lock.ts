import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunnerError } from './git-checkout.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/** DEFAULT_LOCK_WAIT_MS is how long acquireMachineLock waits for another benchbot job by default (1 hour, `--lock-timeout`). */
export const DEFAULT_LOCK_WAIT_MS = 60 * 60_000;
/** DEFAULT_LOCK_POLL_MS is how often a held lock is looked at again. */
export const DEFAULT_LOCK_POLL_MS = 1000;
// A lock file nobody could parse is taken over once it is this old (its writer died between create and write).
const UNREADABLE_GRACE_MS = 10_000;

/**
 * defaultLockPath is BENCHBOT_LOCK, else /tmp/benchbot-machine.lock. Not
 * $TMPDIR or $XDG_RUNTIME_DIR: those differ between users, and the lock must
 * keep every benchbot job on the machine apart, whoever runs it.
 */
export function defaultLockPath(env: Record<string, string | undefined> = process.env): string {
  if (env.BENCHBOT_LOCK) return env.BENCHBOT_LOCK;
  return join(process.platform === 'win32' ? tmpdir() : '/tmp', 'benchbot-machine.lock');
}

/** LockHolder is what a lock file says about the job holding it. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601 time the lock was taken. */
  since: string;
  /** Start time of the process from /proc (clock ticks since boot), to tell a recycled pid. */
  processStart?: string;
  command: string;
  token: string;
}

/** MachineLockOptions says how long to wait for a held lock. */
export interface MachineLockOptions {
  timeoutMs?: number;
  /** nameSetting spells `lock-timeout` in the error (default: the CLI's flag). */
  nameSetting?: NameSetting;
  pollMs?: number;
  /** onWait is told once, when the lock is first found held by another live job. */
  onWait?: (holder: LockHolder | undefined) => void;
}

/** MachineLock is a held lock; release is idempotent and also runs when the process exits. */
export interface MachineLock {
  path: string;
  holder: LockHolder;
  release(): void;
}

/**
 * acquireMachineLock takes the machine-wide benchbot lock at path, waiting
 * while another live job holds it. The lock is a file created exclusively
 * (O_EXCL) holding the holder's pid, host, start time and command. A lock
 * whose holder is dead (same host, pid gone or recycled) is taken over; a
 * holder on another host (a shared /tmp) is never presumed dead. After
 * timeoutMs it throws a RunnerError naming the holder and how to proceed.
 */
export async function acquireMachineLock(path: string = defaultLockPath(), options: MachineLockOptions = {}): Promise<MachineLock> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_WAIT_MS;
  const pollMs = Math.max(1, options.pollMs ?? DEFAULT_LOCK_POLL_MS);
  const start = Date.now();
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    command: process.argv.slice(1).join(' ').slice(0, 500),
    token: randomBytes(12).toString('hex'),
  };
  const processStart = procStat(process.pid)?.start;
  if (processStart !== undefined) mine.processStart = processStart;
  let told = false;
  for (;;) {
    if (tryCreate(path, mine)) return held(path, mine);
    const seen = readHolder(path);
    if (seen === 'gone') continue;
    if (isStale(seen)) {
      takeOver(path, seen.text);
      continue;
    }
    if (Date.now() - start >= timeoutMs) throw new RunnerError(heldMessage(path, seen.holder, Date.now() - start, options.nameSetting ?? cliSetting));
    if (!told) {
      told = true;
      options.onWait?.(seen.holder);
    }
    await new Promise((done) => setTimeout(done, pollMs));
  }
}

function tryCreate(path: string, holder: LockHolder): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new RunnerError(`cannot create the machine lock ${path}: ${(error as Error).message}; set BENCHBOT_LOCK to a writable path`);
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

type Seen = { text: string; holder: LockHolder | undefined; ageMs: number };

function readHolder(path: string): Seen | 'gone' {
  let text: string;
  let ageMs: number;
  try {
    text = readFileSync(path, 'utf8');
    ageMs = Date.now() - statSync(path).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw new RunnerError(`cannot read the machine lock ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as LockHolder;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') return { text, holder: parsed, ageMs };
  } catch {
    // an unreadable lock is judged by its age below
  }
  return { text, holder: undefined, ageMs };
}

function isStale(seen: Seen): boolean {
  const holder = seen.holder;
  if (!holder) return seen.ageMs > UNREADABLE_GRACE_MS;
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  const stat = procStat(holder.pid);
  // A zombie is dead; orphans wait for PID 1 to reap them, which in some containers takes seconds.
  if (stat?.state === 'Z') return true;
  return holder.processStart !== undefined && stat !== undefined && stat.start !== holder.processStart;
}

/**
 * takeOver removes a stale lock without removing a fresh one that replaced
 * it in the meantime: the file is renamed aside (atomic), and put back with
 * link (which never overwrites) when it turns out not to be the stale one.
 */
function takeOver(path: string, staleText: string): void {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new RunnerError(`cannot remove the stale machine lock ${path}: ${(error as Error).message}; delete it by hand or set BENCHBOT_LOCK`);
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, path);
  } catch {
    // EEXIST: someone else holds it now; the one set aside loses its lock, which only a dead-holder race can cause.
  } finally {
    unlinkSync(aside);
  }
}

function held(path: string, holder: LockHolder): MachineLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    try {
      const text = readFileSync(path, 'utf8');
      if (text.includes(holder.token)) unlinkSync(path);
    } catch {
      // already gone
    }
  };
  process.on('exit', release);
  return { path, holder, release };
}

function heldMessage(path: string, holder: LockHolder | undefined, waitedMs: number, name: NameSetting): string {
  const who = holder ? `pid ${holder.pid} on ${holder.host} since ${holder.since}${holder.command ? ` (${holder.command})` : ''}` : 'a job whose lock file cannot be read';
  return (
    `another benchbot job is measuring on this machine: the machine lock ${path} is held by ${who}; waited ${Math.round(waitedMs / 1000)} s (${name('lock-timeout')}). ` +
    `Let it finish or raise ${name('lock-timeout')}; if that process is not benchbot or no longer runs, delete ${path}; set BENCHBOT_LOCK to use another lock file.`
  );
}

/** procStat is a process's state and start time in clock ticks since boot (Linux /proc), undefined elsewhere. */
function procStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], start: fields[19] };
  } catch {
    return undefined;
  }
}
