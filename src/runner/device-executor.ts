import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { CommandResult, DeviceSpec, Executor, RunOptions } from './executor.ts';
import { fingerprintFromResult } from './fingerprint.ts';
import { FINGERPRINT_SCRIPT } from './fingerprint-script.ts';
import { RunnerError } from './git-checkout.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { FINGERPRINT_TIMEOUT_MS, runProcess, shellQuote, withLabels } from './local-executor.ts';
import { LOAD_COMMAND, parseLoadAverage, remotePath, remoteResult, remoteScript, safeLabel, transportTimeout } from './ssh-executor.ts';

/** DEFAULT_DEVICE_DIR is where pushed trees go without `device:DIR`: Android's world-writable temporary directory. */
export const DEFAULT_DEVICE_DIR = '/data/local/tmp/benchbot';
/** TRANSFER_TIMEOUT_MS bounds one push or pull. */
export const TRANSFER_TIMEOUT_MS = 30 * 60_000;

/**
 * fillTemplate replaces each `{name}` in a template by its value quoted as
 * one shell word; the template itself is run by the local `sh -c`.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? shellQuote(values[name]) : whole));
}

/**
 * DeviceExecutor measures on a machine reached through command templates:
 * `run` with `{cmd}` (e.g. `adb shell {cmd}`), optional `push` and `pull`
 * with `{src}` and `{dst}` (e.g. `adb push {src} {dst}`). Without push the
 * prepared directory is assumed to be visible there under the same path;
 * without pull, fetched files are assumed to be visible here.
 */
export class DeviceExecutor implements Executor {
  readonly description: string;
  private readonly spec: DeviceSpec;
  private readonly name: NameSetting;

  /** `name` spells the `device-*` settings in errors (default: the CLI's flags). */
  constructor(spec: DeviceSpec, name: NameSetting = cliSetting) {
    this.spec = spec;
    this.name = name;
    this.description = `device (${spec.run})`;
  }

  private async local(command: string, timeoutMs: number): Promise<CommandResult> {
    try {
      return await runProcess('sh', ['-c', command], { timeoutMs });
    } catch (error) {
      throw new RunnerError(`cannot run the device command ${JSON.stringify(command)}: ${(error as Error).message}`);
    }
  }

  private fail(what: string, command: string, result: CommandResult): RunnerError {
    const why = result.timedOut ? 'timed out' : `exit ${result.exitCode ?? result.signal}`;
    const tail = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-5).join(' | ');
    return new RunnerError(`${what} failed (${why}) running ${JSON.stringify(command)}${tail ? `: ${tail}` : ''}`);
  }

  async prepare(localDir: string, label: string): Promise<string> {
    if (this.spec.push === undefined) return resolve(localDir);
    const base = this.spec.dir ?? DEFAULT_DEVICE_DIR;
    const target = `${base.replace(/\/+$/, '')}/${safeLabel(label)}`;
    const clean = await this.run(`mkdir -p ${remotePath(base)} && rm -rf ${remotePath(target)}`, { cwd: '/', timeoutMs: 120_000 });
    if (clean.exitCode !== 0) throw this.fail(`preparing ${target} on ${this.description}`, this.spec.run, clean);
    // Both adb push and cp -R create {dst} as a copy of {src} when {dst} does not exist.
    const push = fillTemplate(this.spec.push, { src: resolve(localDir), dst: target });
    const result = await this.local(push, TRANSFER_TIMEOUT_MS);
    if (result.exitCode !== 0) throw this.fail(`pushing ${localDir} (${this.name('device-push')})`, push, result);
    return target;
  }

  async run(command: string, options: RunOptions): Promise<CommandResult> {
    const wrapped = remoteScript(command, options);
    const line = fillTemplate(this.spec.run, { cmd: `sh -c ${shellQuote(wrapped.script)}` });
    return remoteResult(await this.local(line, transportTimeout(options)), wrapped);
  }

  async fetch(remotePathText: string, localPath: string): Promise<void> {
    await mkdir(dirname(resolve(localPath)), { recursive: true });
    if (this.spec.pull === undefined) {
      if (resolve(remotePathText) !== resolve(localPath)) await copyFile(remotePathText, localPath);
      return;
    }
    const pull = fillTemplate(this.spec.pull, { src: remotePathText, dst: resolve(localPath) });
    const result = await this.local(pull, TRANSFER_TIMEOUT_MS);
    if (result.exitCode !== 0) throw this.fail(`fetching ${remotePathText} (${this.name('device-pull')})`, pull, result);
  }

  async fingerprint(labels?: string[]): Promise<Fingerprint> {
    const result = await this.run(FINGERPRINT_SCRIPT, { cwd: '/', timeoutMs: FINGERPRINT_TIMEOUT_MS });
    return withLabels(fingerprintFromResult(result, `on ${this.description}`), labels);
  }

  async loadAverage(): Promise<number | undefined> {
    const result = await this.run(LOAD_COMMAND, { cwd: '/', timeoutMs: 60_000 });
    return parseLoadAverage(result.stdout);
  }

  async close(): Promise<void> {}
}
