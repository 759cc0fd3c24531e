import { mkdtempSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffProfiles, PROFILE_DIFF_DEFAULTS } from '../compare/profile-diff.ts';
import { parseCallgrind } from '../formats/callgrind-profile.ts';
import { parsePerfScript } from '../formats/perf-script-profile.ts';
import { FormatError } from '../formats/format-error.ts';
import { didYouMean } from '../model/closest-name.ts';
import type { ProfileDiff, ProfileSource, ProfileTool } from '../model/profile-diff.ts';
import type { Measurement } from '../model/measurement.ts';
import { PERF_SAMPLED_HARNESSES, probePerfRecord, recordBenchmark, type PerfEvent } from '../runner/perf-record.ts';
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
 * Why callgrind first: its counts are exact and the same on every run, so
 * a diff of two profiles is the change and nothing else, on any machine.
 * `perf record` (runner/perf-record.ts) samples at native speed, and two
 * samplings differ by their noise, which the diff states; it is the tool
 * for a harness whose schedule benchbot cannot fix (the JavaScript
 * harnesses, `--format command` wall time), or when asked (`--with perf`).
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
  /** tool is the profiler asked for; undefined: callgrind where the harness's schedule can be fixed, else perf record. */
  tool?: ProfileTool;
}

/** ProfileOutcome is the differential profile, the files it was made from (callgrind's for kcachegrind, or perf script text), and what the PMU probe found. */
export interface ProfileOutcome {
  diff: ProfileDiff;
  files: { base: string; head: string };
  /** pmu says whether the machine has a PMU (a note for the reader of a callgrind profile; perf record samples cycles on one). */
  pmu: { available: boolean; detail: string };
  /** notes say what a reader must know of how the profile was made (a whole command recorded for one benchmark). */
  notes: string[];
}

/** profileBenchmark checks out, builds and profiles the benchmark at both commits and diffs the profiles. */
export async function profileBenchmark(settings: ProfileSettings, deps: { progress: Progress }): Promise<ProfileOutcome> {
  const name = settings.nameSetting;
  if (settings.format !== undefined) {
    const known = settings.format === 'command' || formatNames().includes(settings.format);
    if (!known) throw new SettingError(`${name('format')}: unknown format "${settings.format}"${didYouMean(settings.format, [...formatNames(), 'command'])}`);
    if (settings.tool === 'callgrind' && !COUNTED_HARNESSES.includes(settings.format)) {
      throw new SettingError(`${name('format')} ${settings.format}: a callgrind profile needs a fixed iteration schedule, which benchbot can set for ${COUNTED_HARNESSES.join(', ')} only; ${name('with')} perf samples any harness`);
    }
  }
  const repo = openRepository(settings.repo, name);
  const shas = { base: resolveCommit(repo, settings.base, name('base')), head: resolveCommit(repo, settings.head, name('head')) };
  const executor = createExecutor(settings.executorSpec, name);
  try {
    const pmu = await probePmu(executor, settings.repo);
    const keep = keepDirectory(settings.stateDir, shas);
    const sides: SideContext = { repo, executor, progress: deps.progress, keep, settings };
    const base = await profileSide(sides, 'base', shas.base, settings.benchmark, settings.format, true);
    const head = await profileSide(sides, 'head', shas.head, settings.benchmark, base.format, true);
    const diff = diffSides(settings.benchmark, base, head, settings.top);
    return { diff, files: { base: base.file, head: head.file }, pmu: base.tool === 'perf' && sides.perf && typeof sides.perf !== 'string' ? { available: pmu.available, detail: sides.perf.detail } : pmu, notes: base.notes };
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
  settings: Pick<ProfileSettings, 'bench' | 'build' | 'iterations' | 'timeoutMs' | 'buildTimeoutMs' | 'stateDir' | 'env' | 'nameSetting' | 'tool'>;
  /** perf is what perf record samples on here (or why it cannot), probed once when a side needs it. */
  perf?: PerfEvent | string;
}

/** ProfiledRun is one side's profile file (callgrind's, or perf script text) and what it covers. */
interface ProfiledRun {
  sha: string;
  file: string;
  iterations: number;
  tool: ProfileTool;
  /** format is the harness the side ran. */
  format: string;
  /** scope is `command` when the whole bench command was profiled for the benchmark. */
  scope?: 'command';
  notes: string[];
}

/**
 * profileSide checks `sha` out (reusing run's worktree), builds it (skipped
 * when run built that tree), finds the benchmark when the harness is not
 * known yet, and runs it once under callgrind.
 */
async function profileSide(ctx: SideContext, side: 'base' | 'head', sha: string, benchmark: string, knownFormat: string | undefined, find: boolean, toolAsked?: ProfileTool): Promise<ProfiledRun> {
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
  let nsPerIteration: number | undefined;
  // A run knows its harness and benchmarks; a profile asked for by name looks first, so a typo costs seconds, not a valgrind run.
  if (find && format !== 'command') {
    progress.status(`${label}: running the benchmarks once to find ${benchmark}`);
    const found = await findBenchmark({ ...settings, format, benchmark }, executor, dir, label, ctx.keep);
    format = found.format;
    nsPerIteration = found.nsPerIteration;
  }
  if (format === undefined) throw new Error('profileSide: the harness is known or found');
  const tool = toolAsked ?? settings.tool ?? (COUNTED_HARNESSES.includes(format) ? 'callgrind' : 'perf');
  if (tool === 'perf') return recordSide(ctx, side, sha, benchmark, format, dir, nsPerIteration);
  if (!COUNTED_HARNESSES.includes(format)) throw new SettingError(`${name('format')}: the bench command prints ${format} output, whose iteration schedule benchbot cannot fix for callgrind; ${name('with')} perf samples it`);
  progress.status(`${label}: ${benchmark} under callgrind`);
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
  return { sha, file: kept.file, iterations: kept.iterations, tool: 'callgrind', format, notes: [] };
}

/**
 * recordSide samples one side's benchmark with perf record: one benchmark
 * alone where the harness runs one at a time (PERF_SAMPLED_HARNESSES),
 * else the whole command, which the notes say.
 */
async function recordSide(ctx: SideContext, side: 'base' | 'head', sha: string, benchmark: string, format: string, dir: string, nsPerIteration: number | undefined): Promise<ProfiledRun> {
  const { settings, executor, progress } = ctx;
  const name = settings.nameSetting;
  const label = `${side} ${sha.slice(0, 12)}`;
  ctx.perf ??= await probePerfRecord(executor, dir, settings.env);
  if (typeof ctx.perf === 'string') throw new SettingError(`${name('with')} perf: ${ctx.perf}`);
  const alone = PERF_SAMPLED_HARNESSES.includes(format);
  progress.status(`${label}: ${alone ? benchmark : 'the whole bench command'} under perf record (${ctx.perf.event})`);
  const recorded = await recordBenchmark({
    bench: settings.bench, format, benchmark, event: ctx.perf.event, nsPerIteration, timeoutMs: settings.timeoutMs, env: settings.env,
    keepFile: join(ctx.keep, side, `${fileSafe(benchmark)}.${side}.perf.txt`), nameSetting: name,
  }, executor, dir, `${side}-${sha.slice(0, 12)}`);
  if ('reason' in recorded) throw new RunnerError(`${label}: ${benchmark} could not be profiled with perf record: ${recorded.reason}`);
  progress.note(`${label}: ${recorded.samples} sample(s) over ${recorded.iterations} iteration(s) of ${alone ? benchmark : 'the whole command'}`);
  const notes = alone || format === 'command' ? [] : [`${format} runs its benchmarks in one process, which benchbot cannot narrow to ${benchmark}: the profile is of the whole bench command`];
  return { sha, file: recorded.file, iterations: recorded.iterations, tool: 'perf', format, notes, ...(alone || format === 'command' ? {} : { scope: 'command' as const }) };
}

function fileSafe(name: string): string {
  return name.replace(/[^\w.-]/g, '_').slice(0, 80);
}

/** diffSides reads both profiles (callgrind files or perf script text) and diffs them; a file the profiler wrote that does not read is a RunnerError. */
function diffSides(benchmark: string, base: ProfiledRun, head: ProfiledRun, top: number): ProfileDiff {
  const read = (run: ProfiledRun, side: string) => {
    try {
      const text = readFileSync(run.file, 'utf8');
      return { profile: run.tool === 'perf' ? parsePerfScript(text, run.file) : parseCallgrind(text, run.file), iterations: run.iterations, sha: run.sha };
    } catch (error) {
      if (error instanceof FormatError) throw new RunnerError(`the ${side} profile cannot be read: ${error.message}`);
      throw error;
    }
  };
  return diffProfiles(benchmark, read(base, 'base'), read(head, 'head'), { top, ...(base.scope === undefined ? {} : { scope: base.scope }) });
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
  const shas = { base: run.base.sha, head: run.head.sha };
  let keep: string | undefined;
  const ctx: SideContext = { repo: settings.repo, executor: deps.executor, progress: deps.progress, get keep() { return (keep ??= keepDirectory(settings.stateDir, shas)); }, settings };
  if (!COUNTED_HARNESSES.includes(harness)) return wholeCommandProfile(ctx, shas, regressed, harness, settings.top);
  const profiles: ProfileDiff[] = [];
  const sources: ProfileSource[] = [];
  const notes: string[] = [];
  deps.progress.group(`profiling ${Math.min(regressed.length, MAX_PROFILED_REGRESSIONS)} regressed benchmark(s) under callgrind`);
  try {
    const counted = (side: 'base' | 'head', benchmark: string): ProfiledRun | undefined => {
      const kept = run.instructions?.profiles.find((p) => p.side === side && p.benchmark === benchmark && p.repeat === 1);
      return kept && { sha: shas[side], file: kept.file, iterations: kept.iterations, tool: 'callgrind', format: harness, notes: [] };
    };
    for (const benchmark of regressed.slice(0, MAX_PROFILED_REGRESSIONS)) {
      try {
        const base = counted('base', benchmark) ?? (await profileSide(ctx, 'base', shas.base, benchmark, harness, false));
        const head = counted('head', benchmark) ?? (await profileSide(ctx, 'head', shas.head, benchmark, harness, false));
        profiles.push(diffSides(benchmark, base, head, settings.top));
        sources.push({ benchmark, ...(base.tool === 'perf' ? { tool: 'perf' as const } : {}), base: { file: base.file, iterations: base.iterations }, head: { file: head.file, iterations: head.iterations } });
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
 * wholeCommandProfile is the profile of a run whose harness benchbot can
 * neither count nor narrow to one benchmark (the JavaScript harnesses,
 * pytest-benchmark, hyperfine): the whole bench command sampled by perf
 * record at each commit, once, filed under
 * the first regressed benchmark (the reports show profiles of regressed
 * benchmarks only) and marked as the whole command. Without perf, one note.
 */
async function wholeCommandProfile(ctx: SideContext, shas: { base: string; head: string }, regressed: readonly string[], harness: string, top: number): Promise<RegressionProfiles> {
  const benchmark = regressed[0];
  ctx.progress.group(`profiling the whole bench command under perf record (${harness} has no iteration schedule benchbot can fix for callgrind)`);
  try {
    const base = await profileSide(ctx, 'base', shas.base, benchmark, harness, false, 'perf');
    const head = await profileSide(ctx, 'head', shas.head, benchmark, harness, false, 'perf');
    const diff = diffSides(benchmark, base, head, top);
    const others = regressed.length > 1 ? `; ${regressed.length - 1} more regressed benchmark(s) are in the same command` : '';
    return { profiles: [diff], sources: [{ benchmark, tool: 'perf', scope: 'command', base: { file: base.file, iterations: base.iterations }, head: { file: head.file, iterations: head.iterations } }], notes: [`${harness} runs its benchmarks in one process: the profile of ${benchmark} is of the whole bench command, sampled by perf record${others}`] };
  } catch (error) {
    if (!(error instanceof RunnerError || error instanceof SettingError)) throw error;
    return { profiles: [], sources: [], notes: [`no profile of the regressions: ${harness} has no iteration schedule benchbot can fix for callgrind, and perf record could not sample the command: ${error.message}`] };
  } finally {
    ctx.progress.endGroup();
  }
}

/**
 * findBenchmark runs the bench command once natively in dir: its output
 * says which harness it is (unless the format was given) and which
 * benchmarks it has, so a mistyped name fails in seconds, not after a
 * valgrind run, and with the names it could have meant.
 */
async function findBenchmark(settings: Pick<ProfileSettings, 'bench' | 'format' | 'benchmark' | 'timeoutMs' | 'env' | 'nameSetting' | 'tool'>, executor: Executor, dir: string, label: string, scratch: string): Promise<{ format: string; nsPerIteration?: number }> {
  const name = settings.nameSetting;
  const round = await measureRound({ bench: settings.bench, format: settings.format, roundTimeoutMs: settings.timeoutMs, env: settings.env, nameSetting: name }, executor, dir, scratch, `${label} probe`);
  if ('failure' in round) throw new RunnerError(`${label}: the bench command failed: ${round.failure.message}`);
  if (settings.tool === 'callgrind' && !COUNTED_HARNESSES.includes(round.format)) {
    throw new SettingError(`${name('format')}: the bench command prints ${round.format} output, whose iteration schedule benchbot cannot fix; a callgrind profile needs ${COUNTED_HARNESSES.join(', ')} (${name('with')} perf samples any harness)`);
  }
  const names = [...new Set(round.measurements.map((m) => m.benchmark))];
  if (!names.includes(settings.benchmark)) {
    throw new RunnerError(`${name('benchmark')} ${settings.benchmark}: ${label} has no such benchmark${didYouMean(settings.benchmark, names)}; it has ${names.slice(0, 10).join(', ')}${names.length > 10 ? `, and ${names.length - 10} more` : ''}`);
  }
  return { format: round.format, nsPerIteration: nanoseconds(round.measurements.find((m) => m.benchmark === settings.benchmark && m.metric === 'real_time')) };
}

const NANOSECONDS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 };

/** nanoseconds is a time measurement's median in nanoseconds; undefined for another unit. */
function nanoseconds(m: Measurement | undefined): number | undefined {
  const scale = m && NANOSECONDS[m.unit];
  if (m === undefined || scale === undefined || m.values.length === 0) return undefined;
  const sorted = [...m.values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] * scale;
}
