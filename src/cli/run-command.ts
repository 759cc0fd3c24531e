import { join, resolve } from 'node:path';
import { parseThresholdFlags, workThresholdDefaults } from './threshold-flags.ts';
import { renderRunReport } from '../report/run-report.ts';
import { reportFormats, type ReportFormat } from '../report/report-renderers.ts';
import { parseExecutorSpec, type ExecutorSpec } from '../runner/executor.ts';
import { parsePinSetting } from '../runner/cpu-pin.ts';
import { checkFormat, defaultMaxRuns, PR_CHECK_DEFAULTS, runPrCheck, type PrCheckSettings } from '../jobs/pr-check.ts';
import { cliSetting } from '../jobs/setting-names.ts';
import { choose, parseFlags, secondsFlag, UsageError, wholeFlag } from './usage-error.ts';
import { MACHINE_FLAG_OPTIONS, MACHINE_FLAGS_USAGE, parseMachineFlags } from './machine-flags.ts';
import { resolveStoreArg } from './resolve-store-arg.ts';
import { measureInterruptibly } from './interrupt.ts';
import { checkOutputFile, writeOutputFile } from './output-paths.ts';
import { INSTRUCTION_FLAG_OPTIONS, instructionFlagsUsage, parseInstructionFlags } from './instruction-flags.ts';

/** OUTPUTS are the report formats run prints: those rendered from the comparisons alone. */
const OUTPUTS = reportFormats({ rows: false });

/**
 * MEASURE_FLAGS_USAGE documents the flags of every command that measures
 * commits with the PR check's rounds (run, nightly), parsed by parseMeasureFlags.
 */
export const MEASURE_FLAGS_USAGE = `  --build CMD             build command, run once per checkout (skipped when that tree was built before)
  --format F              output format of CMD (default: detected); 'command' times the whole command via hyperfine
  --result-file PATH      read results from this file (relative to the checkout) instead of stdout; a directory
                          is criterion's (target/criterion): each round reads the */new/ results it wrote
  --min-runs N            rounds per side before the first look (default ${PR_CHECK_DEFAULTS.minRuns})
  --max-runs N            round budget per side (default ${PR_CHECK_DEFAULTS.maxRuns})
  --warmup N              discarded warm-up rounds per side (default ${PR_CHECK_DEFAULTS.warmup})
  --threshold X           smallest change that matters, a percentage: 2% or 2; 0.5%, never a bare 0.5 (default 2%)
  --threshold-for G=X     threshold for benchmarks matching glob G (repeatable)
  --work-threshold X      threshold of counted work (--instructions), decided by its repeats
                          (default ${workThresholdDefaults()})
  --alpha A               overall error rate, split across looks (default 0.05)
  --store URL             history store: a SQLite path or postgres://… (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL);
                          a relative path is relative to the current directory, like every path you type
  --executor E            local (default) | ssh://user@host[:port][/dir] | device
  --device-run T          device executor: command template with {cmd}, e.g. 'adb shell {cmd}'
  --device-push T         device executor: push template with {src} {dst}
  --device-pull T         device executor: pull template with {src} {dst}
  --repo DIR              repository to benchmark (default .); its worktrees go to DIR/.benchbot/worktrees
                          (benchbot clean removes them)
  --counters              add perf stat instructions, cycles, branch-misses, cache-misses per round
${instructionFlagsUsage()}
  --round-timeout S       seconds before a round is killed (default ${PR_CHECK_DEFAULTS.roundTimeoutMs / 1000})
  --build-timeout S       seconds before a build is killed (default ${PR_CHECK_DEFAULTS.buildTimeoutMs / 1000})
  --max-failed-rounds N   failed rounds tolerated before giving up (default ${PR_CHECK_DEFAULTS.maxFailedRounds})
${MACHINE_FLAGS_USAGE}
  --seed N                seed of the round order (default: derived from the two SHAs)
  --labels L1,L2          runner labels recorded in the fingerprint, comma- or space-separated (default: env RUNNER_LABELS)
  --allow-dirty           run although the repository has uncommitted changes
  --repetitions N         run the bench command N times in every round (default ${PR_CHECK_DEFAULTS.repetitions})
  --round-summary S       median (default): each round contributes the median of what it measured per
                          benchmark; all: every value counts as a sample
  --pin-cpu C             auto (default: the kernel's isolated CPUs, if any) | off | a taskset CPU list, e.g. 3 or 2-3
  --no-pool-base          do not pool stored rounds of the same base SHA on this machine into the base side
                          (pooled by default, after a drift check against today's base rounds)
  --test T                mann-whitney (default) | yuen (20%-trimmed t)
  --no-profile            do not profile the regressed benchmarks (by default each one, up to five, runs once more per
                          side under callgrind, and the report says which functions its change lives in)`;

export const RUN_USAGE = `usage: benchbot run --base REF --head REF --bench CMD [options]

Checks out base and head in git worktrees, builds each once, runs the
benchmark in interleaved ABBA rounds on this machine (or an executor's), adds
rounds until every benchmark is decisive, stores both runs and prints the report.

options:
  --base REF              base commit, branch or tag (required)
  --head REF              head commit, branch or tag (required)
  --bench CMD             benchmark command, run in the checkout (required)
${MEASURE_FLAGS_USAGE}
  --output O              ${OUTPUTS.join(' | ')} (default text)
  --export-markdown FILE  also write the report as markdown (the PR comment) to FILE, whatever --output prints
  --no-store              do not store the runs

exit status: 0 no regression, 1 at least one regression, 2 usage, setup or input error`;


/** RunCommandSettings are the parsed flags: the PR check's settings plus how to print. */
export interface RunCommandSettings extends PrCheckSettings {
  output: ReportFormat;
  /** exportMarkdown is where the markdown report (the PR comment) is also written (--export-markdown), absolute. */
  exportMarkdown?: string;
}



function executorSpec(text: string, device: { run?: string; push?: string; pull?: string }): ExecutorSpec {
  try {
    return parseExecutorSpec(text, device, cliSetting);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** MEASURE_FLAG_OPTIONS are the parseArgs options of MEASURE_FLAGS_USAGE. */
export const MEASURE_FLAG_OPTIONS = {
  bench: { type: 'string' }, build: { type: 'string' },
  format: { type: 'string' }, 'result-file': { type: 'string' },
  'min-runs': { type: 'string' }, 'max-runs': { type: 'string' }, warmup: { type: 'string' },
  threshold: { type: 'string' }, 'threshold-for': { type: 'string', multiple: true }, 'work-threshold': { type: 'string' }, alpha: { type: 'string' },
  store: { type: 'string' },
  executor: { type: 'string' }, 'device-run': { type: 'string' }, 'device-push': { type: 'string' }, 'device-pull': { type: 'string' },
  repo: { type: 'string' }, counters: { type: 'boolean' },
  ...INSTRUCTION_FLAG_OPTIONS,
  'round-timeout': { type: 'string' }, 'build-timeout': { type: 'string' }, 'max-failed-rounds': { type: 'string' },
  ...MACHINE_FLAG_OPTIONS,
  seed: { type: 'string' }, labels: { type: 'string' }, 'allow-dirty': { type: 'boolean' },
  repetitions: { type: 'string' }, 'round-summary': { type: 'string' }, 'pin-cpu': { type: 'string' },
  'pool-base': { type: 'boolean' }, 'no-pool-base': { type: 'boolean' }, test: { type: 'string' },
  'no-profile': { type: 'boolean' },
} as const;

/** MeasureFlags are the parsed measuring flags: a PR check's settings but for its commits and what to do with the store. */
export type MeasureFlags = Omit<PrCheckSettings, 'base' | 'head' | 'noStore'>;

/** MeasureValues are parseArgs' values of MEASURE_FLAG_OPTIONS. */
type MeasureValues = { [K in keyof typeof MEASURE_FLAG_OPTIONS]?: (typeof MEASURE_FLAG_OPTIONS)[K]['type'] extends 'boolean' ? boolean : (typeof MEASURE_FLAG_OPTIONS)[K] extends { multiple: true } ? string[] : string };

/** parseRunArgs validates `benchbot run`'s flags; every problem names the flag to change. */
export function parseRunArgs(args: string[], cwd: string, env: NodeJS.ProcessEnv): RunCommandSettings {
  const parsed = parseFlags(args, { base: { type: 'string' }, head: { type: 'string' }, output: { type: 'string' }, 'export-markdown': { type: 'string' }, 'no-store': { type: 'boolean' }, ...MEASURE_FLAG_OPTIONS }, false);
  const v = parsed.values;
  for (const flag of ['base', 'head'] as const) if (!v[flag]) throw new UsageError(`--${flag} is required`);
  const output = choose('--output', v.output ?? 'text', OUTPUTS);
  const exportMarkdown = v['export-markdown'] === undefined ? undefined : resolve(cwd, v['export-markdown']);
  if (exportMarkdown !== undefined) checkOutputFile('--export-markdown', exportMarkdown);
  return { ...parseMeasureFlags(v, cwd, env), base: v.base as string, head: v.head as string, output, exportMarkdown, noStore: v['no-store'] === true };
}

/** parseMeasureFlags validates the measuring flags (MEASURE_FLAG_OPTIONS) of run and nightly; every problem names the flag to change. */
export function parseMeasureFlags(v: MeasureValues, cwd: string, env: NodeJS.ProcessEnv): MeasureFlags {
  if (!v.bench) throw new UsageError('--bench is required');
  checkFormat(v.format, cliSetting);
  const minRuns = wholeFlag(v['min-runs'], '--min-runs', PR_CHECK_DEFAULTS.minRuns, 2);
  const maxRuns = wholeFlag(v['max-runs'], '--max-runs', defaultMaxRuns(minRuns));
  if (maxRuns < minRuns) throw new UsageError(`--max-runs ${maxRuns} is below --min-runs ${minRuns}`);
  const { threshold, workThreshold, rules, alpha } = parseThresholdFlags(v);
  const machine = parseMachineFlags(v);
  const repo = resolve(cwd, v.repo ?? '.');
  const seed = v.seed === undefined ? undefined : wholeFlag(v.seed, '--seed', 0, 0);
  const labels = (v.labels ?? env.RUNNER_LABELS ?? '').split(/[\s,]+/).filter((l) => l !== '');
  const roundSummary = choose('--round-summary', v['round-summary'] ?? PR_CHECK_DEFAULTS.roundSummary, ['median', 'all']);
  const pinCpu = parsePinSetting(v['pin-cpu'] ?? PR_CHECK_DEFAULTS.pinCpu);
  if (pinCpu === undefined) throw new UsageError(`--pin-cpu ${v['pin-cpu']}: use auto, off, or a CPU list such as 3 or 2-3`);
  const test = choose('--test', v.test ?? PR_CHECK_DEFAULTS.test, ['mann-whitney', 'yuen']);
  const instructions = parseInstructionFlags(v);
  return {
    repo,
    bench: v.bench,
    build: v.build,
    format: v.format,
    resultFile: v['result-file'],
    minRuns,
    maxRuns,
    warmup: wholeFlag(v.warmup, '--warmup', PR_CHECK_DEFAULTS.warmup, 0),
    threshold,
    workThreshold,
    alpha,
    rules,
    roundTimeoutMs: secondsFlag(v['round-timeout'], '--round-timeout', PR_CHECK_DEFAULTS.roundTimeoutMs),
    buildTimeoutMs: secondsFlag(v['build-timeout'], '--build-timeout', PR_CHECK_DEFAULTS.buildTimeoutMs),
    seed: seed ?? PR_CHECK_DEFAULTS.seed,
    counters: v.counters === true,
    ...(instructions ? { instructions } : {}),
    allowDirty: v['allow-dirty'] === true,
    stateDir: join(repo, '.benchbot'),
    labels,
    maxFailedRounds: wholeFlag(v['max-failed-rounds'], '--max-failed-rounds', PR_CHECK_DEFAULTS.maxFailedRounds, 0),
    store: resolveStoreArg(v.store, cwd, env),
    executorSpec: executorSpec(v.executor ?? 'local', { run: v['device-run'], push: v['device-push'], pull: v['device-pull'] }),
    ...machine,
    repetitions: wholeFlag(v.repetitions, '--repetitions', PR_CHECK_DEFAULTS.repetitions),
    roundSummary,
    pinCpu,
    poolBase: v['pool-base'] === true ? true : v['no-pool-base'] === true ? false : PR_CHECK_DEFAULTS.poolBase,
    test,
    profile: v['no-profile'] === true ? false : PR_CHECK_DEFAULTS.profile,
    // Runs and noise memory are kept under the directory, as every CLI command stores them.
    repository: repo,
    nameSetting: cliSetting,
  };
}

/** checkoutsStay is what an interrupted run or calibrate leaves behind, on purpose. */
export function checkoutsStay(stateDir: string): string {
  return `the checkouts stay in ${join(stateDir, 'worktrees')} for the next run (benchbot clean removes them).`;
}

/** runRun implements `benchbot run`; returns the exit code. */
export async function runRun(args: string[], out: (text: string) => void): Promise<number> {
  const settings = parseRunArgs(args, process.cwd(), process.env);
  const { run } = await measureInterruptibly('run', checkoutsStay(settings.stateDir), (progress) => runPrCheck(settings, { progress, now: () => new Date().toISOString() }));
  if (settings.exportMarkdown !== undefined) writeOutputFile('--export-markdown', settings.exportMarkdown, `${renderRunReport(run, 'markdown')}\n`);
  out(renderRunReport(run, settings.output));
  return run.report.summary.regressed > 0 ? 1 : 0;
}
