import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poolMeasurements } from '../compare/compare-runs.ts';
import { readSource } from '../formats/detect.ts';
import { FormatError } from '../formats/format-error.ts';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { buildSide } from './build-side.ts';
import type { Executor } from './executor.ts';
import { checkoutWorktree, RunnerError, treeHash } from './git-checkout.ts';
import type { Progress } from './progress.ts';
import { shellQuote } from './run-ab.ts';

/**
 * MeasureSettings say how one benchmark session runs: `rounds` kept rounds
 * after `warmup` discarded ones, each running `bench` (`format` as in
 * `benchbot run`: a reader name, `command` to time the whole command
 * through hyperfine, undefined to detect), reading stdout or `resultFile`.
 * `env` is added to every build and round (e.g. RUSTUP_TOOLCHAIN).
 */
export interface MeasureSettings {
  bench: string;
  build?: string;
  format?: string;
  resultFile?: string;
  rounds: number;
  warmup: number;
  roundTimeoutMs: number;
  buildTimeoutMs: number;
  env?: Record<string, string>;
}

/** MeasureDeps are the edges a session touches. */
export interface MeasureDeps {
  executor: Executor;
  progress: Progress;
}

/**
 * MeasureOutcome is a session's result: every benchmark x metric with the
 * values of all rounds pooled in round order, or `skip` with the reason
 * when the commit cannot be measured (the build fails, a round crashes,
 * times out or prints nothing readable). A bisection treats a skip like
 * `git bisect skip`.
 */
export type MeasureOutcome =
  | { skip?: undefined; measurements: Measurement[]; rounds: number; harness: string; warnings: ReadWarning[]; hints: FingerprintHints; durationMs: number }
  | { skip: string };

/**
 * measureCommit checks `sha` out in a worktree under `stateDir` (reused
 * when it is already there), builds it once per tree and build command,
 * and runs one session there. A failed build is a skip, not an error:
 * bisections cross broken commits.
 */
export async function measureCommit(repo: string, sha: string, stateDir: string, settings: MeasureSettings, deps: MeasureDeps): Promise<MeasureOutcome> {
  const label = sha.slice(0, 12);
  const worktree = checkoutWorktree(repo, sha, stateDir);
  if (settings.build) {
    try {
      const env = settings.env;
      // buildSide has no env parameter; the build inherits ours, so lend it the extra variables for the build only.
      const saved = withEnv(env);
      try {
        buildSide(worktree, treeHash(repo, sha), settings.build, label, settings.buildTimeoutMs);
      } finally {
        saved();
      }
    } catch (error) {
      if (error instanceof RunnerError) return { skip: firstLines(error.message) };
      throw error;
    }
  }
  const dir = await deps.executor.prepare(worktree, `bisect-${label}`);
  return measureDirectory(dir, label, { ...settings, build: undefined }, deps);
}

/**
 * measureDirectory runs one session in a directory as it is (no checkout):
 * the build command first when given (every time), then the rounds. This
 * is the cargo-bisect-rustc case, where the project stays and the
 * toolchain changes through the environment.
 */
export async function measureDirectory(dir: string, label: string, settings: MeasureSettings, deps: MeasureDeps): Promise<MeasureOutcome> {
  const { executor, progress } = deps;
  if (settings.build) {
    const built = await executor.run(settings.build, { cwd: dir, timeoutMs: settings.buildTimeoutMs, env: settings.env });
    if (built.timedOut) return { skip: `build timed out after ${Math.round(settings.buildTimeoutMs / 1000)} s` };
    if (built.exitCode !== 0) return { skip: `build failed with exit code ${built.exitCode ?? built.signal}: ${tail(built.stderr || built.stdout)}` };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-measure-'));
  try {
    const measurements: Measurement[] = [];
    const warnings = new Map<string, ReadWarning>();
    const hints: FingerprintHints = {};
    let harness = settings.format ?? 'detected';
    let durationMs = 0;
    for (let round = -settings.warmup + 1; round <= settings.rounds; round++) {
      const outcome = await runRound(settings, executor, dir, scratch, round);
      if ('failure' in outcome) {
        progress.note(`${label}: round ${round} failed: ${outcome.failure}`);
        return { skip: `round ${round} failed: ${outcome.failure}` };
      }
      if (round < 1) continue;
      durationMs += outcome.durationMs;
      harness = outcome.format;
      measurements.push(...outcome.measurements);
      for (const w of outcome.warnings) warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
      Object.assign(hints, outcome.hints);
    }
    progress.note(`${label}: ${settings.rounds} round(s) measured`);
    return { measurements: poolMeasurements(measurements), rounds: settings.rounds, harness, warnings: [...warnings.values()], hints, durationMs };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

type RoundOutcome = { failure: string } | { format: string; measurements: Measurement[]; warnings: ReadWarning[]; hints: FingerprintHints; durationMs: number };

async function runRound(settings: MeasureSettings, executor: Executor, dir: string, scratch: string, round: number): Promise<RoundOutcome> {
  const timing = settings.format === 'command';
  const hyperfineFile = '.benchbot-hyperfine.json';
  const command = timing
    ? `hyperfine --runs 1 --warmup 0 --style none --export-json ${hyperfineFile} -- ${shellQuote(settings.bench)}`
    : settings.bench;
  const result = await executor.run(command, { cwd: dir, timeoutMs: settings.roundTimeoutMs, env: settings.env });
  if (result.timedOut) return { failure: `timed out after ${Math.round(settings.roundTimeoutMs / 1000)} s` };
  if (result.exitCode !== 0) return { failure: `exit code ${result.exitCode ?? result.signal}: ${tail(result.stderr || result.stdout)}` };
  try {
    let text = result.stdout;
    const remote = timing ? hyperfineFile : settings.resultFile;
    if (remote !== undefined) {
      const local = join(scratch, `${round}-${remote.replace(/[^\w.-]/g, '_')}`);
      await executor.fetch(remote.startsWith('/') ? remote : `${dir}/${remote}`, local);
      text = readFileSync(local, 'utf8');
    }
    const read = readSource({ path: `round ${round} output`, text }, timing ? 'hyperfine' : settings.format);
    const measurements = timing ? read.measurements.map((m) => ({ ...m, benchmark: 'command' })) : read.measurements;
    if (measurements.length === 0) return { failure: 'the output has no measurements' };
    return { format: read.format, measurements, warnings: read.warnings, hints: read.hints, durationMs: result.durationMs };
  } catch (error) {
    if (error instanceof FormatError) return { failure: `printed nothing benchbot can read: ${error.message}` };
    throw error;
  }
}

function withEnv(env: Record<string, string> | undefined): () => void {
  if (env === undefined) return () => {};
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  return () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-5).join(' | ');
}

function firstLines(text: string): string {
  return text.split('\n').slice(0, 3).join(' | ');
}
