import { join } from 'node:path';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { ProfileDiff, ProfileSource } from '../model/profile-diff.ts';
import { tmpdir } from 'node:os';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { Measurement, ReadWarning, FingerprintHints } from '../model/measurement.ts';
import type { Run } from '../model/run.ts';
import type { Comparison } from '../model/comparison.ts';
import { compareRuns, defaultWorkThreshold, poolMeasurements, summarize, type ComparisonReport, type CompareSide } from '../compare/compare-runs.ts';
import { applyLook, decidedForOthers } from '../compare/adaptive-stop.ts';
import type { ChangeTest } from '../compare/estimate-change.ts';
import { poolBase } from '../compare/pool-base.ts';
import { annotateBudget, noiseSigma } from '../compare/power.ts';
import { thresholdFor, type ThresholdRule } from '../compare/thresholds.ts';
import type { NameFilter } from '../compare/name-filter.ts';
import { median } from '../stats/order-statistics.ts';
import { DEFAULT_LOOKS, lookLevels } from '../stats/sequential-alpha.ts';
import { resolvePin } from './cpu-pin.ts';
import { buildSide } from './build-side.ts';
import type { Executor } from './executor.ts';
import { checkoutWorktree, dirtyFiles, openRepository, resolveCommit, RunnerError, treeHash } from './git-checkout.ts';
import { measureRound } from './measure-round.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import type { Progress } from './progress.ts';
import { countInstructions, countSchedule, DEFAULT_COUNT_ITERATIONS, defaultCountRepeats, isLayoutSampled, type CountedProfile, type InstructionSettings } from './valgrind-count.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { lookSchedule, roundSchedule, seedFromShas, type Side } from '../compare/round-schedule.ts';

/**
 * RunAbSettings is everything `benchbot run` needs, parsed and validated.
 * `format` `command` times the whole bench command through hyperfine; any
 * other value is a reader format (undefined: detect from the output).
 */
export interface RunAbSettings {
  repo: string;
  base: string;
  head: string;
  bench: string;
  build?: string;
  format?: string;
  resultFile?: string;
  minRuns: number;
  maxRuns: number;
  warmup: number;
  threshold: number;
  /** workThreshold: the threshold of counted work (default: compare-runs.ts defaultWorkThreshold of the counted harness). */
  workThreshold?: number;
  alpha: number;
  rules: ThresholdRule[];
  /** filter keeps only the benchmarks whose names match (compileNameFilter: RE2, linear); undefined keeps all. */
  filter?: NameFilter;
  roundTimeoutMs: number;
  buildTimeoutMs: number;
  /** seed of the round order; negative derives it from the two SHAs. */
  seed: number;
  counters: boolean;
  allowDirty: boolean;
  stateDir: string;
  labels: string[];
  /** Rounds that may fail (crash, timeout, unparseable) before the run is abandoned. */
  maxFailedRounds: number;
  /**
   * repetitions runs the bench command this many times back to back in
   * every round (default 1); with `roundSummary` `median` the round
   * contributes the median of everything it measured per benchmark.
   */
  repetitions?: number;
  /**
   * roundSummary folds the values one round produced per benchmark (a
   * harness's own repetitions, or `repetitions`): `median` (default) makes
   * one value per round, so one preempted repetition is not an outlier of
   * the comparison and repetitions inside one process are not counted as
   * independent rounds; `all` keeps every value.
   */
  roundSummary?: 'median' | 'all';
  /** pinCpu: `auto` (default: the isolated CPUs, if any), `off`, or a taskset CPU list (cpu-pin.ts). */
  pinCpu?: string;
  /** poolBase pools stored rounds of the same base SHA on this machine into the base side after a drift check (pool-base.ts); default {@link DEFAULT_POOL_BASE}. */
  poolBase?: boolean;
  /** test is the two-sample test (default: compare's DEFAULT_TEST). */
  test?: ChangeTest;
  /** nameSetting spells the settings the run's errors name, as the adapter does (default: the CLI's flags). */
  nameSetting?: NameSetting;
  /**
   * futility (default true) stops sampling a benchmark that is unlikely to
   * be decided by the budget. The nightly turns it off: its A/B is the only
   * session that holds a step, and the scan judges every round it has.
   */
  futility?: boolean;
  /**
   * instructions, when set, counts each benchmark's work under valgrind on
   * both checkouts after the wall-time rounds (valgrind-count.ts): the
   * metrics `instructions` and `estimated_cycles`, one value per repeat,
   * stored in the runs beside the wall time under the same benchmark names.
   */
  instructions?: InstructionSettings;
}

/**
 * DEFAULT_POOL_BASE: stored rounds of the exact base SHA on the same machine
 * join the base side (after the drift check) unless turned off. bench:verdicts
 * measures what that buys and that it keeps the false-alarm target
 * (bench/results/verdicts-*.txt).
 */
export const DEFAULT_POOL_BASE = true;

/** NoiseLearning is one benchmark x metric's per-round noise seen in this run, per side. */
export interface NoiseLearning {
  benchmark: string;
  metric: string;
  sigma: number;
  rounds: number;
}

/**
 * RunHistory is what the runner asks of the machine's history (the store),
 * injected so the runner stays testable without one: stored rounds of a
 * commit on this machine, and the noise memory (store/noise-memory.ts).
 */
export interface RunHistory {
  storedRounds(sha: string, fingerprint: Fingerprint): Promise<Measurement[]>;
  /** learn folds this run's noise into the memory and returns each benchmark x metric's remembered sigma. */
  learn(fingerprint: Fingerprint, observations: NoiseLearning[]): Promise<Map<string, number>>;
}

/** RunAbDeps are the edges a run touches, injected so tests can substitute them. */
export interface RunAbDeps {
  executor: Executor;
  progress: Progress;
  /** now returns the current time as ISO 8601 (the runs' timestamps). */
  now: () => string;
  /** holdMachine takes the machine lock and waits for a quiet machine (given its core count); returns the release function. */
  holdMachine?: (cores: number | undefined) => Promise<() => void>;
  history?: RunHistory;
  /**
   * budgetRoundsPerSide is the round budget the noise advice (detectable
   * change, suggested threshold) is for; default this run's own budget.
   * `benchbot calibrate` runs a fixed number of A/A rounds and advises for
   * run's budget.
   */
  budgetRoundsPerSide?: number;
}

/** RoundFailure is one round that produced no usable numbers. */
export interface RoundFailure {
  side: Side;
  round: number;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  message: string;
}

/**
 * LookRecord is what adaptive sampling saw at one look: how many comparisons
 * still needed rounds, how many it settled for futility, and how many of
 * those stopped at earlier looks it decided now on rounds measured for
 * others (`rejudged`).
 */
export interface LookRecord {
  roundsPerSide: number;
  alpha: number;
  undecided: number;
  futile?: number;
  rejudged?: number;
}

/** RunAbResult is a finished A/B run: the report, both runs as stored, and how sampling went. */
export interface RunAbResult {
  report: ComparisonReport;
  base: Run;
  head: Run;
  roundsPerSide: number;
  looks: LookRecord[];
  failures: RoundFailure[];
  undecided: string[];
  builds: { side: Side; skipped: boolean; durationMs: number }[];
  overheadMs: number;
  benchMs: number;
  /** maxRoundsPerSide is the round budget the looks were planned for. */
  maxRoundsPerSide: number;
  /** pinned is the CPU list the rounds ran on, when pinned. */
  pinned?: string;
  /** pooled: stored base rounds that joined the base side, per `benchmark (metric)`; refused: why others did not. */
  pooled: Record<string, number>;
  poolRefused: Record<string, string>;
  /** profiles are the differential profiles of the regressed benchmarks (jobs/profile-benchmark.ts), added after the rounds. */
  profiles?: ProfileDiff[];
  /** profileNotes say why a regressed benchmark has no profile. */
  profileNotes?: string[];
  /** profileSources are the callgrind files of each profile, for the results artifact. */
  profileSources?: ProfileSource[];
  /** instructions is what counting found when asked for (RunAbSettings.instructions). */
  instructions?: InstructionsResult;
}

/**
 * InstructionsResult is the instruction counting of a run: the callgrind
 * file kept per side, benchmark and repeat (under `keepDir`, which is
 * `<state dir>/callgrind/<base12>-<head12>-XXXXXX/`, one folder per side;
 * `benchbot clean` leaves it, a differential profile reads it), and the
 * one-line reasons for what could not be counted (also the runs' warnings).
 */
export interface InstructionsResult {
  keepDir: string;
  profiles: (CountedProfile & { side: Side; sha: string })[];
  reasons: ReadWarning[];
  durationMs: number;
}

interface SideState {
  sha: string;
  dir: string;
  measurements: Measurement[];
  warnings: Map<string, ReadWarning>;
  hints: FingerprintHints;
  rounds: number;
  /** succeeded is set by the first round that produced numbers; a side that never did is abandoned at once. */
  succeeded: boolean;
  harness: string;
}

/**
 * runAb measures base against head on one machine: check out both commits in
 * worktrees, build each once, run the bench command in interleaved ABBA
 * rounds after discarded warm-ups, and look at the looks DESIGN.md names
 * (with the alpha split across looks) until every benchmark is decisive or
 * the round budget is spent.
 */
export async function runAb(settings: RunAbSettings, deps: RunAbDeps): Promise<RunAbResult> {
  const { executor, progress } = deps;
  const setting = settings.nameSetting ?? cliSetting;
  const repo = openRepository(settings.repo, setting);
  const baseSha = resolveCommit(repo, settings.base, setting('base'));
  const headSha = resolveCommit(repo, settings.head, setting('head'));
  const dirty = dirtyFiles(repo);
  if (dirty.length > 0 && !settings.allowDirty) {
    throw new RunnerError(`${repo} has uncommitted changes (${dirty.slice(0, 3).join('; ')}${dirty.length > 3 ? '; …' : ''}); benchbot measures commits, so commit or stash them, or pass ${setting('allow-dirty')}`);
  }

  // Lock and check the load before building: a build's own load would otherwise hold the guard for a minute.
  const fingerprint = await executor.fingerprint(settings.labels);
  const release = deps.holdMachine ? await deps.holdMachine(fingerprint.cores) : () => {};
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-run-'));
  try {
    const builds: RunAbResult['builds'] = [];
    const sides = {} as Record<Side, SideState>;
    for (const [side, sha] of [['base', baseSha], ['head', headSha]] as const) {
      progress.group(`${side}: ${sha.slice(0, 12)}`);
      const worktree = checkoutWorktree(repo, sha, settings.stateDir);
      if (settings.build) {
        const outcome = buildSide(worktree, treeHash(repo, sha), settings.build, `${side} (${sha.slice(0, 12)})`, settings.buildTimeoutMs, undefined, setting);
        builds.push({ side, ...outcome });
        progress.note(outcome.skipped ? `build skipped: this tree was built before` : `built in ${(outcome.durationMs / 1000).toFixed(1)} s`);
      }
      const dir = await executor.prepare(worktree, `${side}-${sha.slice(0, 12)}`);
      sides[side] = { sha, dir, measurements: [], warnings: new Map(), hints: {}, rounds: 0, succeeded: false, harness: settings.format ?? 'detected' };
      progress.endGroup();
    }
    const pin = await resolvePin(settings.pinCpu ?? 'auto', fingerprint, executor, sides.base.dir, setting);
    if (pin !== undefined) progress.note(`rounds pinned to CPU ${pin} (taskset)`);
    const repetitions = settings.repetitions ?? 1;
    const summary = settings.roundSummary ?? 'median';

    const failures: RoundFailure[] = [];
    let benchMs = 0;
    let roundMs = 0;
    let roundCount = 0;

    const measure = async (side: Side, round: number, keep: boolean): Promise<void> => {
      const state = sides[side];
      const started = process.hrtime.bigint();
      // Warm-up rounds are numbered -1, -2, ...; people read them as warm-up round 1, 2, ...
      const name = keep ? `round ${round}` : `warm-up round ${-round}`;
      const outcome = await measureRepeated(settings, pin, repetitions, executor, state.dir, scratch, `${side} ${name}`);
      roundMs += Number(process.hrtime.bigint() - started) / 1e6;
      roundCount += 1;
      if ('failure' in outcome) {
        failures.push({ side, round, ...outcome.failure });
        progress.note(`${name} on ${side} failed: ${outcome.failure.message}`);
        if (!state.succeeded) throw new RunnerError(`the benchmark does not run on ${side} (${state.sha.slice(0, 12)}): ${outcome.failure.message}`);
        if (failures.length > settings.maxFailedRounds) {
          throw new RunnerError(`${failures.length} rounds failed (more than ${setting('max-failed-rounds')} ${settings.maxFailedRounds}); last: ${outcome.failure.message}`);
        }
        return;
      }
      benchMs += outcome.durationMs;
      state.succeeded = true;
      if (!keep) return;
      state.rounds += 1;
      state.harness = outcome.format;
      const kept = settings.filter ? outcome.measurements.filter((m) => settings.filter?.test(m.benchmark)) : outcome.measurements;
      // A loop, not push(...): a round may give up to a million series (input-limits.ts), too many to spread.
      for (const m of summary === 'median' ? summarizeRound(kept) : kept) state.measurements.push(m);
      for (const w of outcome.warnings) state.warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
      Object.assign(state.hints, outcome.hints);
    };

    progress.group(`warm-up: ${settings.warmup} round(s) per side, discarded`);
    for (let i = 0; i < settings.warmup; i++) for (const side of ['base', 'head'] as const) await measure(side, -(i + 1), false);
    progress.endGroup();

    const looks = lookSchedule(settings.minRuns, settings.maxRuns, DEFAULT_LOOKS);
    const levels = lookLevels(settings.alpha, looks);
    const alphas = levels.difference;
    const eqAlphas = levels.equivalence;
    // A negative seed means "derive it from the commits".
    const seed = settings.seed >= 0 ? settings.seed : seedFromShas(baseSha, headSha);
    const schedule = roundSchedule(settings.maxRuns, seed);
    const lookRecords: LookRecord[] = [];
    let report: ComparisonReport | undefined;
    let undecided: string[] = [];
    let settled = new Map<string, Comparison>();
    // The primary metric chosen at a benchmark's first look stays its primary metric.
    const primary = new Map<string, string>();
    let pooled: Record<string, number> = {};
    let poolRefused: Record<string, string> = {};
    const stored = (settings.poolBase ?? DEFAULT_POOL_BASE) && deps.history ? await deps.history.storedRounds(baseSha, fingerprint) : [];
    if (stored.length > 0) progress.note(`${stored.length} stored base measurement(s) of ${baseSha.slice(0, 12)} on this machine may join the base side after a drift check`);
    let step = 0;
    let attempts = { base: 0, head: 0 };
    progress.group(`measuring: ${looks.join(', ')} rounds per side at most, ABBA order (seed ${seed})`);
    for (let k = 0; k < looks.length; k++) {
      while (Math.min(sides.base.rounds, sides.head.rounds) < looks[k] && step < schedule.length * 2) {
        // Rounds that failed are not retried in place; the schedule simply runs on.
        const side = schedule[step % schedule.length];
        step += 1;
        if (sides[side].rounds >= looks[k]) continue;
        attempts = { ...attempts, [side]: attempts[side] + 1 };
        await measure(side, attempts[side], true);
        progress.status(`rounds: base ${sides.base.rounds}, head ${sides.head.rounds} (look at ${looks[k]})`);
      }
      const baseSide = toCompareSide(sides.base, fingerprint);
      if (stored.length > 0) {
        const outcome = poolBase(baseSide.measurements, stored, { threshold: (b) => thresholdFor(b, settings.threshold, settings.rules), test: settings.test });
        baseSide.measurements = outcome.measurements;
        pooled = Object.fromEntries([...outcome.pooled].map(([key, n]) => [label(key), n]));
        poolRefused = Object.fromEntries([...outcome.refused].map(([key, why]) => [label(key), why]));
      }
      const roundsNow = Math.min(sides.base.rounds, sides.head.rounds);
      const fresh = compareRuns(baseSide, toCompareSide(sides.head, fingerprint), { threshold: settings.threshold, alpha: alphas[k], equivalenceAlpha: eqAlphas[k], rules: settings.rules, test: settings.test, primary });
      for (const c of fresh.comparisons) if (c.family === 'primary' && !primary.has(c.benchmark)) primary.set(c.benchmark, c.metric);
      const before = settled.size;
      const look = applyLook(fresh, settled, {
        roundsPerSide: roundsNow, maxRoundsPerSide: looks[looks.length - 1], alpha: alphas[k], lastAlpha: alphas[alphas.length - 1],
        equivalenceAlpha: eqAlphas[k], lastEquivalenceAlpha: eqAlphas[eqAlphas.length - 1], last: k === looks.length - 1,
        ...(settings.futility === false ? { futilityPower: 0 } : {}),
      });
      settled = look.settled;
      report = { ...look.report, overallAlpha: settings.alpha };
      const futile = look.report.comparisons.filter((c) => c.decision === 'futility' && c.futileAt === roundsNow).length;
      const rejudged = look.report.comparisons.filter((c) => decidedForOthers(c) && c.decidedAt === roundsNow).length;
      lookRecords.push({ roundsPerSide: roundsNow, alpha: alphas[k], undecided: look.undecided.length, futile, rejudged });
      progress.note(`look ${k + 1} at ${roundsNow} rounds per side (alpha ${alphas[k].toPrecision(2)}): ${settled.size - before} settled, ${futile} of them for futility; ${rejudged > 0 ? `${rejudged} stopped for futility earlier decided now on rounds measured for others; ` : ''}${look.undecided.length} undecided`);
      undecided = look.report.comparisons.filter((c) => c.verdict === 'inconclusive' && c.decision !== 'undecided').map((c) => `${c.benchmark} (${c.metric})`);
      if (look.stop) break;
    }
    progress.endGroup();
    if (!report) throw new RunnerError(`no look was taken; check ${setting('min-runs')} and ${setting('max-runs')}`);

    let instructions: InstructionsResult | undefined;
    if (settings.instructions) {
      instructions = await countBothSides(settings, settings.instructions, sides, pin, fingerprint.cores, executor, progress);
      // Work metrics are compared on their own: they are not part of the looks' alpha spending, every repeat being the same count.
      const work = (side: Side): CompareSide => {
        const all = toCompareSide(sides[side], fingerprint);
        return { ...all, measurements: all.measurements.filter((m) => isWorkMetric(m.metric)) };
      };
      // Unless given, the threshold is the counted harness's (compare-runs.ts HARNESS_WORK_THRESHOLDS: CPython's counts move with the memory layout).
      const workThreshold = settings.workThreshold ?? defaultWorkThreshold(countedHarness(settings, sides.base));
      const counted = compareRuns(work('base'), work('head'), { threshold: settings.threshold, workThreshold, alpha: settings.alpha, rules: settings.rules, test: settings.test });
      if (counted.comparisons.length > 0) {
        const comparisons = [...report.comparisons, ...counted.comparisons];
        report = { ...report, comparisons, summary: summarize(comparisons), ...(counted.workThreshold !== undefined ? { workThreshold: counted.workThreshold } : {}) };
      }
      // The sides' warnings now hold counting's reasons (a benchmark not counted, and why): the report says them beside the rounds' own.
      const said = new Set(report.warnings);
      const reasons = counted.warnings.filter((w) => !said.has(w));
      if (reasons.length > 0) report = { ...report, warnings: [...report.warnings, ...reasons] };
    }

    const time = deps.now();
    const toRun = (side: Side): Run => ({
      sha: sides[side].sha,
      ref: side === 'base' ? settings.base : settings.head,
      role: side,
      fingerprint,
      time,
      harness: sides[side].harness,
      measurements: toCompareSide(sides[side], fingerprint).measurements,
      warnings: [...sides[side].warnings.values()],
      hints: sides[side].hints,
    });
    const roundsPerSide = Math.min(sides.base.rounds, sides.head.rounds);
    if (deps.history) {
      const remembered = await deps.history.learn(fingerprint, [...noiseOf(sides.base), ...noiseOf(sides.head)]);
      const budget = deps.budgetRoundsPerSide ?? looks[looks.length - 1];
      // Advice for another budget assumes run's default looks (the first at 10 rounds per side).
      const advice = deps.budgetRoundsPerSide === undefined ? levels : lookLevels(settings.alpha, lookSchedule(Math.min(DEFAULT_LOOKS[0], budget), budget, DEFAULT_LOOKS));
      annotateBudget(report.comparisons, (c) => remembered.get(`${c.benchmark}\u0000${c.metric}`), {
        maxRoundsPerSide: budget, lastAlpha: advice.difference[advice.difference.length - 1], lastEquivalenceAlpha: advice.equivalence[advice.equivalence.length - 1], threshold: settings.threshold,
      });
    }
    for (const c of report.comparisons) if (pooled[`${c.benchmark} (${c.metric})`] !== undefined) c.pooledBase = pooled[`${c.benchmark} (${c.metric})`];
    return {
      report,
      base: toRun('base'),
      head: toRun('head'),
      roundsPerSide,
      looks: lookRecords,
      failures,
      undecided,
      builds,
      overheadMs: roundCount > 0 ? (roundMs - benchMs) / roundCount : 0,
      benchMs: roundCount > 0 ? benchMs / roundCount : 0,
      maxRoundsPerSide: looks[looks.length - 1],
      pinned: pin,
      pooled,
      poolRefused,
      ...(instructions ? { instructions } : {}),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    release();
  }
}

/** countedHarness is the harness a side's work is counted as: `command` for the whole command (its rounds read hyperfine's output), else the rounds'. */
function countedHarness(settings: RunAbSettings, state: SideState): string {
  return settings.format === 'command' ? 'command' : state.harness;
}

/**
 * countBothSides counts the benchmarks the wall-time rounds measured (as
 * named there, narrowed by the instruction filter) on both checkouts,
 * base first, and adds the work metrics and the reasons to each side.
 */
async function countBothSides(settings: RunAbSettings, counting: InstructionSettings, sides: Record<Side, SideState>, pin: string | undefined, cores: number | undefined, executor: Executor, progress: Progress): Promise<InstructionsResult> {
  const root = join(settings.stateDir, 'callgrind');
  mkdirSync(root, { recursive: true });
  const keepDir = mkdtempSync(join(root, `${sides.base.sha.slice(0, 12)}-${sides.head.sha.slice(0, 12)}-`));
  const result: InstructionsResult = { keepDir, profiles: [], reasons: [], durationMs: 0 };
  // Without --instructions-iterations, slow benchmarks get fewer iterations, chosen once from both sides' rounds: the same schedule on both.
  const harness = countedHarness(settings, sides.base);
  progress.group(`instructions: counting under valgrind, ${counting.repeats ?? defaultCountRepeats(harness)} repeat(s) per side${isLayoutSampled(harness) ? ', each in another memory layout' : ''}`);
  const fullSchedule = DEFAULT_COUNT_ITERATIONS[harness];
  const schedule = counting.iterations === undefined && fullSchedule !== undefined ? countSchedule([...sides.base.measurements, ...sides.head.measurements].filter((m) => counting.filter?.test(m.benchmark) ?? true), fullSchedule) : {};
  const cut = Object.entries(schedule);
  if (cut.length > 0) progress.note(`${cut.length} slow benchmark(s) counted with fewer iterations than ${fullSchedule}, on both sides: ${cut.slice(0, 4).map(([b, n]) => `${b} ${n}x`).join(', ')}${cut.length > 4 ? ' …' : ''}`);
  for (const side of ['base', 'head'] as const) {
    const state = sides[side];
    const names = [...new Set(state.measurements.map((m) => m.benchmark))];
    const format = countedHarness(settings, state);
    const outcome = await countInstructions({
      bench: settings.bench, format, names, filter: counting.filter, repeats: counting.repeats, iterations: counting.iterations, schedule,
      // Pinned rounds run on the pinned CPUs; counting does not need them quiet, only one process per CPU.
      timeoutMs: settings.roundTimeoutMs, pin, parallel: pin === undefined ? (cores ?? 1) : 1, keepDir: join(keepDir, side), nameSetting: settings.nameSetting,
    }, executor, state.dir, side);
    for (const m of outcome.measurements) state.measurements.push(m);
    for (const w of outcome.reasons) {
      state.warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
      if (side === 'base' || !result.reasons.some((r) => r.benchmark === w.benchmark && r.message === w.message)) result.reasons.push(w);
    }
    for (const p of outcome.profiles) result.profiles.push({ ...p, side, sha: state.sha });
    result.durationMs += outcome.durationMs;
    const counted = new Set(outcome.measurements.map((m) => m.benchmark)).size;
    progress.note(`${side}: ${counted} benchmark(s) counted in ${(outcome.durationMs / 1000).toFixed(1)} s${outcome.reasons.length > 0 ? `; ${outcome.reasons.length} not: ${outcome.reasons[0].message}${outcome.reasons.length > 1 ? ' …' : ''}` : ''}`);
  }
  progress.endGroup();
  return result;
}

/**
 * measureRepeated runs one round: the bench command `repetitions` times back
 * to back, every measurement of every repetition kept (the round summary
 * folds them). A failed repetition fails the round.
 */
async function measureRepeated(settings: RunAbSettings, pin: string | undefined, repetitions: number, executor: Executor, dir: string, scratch: string, tag: string): ReturnType<typeof measureRound> {
  let first: Awaited<ReturnType<typeof measureRound>> | undefined;
  for (let r = 0; r < repetitions; r++) {
    const outcome = await measureRound({ ...settings, pin }, executor, dir, scratch, repetitions > 1 ? `${tag}.${r + 1}` : tag);
    if ('failure' in outcome) return outcome;
    if (first === undefined || 'failure' in first) first = outcome;
    else {
      for (const m of outcome.measurements) first.measurements.push(m);
      for (const w of outcome.warnings) first.warnings.push(w);
      first.durationMs += outcome.durationMs;
    }
  }
  return first as Awaited<ReturnType<typeof measureRound>>;
}

/**
 * summarizeRound folds one round's values into one per benchmark x metric:
 * their median. A harness that repeats inside one process (Google
 * Benchmark's --benchmark_repetitions, go test -count, criterion's samples)
 * reports values that share that process's luck; one round is one
 * independent observation.
 */
export function summarizeRound(measurements: readonly Measurement[]): Measurement[] {
  return poolMeasurements(measurements).map((m) => (m.values.length <= 1 ? m : { ...m, values: [median(m.values)] }));
}

/** label names a benchmark x metric key as the report does: `BM_A (real_time)`. */
const label = (key: string) => `${key.replace('\u0000', ' (')})`;

/** noiseOf is each benchmark x metric's per-round noise on one side, for the machine's memory. */
function noiseOf(state: SideState): NoiseLearning[] {
  const out: NoiseLearning[] = [];
  for (const m of poolMeasurements(state.measurements)) {
    const sigma = noiseSigma(m.values);
    if (sigma !== null) out.push({ benchmark: m.benchmark, metric: m.metric, sigma, rounds: m.values.length });
  }
  return out;
}

function toCompareSide(state: SideState, fingerprint: Fingerprint): CompareSide {
  // One measurement per benchmark and metric, each round's values in round order.
  return { measurements: poolMeasurements(state.measurements), warnings: [...state.warnings.values()], hints: state.hints, fingerprint };
}
