import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { RunnerError } from './git-checkout.ts';
import { commandEnv } from './command-env.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/** BUILD_MARKER records, inside a worktree, which tree and build command produced its artifacts. */
const BUILD_MARKER = '.benchbot-build';

/** BuildOutcome says whether a build ran or was skipped because the same tree was built with the same command. */
export interface BuildOutcome {
  skipped: boolean;
  durationMs: number;
}

/**
 * buildSide runs the build command in a worktree once: a marker file keyed
 * by tree hash and command makes later runs skip it. A failing build throws a
 * RunnerError with the exit code and the tail of its log; a missing tool
 * (exit 127) says which command was not found; `name` spells the settings it names.
 */
export function buildSide(worktree: string, tree: string, command: string, label: string, timeoutMs: number, env?: Record<string, string>, name: NameSetting = cliSetting): BuildOutcome {
  // The environment is part of what was built (cargo-bisect-rustc varies RUSTUP_TOOLCHAIN).
  const key = createHash('sha256').update(`${tree}\n${command}\n${JSON.stringify(env ?? {})}`).digest('hex');
  const marker = join(worktree, BUILD_MARKER);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === key) return { skipped: true, durationMs: 0 };
  const start = process.hrtime.bigint();
  const run = spawnSync('sh', ['-c', command], { cwd: worktree, env: commandEnv(env), encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 });
  const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
  const log = `${run.stdout ?? ''}${run.stderr ?? ''}`;
  const tail = log.trimEnd().split('\n').slice(-30).join('\n');
  if (run.error && (run.error as NodeJS.ErrnoException).code === 'ETIMEDOUT') {
    throw new RunnerError(`build of ${label} timed out after ${Math.round(timeoutMs / 1000)} s (${name('build-timeout')}); last output:\n${tail}`);
  }
  if (run.signal === 'SIGINT' || run.signal === 'SIGTERM') {
    // Ctrl-C reached the build, which shares benchbot's process group; benchbot's own handler runs only after this
    // synchronous wait, when the command may be over: the error carries the signal so the command reports the interrupt.
    throw Object.assign(new RunnerError(`build of ${label} was interrupted (${run.signal}): ${command}`), { interruptedBy: run.signal });
  }
  if (run.status !== 0) {
    const hint = run.status === 127 ? ` (a command was not found: install the build tool or fix ${name('build')})` : '';
    throw new RunnerError(`build of ${label} failed with exit code ${run.status ?? run.signal}${hint}: ${command}\n--- last lines of the build log ---\n${tail}`);
  }
  writeFileSync(marker, key);
  return { skipped: false, durationMs };
}
