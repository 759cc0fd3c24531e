import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { Measurement, ReadWarning, FingerprintHints } from '../model/measurement.ts';
import type { Run } from '../model/run.ts';
import { compareRuns, poolMeasurements, type ComparisonReport, type CompareSide } from '../compare/compare-runs.ts';
import { decideStop } from '../compare/adaptive-stop.ts';
import type { ThresholdRule } from '../compare/thresholds.ts';
import { DEFAULT_LOOKS, sequentialAlpha } from '../stats/sequential-alpha.ts';
import { buildSide } from './build-side.ts';
import type { Executor } from './executor.ts';
import { checkoutWorktree, dirtyFiles, openRepository, resolveCommit, RunnerError, treeHash } from './git-checkout.ts';
import { measureRound } from './measure-round.ts';
import type { Progress } from './progress.ts';
import { lookSchedule, roundSchedule, seedFromShas, type Side } from './round-schedule.ts';

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
  alpha: number;
  rules: ThresholdRule[];
  /** filter keeps only the benchmarks whose names match; undefined keeps all. */
  filter?: RegExp;
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
}

/** RunAbDeps are the edges a run touches, injected so tests can substitute them. */
export interface RunAbDeps {
  executor: Executor;
  progress: Progress;
  /** now returns the current time as ISO 8601 (the runs' timestamps). */
  now: () => string;
  /** holdMachine takes the machine lock and waits for a quiet machine (given its core count); returns the release function. */
  holdMachine?: (cores: number | undefined) => Promise<() => void>;
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

/** LookRecord is what adaptive sampling saw at one look. */
export interface LookRecord {
  roundsPerSide: number;
  alpha: number;
  undecided: number;
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
  const repo = openRepository(settings.repo);
  const baseSha = resolveCommit(repo, settings.base, '--base');
  const headSha = resolveCommit(repo, settings.head, '--head');
  const dirty = dirtyFiles(repo);
  if (dirty.length > 0 && !settings.allowDirty) {
    throw new RunnerError(`${repo} has uncommitted changes (${dirty.slice(0, 3).join('; ')}${dirty.length > 3 ? '; …' : ''}); benchbot measures commits, so commit or stash them, or pass --allow-dirty`);
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
        const outcome = buildSide(worktree, treeHash(repo, sha), settings.build, `${side} (${sha.slice(0, 12)})`, settings.buildTimeoutMs);
        builds.push({ side, ...outcome });
        progress.note(outcome.skipped ? `build skipped: this tree was built before` : `built in ${(outcome.durationMs / 1000).toFixed(1)} s`);
      }
      const dir = await executor.prepare(worktree, `${side}-${sha.slice(0, 12)}`);
      sides[side] = { sha, dir, measurements: [], warnings: new Map(), hints: {}, rounds: 0, succeeded: false, harness: settings.format ?? 'detected' };
      progress.endGroup();
    }

    const failures: RoundFailure[] = [];
    let benchMs = 0;
    let roundMs = 0;
    let roundCount = 0;

    const measure = async (side: Side, round: number, keep: boolean): Promise<void> => {
      const state = sides[side];
      const started = process.hrtime.bigint();
      const outcome = await measureRound(settings, executor, state.dir, scratch, `${side} round ${round}`);
      roundMs += Number(process.hrtime.bigint() - started) / 1e6;
      roundCount += 1;
      if ('failure' in outcome) {
        failures.push({ side, round, ...outcome.failure });
        progress.note(`round ${round} on ${side} failed: ${outcome.failure.message}`);
        if (!state.succeeded) throw new RunnerError(`the benchmark does not run on ${side} (${state.sha.slice(0, 12)}): ${outcome.failure.message}`);
        if (failures.length > settings.maxFailedRounds) {
          throw new RunnerError(`${failures.length} rounds failed (more than --max-failed-rounds ${settings.maxFailedRounds}); last: ${outcome.failure.message}`);
        }
        return;
      }
      benchMs += outcome.durationMs;
      state.succeeded = true;
      if (!keep) return;
      state.rounds += 1;
      state.harness = outcome.format;
      state.measurements.push(...(settings.filter ? outcome.measurements.filter((m) => settings.filter?.test(m.benchmark)) : outcome.measurements));
      for (const w of outcome.warnings) state.warnings.set(`${w.benchmark ?? ''}\u0000${w.message}`, w);
      Object.assign(state.hints, outcome.hints);
    };

    progress.group(`warm-up: ${settings.warmup} round(s) per side, discarded`);
    for (let i = 0; i < settings.warmup; i++) for (const side of ['base', 'head'] as const) await measure(side, -(i + 1), false);
    progress.endGroup();

    const looks = lookSchedule(settings.minRuns, settings.maxRuns, DEFAULT_LOOKS);
    const alphas = sequentialAlpha({ alpha: settings.alpha, looks });
    // A negative seed means "derive it from the commits".
    const seed = settings.seed >= 0 ? settings.seed : seedFromShas(baseSha, headSha);
    const schedule = roundSchedule(settings.maxRuns, seed);
    const lookRecords: LookRecord[] = [];
    let report: ComparisonReport | undefined;
    let undecided: string[] = [];
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
      report = compareRuns(toCompareSide(sides.base, fingerprint), toCompareSide(sides.head, fingerprint), { threshold: settings.threshold, alpha: alphas[k], rules: settings.rules });
      const decision = decideStop(report.comparisons, k === looks.length - 1);
      lookRecords.push({ roundsPerSide: Math.min(sides.base.rounds, sides.head.rounds), alpha: alphas[k], undecided: decision.undecided.length });
      progress.note(`look ${k + 1} at ${lookRecords.at(-1)?.roundsPerSide} rounds per side (alpha ${alphas[k].toPrecision(2)}): ${decision.undecided.length} undecided`);
      undecided = decision.undecided.map((c) => `${c.benchmark} (${c.metric})`);
      if (decision.stop) break;
    }
    progress.endGroup();
    if (!report) throw new RunnerError('no look was taken; check --min-runs and --max-runs');

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
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    release();
  }
}

function toCompareSide(state: SideState, fingerprint: Fingerprint): CompareSide {
  // One measurement per benchmark and metric, each round's values in round order.
  return { measurements: poolMeasurements(state.measurements), warnings: [...state.warnings.values()], hints: state.hints, fingerprint };
}
