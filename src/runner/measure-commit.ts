import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poolMeasurements } from '../compare/compare-runs.ts';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { buildSide } from './build-side.ts';
import type { Executor } from './executor.ts';
import { checkoutWorktree, RunnerError, treeHash } from './git-checkout.ts';
import type { Progress } from './progress.ts';
import { measureRound } from './measure-round.ts';
import { xoshiro128 } from '../stats/bootstrap.ts';
import { countInstructions, type CountedProfile, type InstructionSettings } from './valgrind-count.ts';

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
  /**
   * instructions, when set, counts each benchmark's work under valgrind
   * after the rounds (valgrind-count.ts): `instructions` and
   * `estimated_cycles`, one value per repeat, join the measurements under
   * the benchmarks' own names.
   */
  instructions?: InstructionSettings;
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
  const built = await builtDirectory(repo, sha, stateDir, settings, deps);
  if ('skip' in built) return built;
  return measureDirectory(built.dir, sha.slice(0, 12), { ...settings, build: undefined }, deps, stateDir);
}

/**
 * builtDirectory checks `sha` out under `stateDir` (reused when it is
 * already there) and builds it once per tree: the directory the executor
 * runs it in, or why it cannot be built (a failed build is a skip, not an
 * error: bisections cross broken commits).
 */
export async function builtDirectory(repo: string, sha: string, stateDir: string, settings: MeasureSettings, deps: MeasureDeps): Promise<{ dir: string } | { skip: string }> {
  const label = sha.slice(0, 12);
  const worktree = checkoutWorktree(repo, sha, stateDir);
  if (settings.build) {
    try {
      buildSide(worktree, treeHash(repo, sha), settings.build, label, settings.buildTimeoutMs, settings.env);
    } catch (error) {
      if (error instanceof RunnerError) return { skip: firstLines(error.message) };
      throw error;
    }
  }
  return { dir: await deps.executor.prepare(worktree, `bisect-${label}`) };
}

/**
 * measureDirectory runs one session in a directory as it is (no checkout):
 * the build command first when given (every time), then the rounds. This
 * is the cargo-bisect-rustc case, where the project stays and the
 * toolchain changes through the environment. Counted instructions keep
 * their callgrind files under `stateDir` when given.
 */
export async function measureDirectory(dir: string, label: string, settings: MeasureSettings, deps: MeasureDeps, stateDir?: string): Promise<MeasureOutcome> {
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
      const name = roundName(round, settings.warmup);
      const outcome = await measureRound(settings, executor, dir, scratch, name);
      if ('failure' in outcome) {
        progress.note(`${label}: ${name} failed: ${outcome.failure.message}`);
        return { skip: `${name} failed: ${outcome.failure.message}` };
      }
      progress.status(`${label}: ${name}${round >= 1 ? ` of ${settings.rounds}` : ''}`);
      if (round < 1) continue;
      durationMs += outcome.durationMs;
      harness = outcome.format;
      for (const m of outcome.measurements) measurements.push(m); // no push(...): a round may give up to a million series
      for (const w of outcome.warnings) warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
      Object.assign(hints, outcome.hints);
    }
    progress.note(`${label}: ${settings.rounds} round(s) measured`);
    if (settings.instructions) {
      const counted = await countArm(settings, settings.instructions, deps, dir, label, harness, measurements, stateDir);
      for (const m of counted.measurements) measurements.push(m);
      for (const w of counted.reasons) warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
    }
    return { measurements: poolMeasurements(measurements), rounds: settings.rounds, harness, warnings: [...warnings.values()], hints, durationMs };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * countArm counts one commit's benchmarks (those its rounds measured) under
 * valgrind after its rounds, keeping the callgrind files under
 * `<stateDir>/callgrind/<label>-XXXXXX` (a temporary directory when the
 * session has no state directory); what cannot be counted is noted once.
 */
async function countArm(settings: MeasureSettings, counting: InstructionSettings, deps: MeasureDeps, dir: string, label: string, harness: string, measured: readonly Measurement[], stateDir?: string): Promise<Awaited<ReturnType<typeof countInstructions>>> {
  const root = stateDir === undefined ? tmpdir() : join(stateDir, 'callgrind');
  mkdirSync(root, { recursive: true });
  const keepDir = mkdtempSync(join(root, `${label.replace(/[^\w.-]/g, '_')}-`));
  const names = [...new Set(measured.map((m) => m.benchmark))];
  const counted = await countInstructions({
    bench: settings.bench, format: settings.format === 'command' ? 'command' : harness, names, filter: counting.filter, repeats: counting.repeats, iterations: counting.iterations,
    timeoutMs: settings.roundTimeoutMs, env: settings.env, keepDir, parallel: (await deps.executor.fingerprint()).cores ?? 1,
  }, deps.executor, dir, label.replace(/[^\w.-]/g, '_'));
  const n = new Set(counted.measurements.map((m) => m.benchmark)).size;
  deps.progress.note(`${label}: ${n} benchmark(s) counted under valgrind in ${(counted.durationMs / 1000).toFixed(1)} s${counted.reasons.length > 0 ? `; ${counted.reasons[0].message}${counted.reasons.length > 1 ? ` (and ${counted.reasons.length - 1} more)` : ''}` : ''}`);
  return counted;
}

/** roundName names a session's round for people: rounds 1..N, the discarded ones before them `warm-up round K`. */
export function roundName(round: number, warmup: number): string {
  return round >= 1 ? `round ${round}` : `warm-up round ${round + warmup}`;
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-5).join(' | ');
}

function firstLines(text: string): string {
  return text.split('\n').slice(0, 3).join(' | ');
}

/** Arm is one commit of an interleaved session: `label` names it in messages and results (good, probe, bad, parent). */
export interface Arm {
  label: string;
  sha: string;
}

/**
 * InterleavedOutcome is one interleaved session: every arm's measurements
 * (all rounds pooled in round order; with instruction counting also its
 * work metrics, and per arm label the callgrind files kept), or `skip`
 * naming the arm that could not be measured and why.
 */
export type InterleavedOutcome =
  | { skip?: undefined; arms: Record<string, Measurement[]>; rounds: number; durationMs: number; profiles?: Record<string, CountedProfile[]> }
  | { skip: string; arm: string };

/**
 * measureInterleaved runs one session over several commits the way `run`
 * interleaves base and head: each commit checked out and built once in its
 * own worktree, then `warmup` discarded and `rounds` kept rounds, every
 * round one block in which each arm runs once, in an order drawn from
 * `seed` (a seeded permutation per block, so no arm always runs first and a
 * drift of the machine spreads over all arms alike). Whatever shifts the
 * whole session shifts every arm, which is what makes the arms comparable.
 */
export async function measureInterleaved(repo: string, arms: readonly Arm[], stateDir: string, settings: MeasureSettings, deps: MeasureDeps, seed = 1): Promise<InterleavedOutcome> {
  const dirs: string[] = [];
  for (const arm of arms) {
    const label = arm.sha.slice(0, 12);
    const worktree = checkoutWorktree(repo, arm.sha, stateDir);
    if (settings.build) {
      try {
        const built = buildSide(worktree, treeHash(repo, arm.sha), settings.build, label, settings.buildTimeoutMs, settings.env);
        if (!built.skipped) deps.progress.note(`${arm.label} ${label}: built in ${(built.durationMs / 1000).toFixed(1)} s`);
      } catch (error) {
        if (error instanceof RunnerError) return { skip: firstLines(error.message), arm: arm.label };
        throw error;
      }
    }
    dirs.push(await deps.executor.prepare(worktree, `bisect-${label}`));
  }
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-measure-'));
  const random = xoshiro128(seed);
  try {
    const collected: Measurement[][] = arms.map(() => []);
    const harness: string[] = arms.map(() => settings.format ?? 'detected');
    let durationMs = 0;
    for (let round = -settings.warmup + 1; round <= settings.rounds; round++) {
      const order = arms.map((_, i) => i);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
      const name = roundName(round, settings.warmup);
      for (const i of order) {
        const outcome = await measureRound(settings, deps.executor, dirs[i], scratch, `${arms[i].label} ${name}`);
        if ('failure' in outcome) {
          deps.progress.note(`${arms[i].sha.slice(0, 12)} (${arms[i].label}): ${name} failed: ${outcome.failure.message}`);
          return { skip: `${name} of ${arms[i].sha.slice(0, 12)} failed: ${outcome.failure.message}`, arm: arms[i].label };
        }
        if (round < 1) continue;
        durationMs += outcome.durationMs;
        harness[i] = outcome.format;
        for (const m of outcome.measurements) collected[i].push(m); // no push(...): a round may give up to a million series
      }
      deps.progress.status(`${name}${round >= 1 ? ` of ${settings.rounds}` : ''}, interleaved: ${arms.map((a) => a.label).join(', ')}`);
    }
    deps.progress.note(`${arms.map((a) => `${a.label} ${a.sha.slice(0, 12)}`).join(', ')}: ${settings.rounds} interleaved round(s) measured`);
    const profiles: Record<string, CountedProfile[]> = {};
    if (settings.instructions) {
      for (const [i, arm] of arms.entries()) {
        const counted = await countArm(settings, settings.instructions, deps, dirs[i], `${arm.label} ${arm.sha.slice(0, 12)}`, harness[i], collected[i], stateDir);
        for (const m of counted.measurements) collected[i].push(m);
        profiles[arm.label] = counted.profiles;
      }
    }
    const out: Record<string, Measurement[]> = {};
    arms.forEach((arm, i) => {
      out[arm.label] = poolMeasurements(collected[i]);
    });
    return { arms: out, rounds: settings.rounds, durationMs, ...(settings.instructions ? { profiles } : {}) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
