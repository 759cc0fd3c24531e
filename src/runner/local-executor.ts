import { spawn } from 'node:child_process';
import { copyFile, mkdir, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { CommandResult, Executor, RunOptions } from './executor.ts';
import { fingerprintFromResult } from './fingerprint.ts';
import { FINGERPRINT_SCRIPT } from './fingerprint-script.ts';
import { RunnerError } from './git-checkout.ts';
import { FormatError } from '../formats/format-error.ts';
import { MAX_INPUT_BYTES, tooLarge } from '../formats/input-limits.ts';
import { randomUUID } from 'node:crypto';
import { commandEnv } from './command-env.ts';
import { COMMAND_MARKER_ENV, sweepStrays } from './stray-processes.ts';

/** OUTPUT_CAP_BYTES is how much of each of stdout and stderr a command may leave in memory (64 MiB); the rest is dropped with a note. */
export const OUTPUT_CAP_BYTES = 64 * 1024 * 1024;
/** DEFAULT_KILL_GRACE_MS is how long a timed-out process group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2000;
/** FINGERPRINT_TIMEOUT_MS bounds the fingerprint script (java -version alone can take a second). */
export const FINGERPRINT_TIMEOUT_MS = 60_000;

/** ProcessOptions says how runProcess starts one program. */
export interface ProcessOptions {
  cwd?: string;
  /** env defaults to commandEnv(): benchbot's environment without its secrets. */
  env?: NodeJS.ProcessEnv;
  /**
   * sweep: after the command, find what it left running outside its killed
   * process group (stray-processes.ts), kill it and list it in the result's
   * `strays`. The command's environment gets a marker for that.
   */
  sweep?: boolean;
  /** Kill the process group after this many ms; 0 or Infinity waits for ever. */
  timeoutMs: number;
  killGraceMs?: number;
  /** Written to the program's stdin, then closed; without it stdin is /dev/null. */
  input?: string | NodeJS.ReadableStream;
  /** Receives stdout as it arrives instead of buffering it (stdout is then ''). */
  stdoutSink?: NodeJS.WritableStream;
}

/**
 * LIVE_GROUPS are the process groups runProcess started that have not exited.
 * Each runs in its own group (so a timeout can kill what it forked), which
 * also keeps a terminal's Ctrl-C from reaching it: when benchbot exits for
 * any reason (an interrupt included), they are killed with it rather than
 * left measuring on a machine that believes it is free.
 */
const LIVE_GROUPS = new Set<number>();
let killLiveGroupsOnExit = false;

function trackGroup(pid: number): void {
  LIVE_GROUPS.add(pid);
  if (killLiveGroupsOnExit) return;
  killLiveGroupsOnExit = true;
  process.on('exit', () => {
    for (const group of LIVE_GROUPS) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // ESRCH: gone already.
      }
    }
  });
}

/**
 * runProcess runs file with args in its own process group and resolves when
 * it has exited and its output pipes have closed. On timeout the whole group
 * gets SIGTERM, then SIGKILL after killGraceMs. When the leader exits on its
 * own, whatever it left running in its group is SIGKILLed: a straggler would
 * keep the pipes open and disturb the next measurement. It rejects only when
 * the program cannot be started (missing file or cwd).
 */
export function runProcess(file: string, args: readonly string[], options: ProcessOptions): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    const start = process.hrtime.bigint();
    const marker = options.sweep ? randomUUID() : undefined;
    const env = options.env ?? commandEnv();
    let child;
    try {
      child = spawn(file, args, {
        cwd: options.cwd,
        env: marker === undefined ? env : { ...env, [COMMAND_MARKER_ENV]: marker },
        detached: true,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      reject(error);
      return;
    }
    if (child.pid !== undefined) trackGroup(child.pid);
    // stdio is 'pipe' for both, so neither stream is null.
    const out = child.stdout!;
    const err = child.stderr!;
    const stdout = options.stdoutSink ? undefined : new CappedBuffer();
    const stderr = new CappedBuffer();
    if (options.stdoutSink) out.pipe(options.stdoutSink, { end: false });
    else out.on('data', (chunk: Buffer) => stdout!.push(chunk));
    err.on('data', (chunk: Buffer) => stderr.push(chunk));
    if (child.stdin) {
      // The program may exit without reading all of its input.
      child.stdin.on('error', () => {});
      if (typeof options.input === 'string') child.stdin.end(options.input);
      else if (options.input) options.input.pipe(child.stdin);
    }

    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null; durationMs: number } | undefined;
    const timers: NodeJS.Timeout[] = [];
    const killGroup = (signal: NodeJS.Signals): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    };
    const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    if (options.timeoutMs > 0 && Number.isFinite(options.timeoutMs)) {
      timers.push(
        setTimeout(() => {
          timedOut = true;
          killGroup('SIGTERM');
          timers.push(setTimeout(() => killGroup('SIGKILL'), grace));
        }, options.timeoutMs),
      );
    }
    child.on('error', (error) => {
      for (const t of timers) clearTimeout(t);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exited = { code, signal, durationMs: Number(process.hrtime.bigint() - start) / 1e6 };
      killGroup('SIGKILL');
      if (child.pid !== undefined) LIVE_GROUPS.delete(child.pid);
      // A straggler that escaped the group (setsid) may still hold a pipe: do not wait for it for ever.
      timers.push(
        setTimeout(() => {
          out.destroy();
          err.destroy();
          finish();
        }, 1000),
      );
    });
    let finished = false;
    const finish = (): void => {
      if (finished || !exited) return;
      finished = true;
      for (const t of timers) clearTimeout(t);
      const result: CommandResult = {
        exitCode: exited.code,
        signal: exited.signal,
        stdout: stdout ? stdout.text() : '',
        stderr: stderr.text(),
        durationMs: exited.durationMs,
        timedOut,
      };
      if (marker === undefined || child.pid === undefined) return resolvePromise(result);
      sweepStrays(child.pid, marker).then((strays) => resolvePromise(strays.length > 0 ? { ...result, strays } : result), reject);
    };
    child.on('close', finish);
  });
}

/** CappedBuffer keeps the first OUTPUT_CAP_BYTES of a stream and counts the rest. */
class CappedBuffer {
  private chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;
  push(chunk: Buffer): void {
    const room = OUTPUT_CAP_BYTES - this.kept;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
    this.dropped += chunk.length - part.length;
  }
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped === 0 ? text : `${text}\n[benchbot: output truncated: ${this.dropped} bytes beyond the first ${OUTPUT_CAP_BYTES} were dropped]\n`;
  }
}

/** shellQuote quotes a string as one word for a POSIX shell. */
export function shellQuote(text: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** checkEnvNames rejects environment variable names a shell could not export. */
export function checkEnvNames(env: Record<string, string> | undefined): void {
  for (const name of Object.keys(env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new RunnerError(`environment variable name ${JSON.stringify(name)} is not valid in a shell`);
  }
}

/**
 * LocalExecutor runs commands on this machine, each through `sh -c` in its
 * own process group.
 */
export class LocalExecutor implements Executor {
  readonly description = 'local';

  async prepare(localDir: string, _label: string): Promise<string> {
    return resolve(localDir);
  }

  run(command: string, options: RunOptions): Promise<CommandResult> {
    checkEnvNames(options.env);
    return runProcess('sh', ['-c', command], {
      cwd: options.cwd,
      env: commandEnv(options.env),
      sweep: true,
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs,
    }).catch((error: Error) => {
      throw new RunnerError(`cannot run a command in ${options.cwd}: ${error.message}`);
    });
  }

  async fetch(remotePath: string, localPath: string): Promise<void> {
    if (resolve(remotePath) === resolve(localPath)) return;
    // The bench command chose what is at remotePath: copying a FIFO never
    // ends and copying a 100 GB sparse file fills the disk, so only a regular
    // file within the input limit is copied (the reader measures it again).
    const found = await stat(remotePath);
    if (!found.isFile()) throw new FormatError(remotePath, undefined, 'is not a regular file; write results to a regular file');
    if (found.size > MAX_INPUT_BYTES) throw tooLarge(remotePath, found.size);
    await mkdir(dirname(resolve(localPath)), { recursive: true });
    await copyFile(remotePath, localPath);
  }

  async fingerprint(labels?: string[]): Promise<Fingerprint> {
    const result = await runProcess('sh', ['-c', FINGERPRINT_SCRIPT], { cwd: '/', timeoutMs: FINGERPRINT_TIMEOUT_MS });
    return withLabels(fingerprintFromResult(result, 'on this machine'), labels);
  }

  async loadAverage(): Promise<number | undefined> {
    if (process.platform === 'win32') return undefined;
    return loadavg()[0];
  }

  async close(): Promise<void> {}
}

/** withLabels adds the runner labels the caller knows about to a fingerprint. */
export function withLabels(fingerprint: Fingerprint, labels: string[] | undefined): Fingerprint {
  return labels && labels.length > 0 ? { ...fingerprint, runnerLabels: [...labels] } : fingerprint;
}
