import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { CommandResult, Executor, RunOptions, SshSpec } from './executor.ts';
import { fingerprintFromResult } from './fingerprint.ts';
import { FINGERPRINT_SCRIPT } from './fingerprint-script.ts';
import { RunnerError } from './git-checkout.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { MAX_INPUT_BYTES } from '../formats/input-limits.ts';
import { checkEnvNames, DEFAULT_KILL_GRACE_MS, FINGERPRINT_TIMEOUT_MS, runProcess, shellQuote, withLabels } from './local-executor.ts';

/** DEFAULT_REMOTE_DIR is where prepared trees go on an ssh host without a directory in its URL. */
export const DEFAULT_REMOTE_DIR = '~/.cache/benchbot';
/** TRANSPORT_SLACK_MS is how much longer than a command's own timeout benchbot waits for ssh or a device link before giving up on it. */
export const TRANSPORT_SLACK_MS = 30_000;

/** RemoteScript is a POSIX sh script that runs one command there, and the marker it prints on stderr when the command timed out. */
export interface RemoteScript {
  script: string;
  timeoutMarker: string;
}

/**
 * remoteScript wraps a command for a machine benchbot reaches through a
 * transport (ssh, adb). Killing the local ssh or adb does not reliably kill
 * what runs on the far side, so the timeout runs there: the command gets its
 * own process group (setsid, or `set -m`) and a watchdog in another group
 * sends SIGTERM, then SIGKILL, to it. The watchdog's output goes to /dev/null because an open
 * descriptor would keep the ssh channel open until it ended. When it fires
 * it leaves a file that makes the script print a random marker on stderr.
 */
export function remoteScript(command: string, options: RunOptions): RemoteScript {
  checkEnvNames(options.env);
  const timeoutMarker = `benchbot-timeout-${randomBytes(8).toString('hex')}`;
  const lines = [`cd ${remotePath(options.cwd)} || exit 125`];
  for (const [name, value] of Object.entries(options.env ?? {})) lines.push(`export ${name}=${shellQuote(value)}`);
  // setsid (util-linux, busybox, toybox) makes the background job a group leader;
  // without it, `set -m` does the same in bash and mksh (dash needs a tty for it).
  lines.push(
    `m="\${TMPDIR:-/tmp}/${timeoutMarker}"`,
    "if command -v setsid >/dev/null 2>&1; then g=setsid; else g=''; set -m 2>/dev/null; fi",
    `$g sh -c ${shellQuote(command)} &`,
    'p=$!',
  );
  const timed = options.timeoutMs > 0 && Number.isFinite(options.timeoutMs);
  if (timed) {
    const seconds = (ms: number): string => (Math.max(ms, 1) / 1000).toFixed(3);
    const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const watchdog = `sleep ${seconds(options.timeoutMs)}; : > "$1"; kill -s TERM -- "-$2" 2>/dev/null || kill -s TERM "$2"; sleep ${seconds(grace)}; kill -s KILL -- "-$2" 2>/dev/null || kill -s KILL "$2"`;
    lines.push(`$g sh -c ${shellQuote(watchdog)} watchdog "$m" "$p" </dev/null >/dev/null 2>&1 &`, 'w=$!');
  }
  lines.push('wait "$p"; rc=$?');
  if (timed) lines.push('kill -s KILL -- "-$w" 2>/dev/null || kill -s KILL "$w" 2>/dev/null');
  lines.push(
    // Stragglers would hold the channel open and disturb the next round, as in runProcess.
    'kill -s KILL -- "-$p" 2>/dev/null',
    `if [ -e "$m" ]; then rm -f "$m"; echo ${timeoutMarker} >&2; fi`,
    'exit $rc',
  );
  return { script: lines.join('\n'), timeoutMarker };
}

/** remoteResult turns the transport's result into the command's: the marker becomes timedOut. */
export function remoteResult(result: CommandResult, wrapped: RemoteScript): CommandResult {
  const lines = result.stderr.split('\n');
  const at = lines.lastIndexOf(wrapped.timeoutMarker);
  if (at < 0) return result;
  lines.splice(at, 1);
  return { ...result, stderr: lines.join('\n'), timedOut: true };
}

/** transportTimeout is how long the local end of a transport may take for a command with this timeout. */
export function transportTimeout(options: RunOptions): number {
  if (!(options.timeoutMs > 0 && Number.isFinite(options.timeoutMs))) return 0;
  return options.timeoutMs + (options.killGraceMs ?? DEFAULT_KILL_GRACE_MS) + TRANSPORT_SLACK_MS;
}

/** remotePath quotes a path for the far side's shell, keeping a leading `~` meaning the remote home. */
export function remotePath(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2))}`;
  return shellQuote(path);
}

/** safeLabel makes a label usable as one directory name. */
export function safeLabel(label: string): string {
  const safe = label.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe === '' ? '_' : safe;
}

/** parseLoadAverage reads the first number of /proc/loadavg or `sysctl -n vm.loadavg` output. */
export function parseLoadAverage(text: string): number | undefined {
  const match = /^\s*\{?\s*(\d+(?:\.\d+)?)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** LOAD_COMMAND prints the load average on Linux and on macOS / BSD. */
export const LOAD_COMMAND = 'cat /proc/loadavg 2>/dev/null || sysctl -n vm.loadavg 2>/dev/null';

/**
 * SshExecutor measures on a remote host through the system OpenSSH client:
 * non-interactive (BatchMode), new host keys accepted and recorded, one
 * multiplexed connection (ControlMaster) for all commands of a run. Trees are
 * shipped as a tar stream over ssh (no rsync needed on either side).
 */
export class SshExecutor implements Executor {
  readonly description: string;
  private readonly spec: SshSpec;
  private controlDir: string | undefined;

  /** `name` spells the `executor` setting in errors (default: the CLI's flag). */
  constructor(spec: SshSpec, name: NameSetting = cliSetting) {
    for (const [what, value] of [['host', spec.host], ['user', spec.user ?? '']] as const) {
      if (/^-|[\s'"\\;]/.test(value)) throw new RunnerError(`${name('executor')}: the ssh ${what} ${JSON.stringify(value)} is not valid`);
    }
    this.spec = spec;
    const host = spec.host.includes(':') ? `[${spec.host}]` : spec.host;
    this.description = `ssh://${spec.user ? `${spec.user}@` : ''}${host}${spec.port ? `:${spec.port}` : ''}`;
  }

  /** sshArgs are the options every ssh call shares, ending with the destination. */
  private sshArgs(): string[] {
    // A short socket path: unix sockets are limited to about 100 bytes.
    this.controlDir ??= mkdtempSync(join(process.platform === 'win32' ? tmpdir() : '/tmp', 'bb-ssh-'));
    const args = [
      '-T',
      '-o', 'BatchMode=yes',
      '-o', 'ConnectTimeout=15',
      '-o', 'StrictHostKeyChecking=accept-new',
      '-o', 'ServerAliveInterval=15',
      '-o', 'ServerAliveCountMax=4',
      '-o', 'ControlMaster=auto',
      '-o', `ControlPath=${join(this.controlDir, '%C')}`,
      '-o', 'ControlPersist=300',
      '-o', 'LogLevel=ERROR',
    ];
    if (this.spec.port !== undefined) args.push('-p', String(this.spec.port));
    if (this.spec.identity !== undefined) args.push('-i', this.spec.identity, '-o', 'IdentitiesOnly=yes');
    if (this.spec.knownHosts !== undefined) args.push('-o', `UserKnownHostsFile=${this.spec.knownHosts}`);
    args.push(...(this.spec.sshArgs ?? []));
    args.push(this.spec.user ? `${this.spec.user}@${this.spec.host}` : this.spec.host);
    return args;
  }

  private async ssh(script: string, options: { timeoutMs: number; input?: NodeJS.ReadableStream; stdoutSink?: NodeJS.WritableStream }): Promise<CommandResult> {
    try {
      // `sh -c` so that the remote login shell (bash, zsh, fish...) only has to parse one quoted word.
      return await runProcess('ssh', [...this.sshArgs(), `sh -c ${shellQuote(script)}`], options);
    } catch (error) {
      throw new RunnerError(`cannot start ssh for ${this.description} (${(error as Error).message}); install the OpenSSH client (openssh-client)`);
    }
  }

  private fail(what: string, result: CommandResult): RunnerError {
    const why = result.timedOut ? 'timed out' : result.exitCode === 255 ? 'ssh failed' : `exit ${result.exitCode ?? result.signal}`;
    return new RunnerError(`${what} on ${this.description} failed (${why}): ${result.stderr.trim().split('\n').slice(-5).join(' | ')}`);
  }

  async prepare(localDir: string, label: string): Promise<string> {
    const base = this.spec.dir ?? DEFAULT_REMOTE_DIR;
    const name = safeLabel(label);
    const tar = spawn('tar', ['-C', resolve(localDir), '--exclude=./.git', '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tarErr = '';
    tar.stderr.on('data', (chunk: Buffer) => (tarErr += chunk.toString()));
    const tarDone = once(tar, 'close').catch((error: Error) => [null, error.message]);
    const script = `set -e; mkdir -p ${remotePath(base)}; cd ${remotePath(base)}; rm -rf ${shellQuote(name)}; mkdir ${shellQuote(name)}; cd ${shellQuote(name)}; tar -xf -; pwd`;
    const result = await this.ssh(script, { timeoutMs: 30 * 60_000, input: tar.stdout });
    const [tarCode] = (await tarDone) as [number | null];
    // ssh first: when it cannot connect, tar only sees a broken pipe.
    if (result.exitCode !== 0) throw this.fail(`shipping ${localDir} to ${base}/${name}`, result);
    if (tarCode !== 0) throw new RunnerError(`cannot pack ${localDir} to ship to ${this.description}: tar ${tarCode === null ? 'could not run' : `exit ${tarCode}`}: ${tarErr.trim()}`);
    const path = result.stdout.trim().split('\n').pop() ?? '';
    if (!path.startsWith('/')) throw new RunnerError(`shipping ${localDir} to ${this.description}: the remote shell printed no directory (got ${JSON.stringify(result.stdout.slice(0, 200))})`);
    return path;
  }

  async run(command: string, options: RunOptions): Promise<CommandResult> {
    const wrapped = remoteScript(command, options);
    const result = await this.ssh(wrapped.script, { timeoutMs: transportTimeout(options) });
    return remoteResult(result, wrapped);
  }

  async fetch(remotePathText: string, localPath: string): Promise<void> {
    mkdirSync(dirname(resolve(localPath)), { recursive: true });
    const sink = createWriteStream(localPath);
    const opened = once(sink, 'open');
    await opened;
    let result: CommandResult;
    try {
      // Only a regular file, and one byte past the input limit at most: the bench command chose what is there (a FIFO never ends).
      const path = remotePath(remotePathText);
      result = await this.ssh(`[ -f ${path} ] || { echo 'not a regular file' >&2; exit 1; }; exec head -c ${MAX_INPUT_BYTES + 1} ${path}`, { timeoutMs: 30 * 60_000, stdoutSink: sink });
    } finally {
      sink.end();
      await once(sink, 'close');
    }
    if (result.exitCode !== 0) {
      rmSync(localPath, { force: true });
      throw this.fail(`fetching ${remotePathText}`, result);
    }
  }

  async fingerprint(labels?: string[]): Promise<Fingerprint> {
    const result = await this.run(FINGERPRINT_SCRIPT, { cwd: '/', timeoutMs: FINGERPRINT_TIMEOUT_MS });
    return withLabels(fingerprintFromResult(result, `on ${this.description}`), labels);
  }

  async loadAverage(): Promise<number | undefined> {
    const result = await this.ssh(LOAD_COMMAND, { timeoutMs: 60_000 });
    if (result.exitCode !== 0 && result.stdout === '') throw this.fail('reading the load average', result);
    return parseLoadAverage(result.stdout);
  }

  async close(): Promise<void> {
    if (this.controlDir === undefined) return;
    const args = this.sshArgs();
    await runProcess('ssh', ['-O', 'exit', ...args], { timeoutMs: 10_000 }).catch(() => undefined);
    rmSync(this.controlDir, { recursive: true, force: true });
    this.controlDir = undefined;
  }
}
