import { mkdtempSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffProfiles, PROFILE_DIFF_DEFAULTS } from '../compare/profile-diff.ts';
import { parseCallgrind } from '../formats/callgrind-profile.ts';
import { FormatError } from '../formats/format-error.ts';
import { didYouMean } from '../model/closest-name.ts';
import type { ProfileDiff } from '../model/profile-diff.ts';
import { buildSide } from '../runner/build-side.ts';
import { createExecutor, type Executor, type ExecutorSpec } from '../runner/executor.ts';
import { checkoutWorktree, openRepository, resolveCommit, RunnerError, treeHash } from '../runner/git-checkout.ts';
import { measureRound } from '../runner/measure-round.ts';
import { probePmu } from '../runner/pmu-probe.ts';
import type { Progress } from '../runner/progress.ts';
import { countInstructions, COUNTED_HARNESSES } from '../runner/valgrind-count.ts';
import { checkFormat } from './pr-check.ts';
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

/** ProfileSettings say which benchmark to profile at which two commits, and how to build and run it. */
export interface ProfileSettings {
  repo: string;
  base: string;
  head: string;
  bench: string;
  build?: string;
  format?: string;
  /** benchmark is the benchmark's name as `run` reports it. */
  benchmark: string;
  /** iterations is the fixed schedule; undefined: the instruction count's for the harness. */
  iterations?: number;
  top: number;
  timeoutMs: number;
  buildTimeoutMs: number;
  stateDir: string;
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
  checkFormat(settings.format, name);
  if (settings.format !== undefined && !COUNTED_HARNESSES.includes(settings.format)) {
    throw new SettingError(`${name('format')} ${settings.format}: a profile needs a fixed iteration schedule, which benchbot can set for ${COUNTED_HARNESSES.join(', ')} only`);
  }
  const repo = openRepository(settings.repo, name);
  const shas = { base: resolveCommit(repo, settings.base, name('base')), head: resolveCommit(repo, settings.head, name('head')) };
  const executor = createExecutor(settings.executorSpec, name);
  try {
    const pmu = await probePmu(executor, settings.repo);
    const keepDir = join(settings.stateDir, 'callgrind');
    mkdirSync(keepDir, { recursive: true });
    const keep = mkdtempSync(join(keepDir, `profile-${shas.base.slice(0, 12)}..${shas.head.slice(0, 12)}-`));
    const profiled: Record<'base' | 'head', { file: string; iterations: number }> = {} as never;
    for (const side of ['base', 'head'] as const) {
      const sha = shas[side];
      const label = `${side} ${sha.slice(0, 12)}`;
      const worktree = checkoutWorktree(repo, sha, settings.stateDir);
      if (settings.build) {
        deps.progress.status(`${label}: building`);
        buildSide(worktree, treeHash(repo, sha), settings.build, label, settings.buildTimeoutMs, settings.env, name);
      }
      const dir = await executor.prepare(worktree, `profile-${sha.slice(0, 12)}`);
      deps.progress.status(`${label}: running the benchmarks once to find ${settings.benchmark}`);
      const format = await findBenchmark(settings, executor, dir, label, keep);
      deps.progress.status(`${label}: ${settings.benchmark} under callgrind`);
      const counted = await countInstructions({
        bench: settings.bench, format, names: [settings.benchmark], repeats: 1, iterations: settings.iterations,
        timeoutMs: settings.timeoutMs, env: settings.env, keepDir: join(keep, side), nameSetting: name,
      }, executor, dir, side);
      const kept = counted.profiles.find((p) => p.benchmark === settings.benchmark || format === 'command');
      if (kept === undefined) {
        const why = counted.reasons.map((r) => r.message).join('; ') || 'callgrind wrote no profile';
        throw new RunnerError(`${label}: ${settings.benchmark} could not be profiled: ${why}`);
      }
      profiled[side] = { file: kept.file, iterations: kept.iterations };
      deps.progress.note(`${label}: profiled ${kept.iterations} iteration(s) of ${settings.benchmark}`);
    }
    const read = (side: 'base' | 'head') => {
      try {
        return parseCallgrind(readFileSync(profiled[side].file, 'utf8'), profiled[side].file);
      } catch (error) {
        if (error instanceof FormatError) throw new RunnerError(`the ${side} profile cannot be read: ${error.message}`);
        throw error;
      }
    };
    const diff = diffProfiles(settings.benchmark, { profile: read('base'), iterations: profiled.base.iterations, sha: shas.base }, { profile: read('head'), iterations: profiled.head.iterations, sha: shas.head }, { top: settings.top });
    return { diff, files: { base: profiled.base.file, head: profiled.head.file }, pmu };
  } finally {
    await executor.close();
  }
}

/**
 * findBenchmark runs the bench command once natively in dir: its output
 * says which harness it is (unless the format was given) and which
 * benchmarks it has, so a mistyped name fails in seconds, not after a
 * valgrind run, and with the names it could have meant.
 */
async function findBenchmark(settings: ProfileSettings, executor: Executor, dir: string, label: string, scratch: string): Promise<string> {
  const name = settings.nameSetting;
  if (settings.format === 'command') return 'command';
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
