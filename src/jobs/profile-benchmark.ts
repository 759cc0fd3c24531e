import { mkdtempSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffProfiles, PROFILE_DIFF_DEFAULTS } from '../compare/profile-diff.ts';
import { parseCallgrind } from '../formats/callgrind-profile.ts';
import { FormatError } from '../formats/format-error.ts';
import { didYouMean } from '../model/closest-name.ts';
import type { ProfileDiff, ProfileSource } from '../model/profile-diff.ts';
import { buildSide } from '../runner/build-side.ts';
import { createExecutor, type Executor, type ExecutorSpec } from '../runner/executor.ts';
import { checkoutWorktree, openRepository, resolveCommit, RunnerError, treeHash } from '../runner/git-checkout.ts';
import { measureRound } from '../runner/measure-round.ts';
import { probePmu } from '../runner/pmu-probe.ts';
import type { Progress } from '../runner/progress.ts';
import type { RunAbSettings } from '../runner/run-ab.ts';
import { countInstructions, COUNTED_HARNESSES } from '../runner/valgrind-count.ts';
import { formatNames } from '../formats/detect.ts';
import { SettingError, type NameSetting } from './setting-names.ts';

/**
 * profile-benchmark: where a benchmark's change lives. Both commits are
 * checked out and built as `run` does, the benchmark runs once natively
 * (its harness detected, its name checked) and then under callgrind with
 * the fixed iteration schedule of the instruction count
 * (runner/valgrind-count.ts), and the two profiles are diffed per
 * iteration (compare/profile-diff.ts).
 *
 * Why callgrind and not `perf record`: callgrind's counts are exact and the
 * same on every run, so a diff of two profiles is the change and nothing
 * else, on any machine; `perf record` samples, needs a PMU (most cloud VMs
 * have none: `perf stat` reads `<not supported>`), and two samplings differ
 * by their noise. The PMU is probed so the report can say which applies.
 */

/**
 * PROFILE_DEFAULTS: the diff's ten functions per ranking, and run's round
 * and build timeouts (valgrind runs a benchmark some 50 times slower than
 * natively, and one profiled run per side is the whole cost). The
 * iterations default to the instruction count's schedule for the harness
 * (runner/valgrind-count.ts), so a profile covers what the count counted.
 */
export const PROFILE_DEFAULTS = {
  top: PROFILE_DIFF_DEFAULTS.top,
  timeoutMs: 600_000,
  buildTimeoutMs: 3_600_000,
} as const;

/** ProfileSettings say which benchmark to profile at which two commits, and how to build and run it; the commits, commands and checkouts are run's. */
export interface ProfileSettings extends Pick<RunAbSettings, 'repo' | 'base' | 'head' | 'bench' | 'build' | 'format' | 'buildTimeoutMs' | 'stateDir'> {
  /** benchmark is the benchmark's name as `run` reports it. */
  benchmark: string;
  /** iterations is the fixed schedule; undefined: the instruction count's for the harness. */
  iterations?: number;
  top: number;
  timeoutMs: number;
  executorSpec: ExecutorSpec;
  env?: Record<string, string>;
  nameSetting: NameSetting;
}

/** ProfileOutcome is the differential profile, the callgrind files it was made from (kept for kcachegrind), and what the PMU probe found. */
export interface ProfileOutcome {
  diff: ProfileDiff;
  files: { base: string; head: string };
  /** pmu says whether `perf record` could sample here (a note for the reader); the profile is callgrind's either way. */
  pmu: { available: boolean; detail: string };
}

/** profileBenchmark checks out, builds and profiles the benchmark at both commits and diffs the profiles. */
export async function profileBenchmark(settings: ProfileSettings, deps: { progress: Progress }): Promise<ProfileOutcome> {
  const name = settings.nameSetting;
  if (settings.format !== undefined && !COUNTED_HARNESSES.includes(settings.format)) {
    const known = settings.format === 'command' || formatNames().includes(settings.format);
    if (!known) throw new SettingError(`${name('format')}: unknown format "${settings.format}"${didYouMean(settings.format, COUNTED_HARNESSES)}; a profile reads ${COUNTED_HARNESSES.join(', ')}`);
    throw new SettingError(`${name('format')} ${settings.format}: a profile needs a fixed iteration schedule, which benchbot can set for ${COUNTED_HARNESSES.join(', ')} only`);
  }
  const repo = openRepository(settings.repo, name);
  const shas = { base: resolveCommit(repo, settings.base, name('base')), head: resolveCommit(repo, settings.head, name('head')) };
  const executor = createExecutor(settings.executorSpec, name);
  try {
    const pmu = await probePmu(executor, settings.repo);
    const keep = keepDirectory(settings.stateDir, shas);
    const sides = { repo, executor, progress: deps.progress, keep, settings };
    const base = await profileSide(sides, 'base', shas.base, settings.benchmark, settings.format, true);
    const head = await profileSide(sides, 'head', shas.head, settings.benchmark, settings.format, true);
    const diff = diffSides(settings.benchmark, base, head, settings.top);
    return { diff, files: { base: base.file, head: head.file }, pmu };
  } finally {
    await executor.close();
  }
}

/** keepDirectory makes the directory a profile's callgrind files stay in: `<state>/callgrind/profile-<base>..<head>-XXXXXX`. */
function keepDirectory(stateDir: string, shas: { base: string; head: string }): string {
  const keepDir = join(stateDir, 'callgrind');
  mkdirSync(keepDir, { recursive: true });
  return mkdtempSync(join(keepDir, `profile-${shas.base.slice(0, 12)}..${shas.head.slice(0, 12)}-`));
}

/** SideContext is what profiling one side needs: the repository, where commands run, and how to build and run. */
interface SideContext {
  repo: string;
  executor: Executor;
  progress: Progress;
  keep: string;
  settings: Pick<ProfileSettings, 'bench' | 'build' | 'iterations' | 'timeoutMs' | 'buildTimeoutMs' | 'stateDir' | 'env' | 'nameSetting'>;
}

/** ProfiledRun is one side's callgrind file and what it covers. */
interface ProfiledRun {
  sha: string;
  file: string;
  iterations: number;
}

/**
 * profileSide checks `sha` out (reusing run's worktree), builds it (skipped
 * when run built that tree), finds the benchmark when the harness is not
 * known yet, and runs it once under callgrind.
 */
async function profileSide(ctx: SideContext, side: 'base' | 'head', sha: string, benchmark: string, knownFormat: string | undefined, find: boolean): Promise<ProfiledRun> {
  const { settings, executor, progress } = ctx;
  const name = settings.nameSetting;
  const label = `${side} ${sha.slice(0, 12)}`;
  const worktree = checkoutWorktree(ctx.repo, sha, settings.stateDir);
  if (settings.build) {
    progress.status(`${label}: building`);
    buildSide(worktree, treeHash(ctx.repo, sha), settings.build, label, settings.buildTimeoutMs, settings.env, name);
  }
  const dir = await executor.prepare(worktree, `profile-${sha.slice(0, 12)}`);
  let format = knownFormat;
  // A run knows its harness and benchmarks; a profile asked for by name looks first, so a typo costs seconds, not a valgrind run.
  if (find && format !== 'command') {
    progress.status(`${label}: running the benchmarks once to find ${benchmark}`);
    format = await findBenchmark({ ...settings, format, benchmark }, executor, dir, label, ctx.keep);
  }
  progress.status(`${label}: ${benchmark} under callgrind`);
  if (format === undefined) throw new Error('profileSide: the harness is known or found');
  const counted = await countInstructions({
    bench: settings.bench, format, names: [benchmark], repeats: 1, iterations: settings.iterations,
    timeoutMs: settings.timeoutMs, env: settings.env, keepDir: join(ctx.keep, side), nameSetting: name,
  }, executor, dir, side);
  const kept = counted.profiles.find((p) => p.benchmark === benchmark || format === 'command');
  if (kept === undefined) {
    const why = counted.reasons.map((r) => r.message).join('; ') || 'callgrind wrote no profile';
    throw new RunnerError(`${label}: ${benchmark} could not be profiled: ${why}`);
  }
  progress.note(`${label}: profiled ${kept.iterations} iteration(s) of ${benchmark}`);
  return { sha, file: kept.file, iterations: kept.iterations };
}

/** diffSides reads both callgrind files and diffs them; a file callgrind wrote that does not read is a RunnerError. */
function diffSides(benchmark: string, base: ProfiledRun, head: ProfiledRun, top: number): ProfileDiff {
  const read = (run: ProfiledRun, side: string) => {
    try {
      return { profile: parseCallgrind(readFileSync(run.file, 'utf8'), run.file), iterations: run.iterations, sha: run.sha };
    } catch (error) {
      if (error instanceof FormatError) throw new RunnerError(`the ${side} profile cannot be read: ${error.message}`);
      throw error;
    }
  };
  return diffProfiles(benchmark, read(base, 'base'), read(head, 'head'), { top });
}

/**
 * MAX_PROFILED_REGRESSIONS is how many regressed benchmarks a run profiles
 * (two valgrind runs each, some seconds to a minute): the first five by
 * the report's order say where a change lives; more would make a PR
 * comment no one reads to the end and a run that waits for them.
 */
export const MAX_PROFILED_REGRESSIONS = 5;

/**
 * RegressionProfiles are the differential profiles of a run's regressed
 * benchmarks, the callgrind files they were made from (the results
 * artifact carries these, and the report job diffs them again), and why
 * any could not be made.
 */
export interface RegressionProfiles {
  profiles: ProfileDiff[];
  sources: ProfileSource[];
  notes: string[];
}

/**
 * profileRegressions profiles each benchmark `run` found regressed (by wall
 * time or by instructions, at most MAX_PROFILED_REGRESSIONS) across the
 * run's two commits, in the worktrees the run built. It never fails the
 * run: a benchmark that cannot be profiled (no valgrind, a harness without
 * a fixed schedule, a crash under valgrind) gets a note saying why.
 */
export async function profileRegressions(
  run: {
    report: { comparisons: readonly { benchmark: string; verdict: string }[] };
    base: { sha: string; harness: string };
    head: { sha: string; harness: string };
    /** instructions are the callgrind files a run counted with (run --instructions): a regressed benchmark's first repeats are its profile, no new run needed. */
    instructions?: { profiles: readonly { benchmark: string; repeat: number; file: string; iterations: number; side: string }[] };
  },
  settings: Omit<ProfileSettings, 'base' | 'head' | 'benchmark' | 'format' | 'executorSpec'>,
  deps: { executor: Executor; progress: Progress },
): Promise<RegressionProfiles> {
  const regressed = [...new Set(run.report.comparisons.filter((c) => c.verdict === 'regressed').map((c) => c.benchmark))];
  if (regressed.length === 0) return { profiles: [], sources: [], notes: [] };
  const harness = run.head.harness;
  if (!COUNTED_HARNESSES.includes(harness)) {
    return { profiles: [], sources: [], notes: [`no profile of the regressions: ${harness} has no iteration schedule benchbot can fix (profiles need ${COUNTED_HARNESSES.join(', ')})`] };
  }
  const shas = { base: run.base.sha, head: run.head.sha };
  let keep: string | undefined;
  const ctx: SideContext = { repo: settings.repo, executor: deps.executor, progress: deps.progress, get keep() { return (keep ??= keepDirectory(settings.stateDir, shas)); }, settings };
  const profiles: ProfileDiff[] = [];
  const sources: ProfileSource[] = [];
  const notes: string[] = [];
  deps.progress.group(`profiling ${Math.min(regressed.length, MAX_PROFILED_REGRESSIONS)} regressed benchmark(s) under callgrind`);
  try {
    const counted = (side: 'base' | 'head', benchmark: string): ProfiledRun | undefined => {
      const kept = run.instructions?.profiles.find((p) => p.side === side && p.benchmark === benchmark && p.repeat === 1);
      return kept && { sha: shas[side], file: kept.file, iterations: kept.iterations };
    };
    for (const benchmark of regressed.slice(0, MAX_PROFILED_REGRESSIONS)) {
      try {
        const base = counted('base', benchmark) ?? (await profileSide(ctx, 'base', shas.base, benchmark, harness, false));
        const head = counted('head', benchmark) ?? (await profileSide(ctx, 'head', shas.head, benchmark, harness, false));
        profiles.push(diffSides(benchmark, base, head, settings.top));
        sources.push({ benchmark, base: { file: base.file, iterations: base.iterations }, head: { file: head.file, iterations: head.iterations } });
      } catch (error) {
        if (!(error instanceof RunnerError || error instanceof SettingError)) throw error;
        notes.push(`no profile of ${benchmark}: ${error.message}`);
      }
    }
  } finally {
    deps.progress.endGroup();
  }
  if (regressed.length > MAX_PROFILED_REGRESSIONS) notes.push(`${regressed.length - MAX_PROFILED_REGRESSIONS} more regressed benchmark(s) not profiled (at most ${MAX_PROFILED_REGRESSIONS} a run): benchbot profile profiles any one`);
  return { profiles, sources, notes };
}

/**
 * findBenchmark runs the bench command once natively in dir: its output
 * says which harness it is (unless the format was given) and which
 * benchmarks it has, so a mistyped name fails in seconds, not after a
 * valgrind run, and with the names it could have meant.
 */
async function findBenchmark(settings: Pick<ProfileSettings, 'bench' | 'format' | 'benchmark' | 'timeoutMs' | 'env' | 'nameSetting'>, executor: Executor, dir: string, label: string, scratch: string): Promise<string> {
  const name = settings.nameSetting;
  const round = await measureRound({ bench: settings.bench, format: settings.format, roundTimeoutMs: settings.timeoutMs, env: settings.env, nameSetting: name }, executor, dir, scratch, `${label} probe`);
  if ('failure' in round) throw new RunnerError(`${label}: the bench command failed: ${round.failure.message}`);
  if (!COUNTED_HARNESSES.includes(round.format)) {
    throw new SettingError(`${name('format')}: the bench command prints ${round.format} output, whose iteration schedule benchbot cannot fix; a profile needs ${COUNTED_HARNESSES.join(', ')}`);
  }
  const names = [...new Set(round.measurements.map((m) => m.benchmark))];
  if (!names.includes(settings.benchmark)) {
    throw new RunnerError(`${name('benchmark')} ${settings.benchmark}: ${label} has no such benchmark${didYouMean(settings.benchmark, names)}; it has ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, and ${names.length - 10} more` : ''}`);
  }
  return round.format;
}
