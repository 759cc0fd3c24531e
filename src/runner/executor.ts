import type { Fingerprint } from '../model/fingerprint.ts';
import type { StrayProcess } from './stray-processes.ts';
import { DeviceExecutor } from './device-executor.ts';
import { LocalExecutor } from './local-executor.ts';
import { SshExecutor } from './ssh-executor.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/** CommandResult is how one command ended. durationMs is wall time seen by benchbot (for ssh and devices it includes the transport). */
export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** strays are the processes the command left running outside its process group, which benchbot killed (local commands only). */
  strays?: StrayProcess[];
}

/** RunOptions says where and how long a command may run. timeoutMs <= 0 means no limit. */
export interface RunOptions {
  cwd: string;
  timeoutMs: number;
  env?: Record<string, string>;
  /** Time between SIGTERM and SIGKILL when the timeout fires; default 2000 ms. */
  killGraceMs?: number;
}

/** Executor runs benchmark commands on the machine that measures: this one, an ssh host, or a device. */
export interface Executor {
  /** description names the machine for messages, e.g. `local`, `ssh://bench@box:22`. */
  readonly description: string;
  /** prepare makes a local directory (a built worktree) available where commands run; returns that path there. */
  prepare(localDir: string, label: string): Promise<string>;
  /** run executes a shell command (sh -c) there, with a timeout that kills the whole process group. */
  run(command: string, options: RunOptions): Promise<CommandResult>;
  /** fetch copies a file produced there back to a local path. */
  fetch(remotePath: string, localPath: string): Promise<void>;
  /** fingerprint describes the machine the commands run on. */
  fingerprint(labels?: string[]): Promise<Fingerprint>;
  /** loadAverage is the 1-minute load average there (cheap, for the load guard); undefined when it cannot be told. */
  loadAverage(): Promise<number | undefined>;
  close(): Promise<void>;
}

/** SshSpec measures on a remote host through the system `ssh`. */
export interface SshSpec {
  kind: 'ssh';
  user?: string;
  host: string;
  port?: number;
  /** Remote directory for prepared trees; default `~/.cache/benchbot`. */
  dir?: string;
  /** Private key file (`ssh -i`, with IdentitiesOnly). */
  identity?: string;
  /** known_hosts file to use instead of the user's (new hosts are accepted and recorded). */
  knownHosts?: string;
  /** More ssh arguments, placed before the destination (e.g. `-F /dev/null`, `-o ProxyJump=gw`). */
  sshArgs?: string[];
}

/** DeviceSpec measures through command templates, e.g. `adb shell {cmd}`. */
export interface DeviceSpec {
  kind: 'device';
  /** Runs a shell command there; `{cmd}` is replaced by the command, quoted as one shell word. */
  run: string;
  /** Copies a local directory there; `{src}` and `{dst}` are replaced, quoted. Without it the path is assumed shared. */
  push?: string;
  /** Copies a file from there; `{src}` (there) and `{dst}` (here) are replaced, quoted. Without it the path is assumed shared. */
  pull?: string;
  /** Directory there for pushed trees; default `/data/local/tmp/benchbot` (Android's world-writable place). */
  dir?: string;
}

/** ExecutorSpec is a parsed `--executor` value. */
export type ExecutorSpec = { kind: 'local' } | SshSpec | DeviceSpec;

/** DeviceTemplates are the `--device-run`, `--device-push` and `--device-pull` flags. */
export interface DeviceTemplates {
  run?: string;
  push?: string;
  pull?: string;
}

const forms = (name: NameSetting) => `local (default), ssh://[user@]host[:port][/dir][?identity=FILE&known_hosts=FILE], or device[:DIR] with ${name('device-run')} 'adb shell {cmd}'`;

/**
 * parseExecutorSpec reads an `--executor` value. Errors name the setting
 * (as `name` spells it: the CLI's flag by default) and the valid forms. In an ssh URL the path is the remote directory (absolute;
 * start it with `/~/` for one under the remote home).
 */
export function parseExecutorSpec(text: string, device?: DeviceTemplates, name: NameSetting = cliSetting): ExecutorSpec {
  const value = text.trim();
  if (value === '' || value === 'local') return { kind: 'local' };
  if (value === 'device' || value.startsWith('device:')) return deviceSpec(value.slice('device:'.length) || undefined, device ?? {}, name);
  if (value.startsWith('ssh://')) return sshSpec(value, name);
  throw new Error(`${name('executor')}: cannot use ${JSON.stringify(text)}; use ${forms(name)}`);
}

function sshSpec(text: string, name: NameSetting): SshSpec {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name('executor')}: ${JSON.stringify(text)} is not a valid ssh URL; use ssh://[user@]host[:port][/dir]`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw new Error(`${name('executor')}: ${JSON.stringify(text)} has no host; use ssh://[user@]host[:port][/dir]`);
  if (url.password !== '') throw new Error(`${name('executor')}: ssh URLs must not carry a password; use a key (ssh-agent, ~/.ssh/config or ?identity=FILE)`);
  const spec: SshSpec = { kind: 'ssh', host };
  if (url.username !== '') spec.user = decodeURIComponent(url.username);
  if (url.port !== '') spec.port = Number(url.port);
  const path = decodeURIComponent(url.pathname);
  if (path !== '' && path !== '/') spec.dir = path.startsWith('/~') ? path.slice(1) : path;
  for (const [param, value] of url.searchParams) {
    if (param === 'identity') spec.identity = value;
    else if (param === 'known_hosts') spec.knownHosts = value;
    else throw new Error(`${name('executor')}: unknown ssh URL parameter ${JSON.stringify(param)}; use identity or known_hosts`);
  }
  return spec;
}

function deviceSpec(dir: string | undefined, templates: DeviceTemplates, name: NameSetting): DeviceSpec {
  if (!templates.run) throw new Error(`${name('executor')}: device needs ${name('device-run')}, a command template with {cmd}, e.g. ${name('device-run')} 'adb shell {cmd}'`);
  if (!templates.run.includes('{cmd}')) throw new Error(`${name('device-run')}: ${JSON.stringify(templates.run)} has no {cmd}; e.g. 'adb shell {cmd}' or 'adb -s SERIAL shell {cmd}'`);
  for (const [setting, template] of [['device-push', templates.push], ['device-pull', templates.pull]] as const) {
    if (template !== undefined && !(template.includes('{src}') && template.includes('{dst}'))) {
      throw new Error(`${name(setting)}: ${JSON.stringify(template)} needs both {src} and {dst}; e.g. 'adb ${setting === 'device-push' ? 'push' : 'pull'} {src} {dst}'`);
    }
  }
  const spec: DeviceSpec = { kind: 'device', run: templates.run };
  if (templates.push !== undefined) spec.push = templates.push;
  if (templates.pull !== undefined) spec.pull = templates.pull;
  if (dir !== undefined) spec.dir = dir;
  return spec;
}

/** createExecutor makes the executor a spec describes; nothing connects until it is first used. */
export function createExecutor(spec: ExecutorSpec, name: NameSetting = cliSetting): Executor {
  switch (spec.kind) {
    case 'local':
      return new LocalExecutor();
    case 'ssh':
      return new SshExecutor(spec, name);
    case 'device':
      return new DeviceExecutor(spec, name);
  }
}
