import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { parseThresholdFlags } from './threshold-flags.ts';
import { readerFor } from '../formats/detect.ts';
import { renderRunReport } from '../report/run-report.ts';
import { isReportFormat, reportFormats, type ReportFormat } from '../report/report-renderers.ts';
import { DEFAULT_POOL_BASE, runAb, type RunAbSettings, type RunHistory } from '../runner/run-ab.ts';
import { createExecutor, parseExecutorSpec, type ExecutorSpec } from '../runner/executor.ts';
import { createProgress } from '../runner/progress.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { learnNoise, storedRounds } from '../store/noise-memory.ts';
import { parsePinSetting } from '../runner/cpu-pin.ts';
import { DEFAULT_TEST } from '../compare/estimate-change.ts';
import { UsageError } from './usage-error.ts';
import { holdOptions, MACHINE_FLAG_OPTIONS, MACHINE_FLAGS_USAGE, parseMachineFlags } from './machine-flags.ts';
import { resolveStoreArg } from './resolve-store-arg.ts';

/** OUTPUTS are the report formats run prints: those rendered from the comparisons alone. */
const OUTPUTS = reportFormats({ rows: false });

export const RUN_USAGE = `usage: benchbot run --base REF --head REF --bench CMD [options]

Checks out base and head in git worktrees, builds each once, runs the
benchmark in interleaved ABBA rounds on this machine (or an executor's), adds
rounds until every benchmark is decisive, stores both runs and prints the report.

options:
  --base REF              base commit, branch or tag (required)
  --head REF              head commit, branch or tag (required)
  --bench CMD             benchmark command, run in the checkout (required)
  --build CMD             build command, run once per checkout (skipped when that tree was built before)
  --format F              output format of CMD (default: detected); 'command' times the whole command via hyperfine
  --result-file PATH      read results from this file (relative to the checkout) instead of stdout; a directory
                          is criterion's (target/criterion): each round reads the */new/ results it wrote
  --min-runs N            rounds per side before the first look (default 10)
  --max-runs N            round budget per side (default 40)
  --warmup N              discarded warm-up rounds per side (default 1)
  --threshold X           smallest change that matters (default 2%)
  --threshold-for G=X     threshold for benchmarks matching glob G (repeatable)
  --alpha A               overall error rate, split across looks (default 0.05)
  --output O              ${OUTPUTS.join(' | ')} (default text)
  --store URL             history store: a SQLite path or postgres://… (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL);
                          a relative path is relative to the current directory, like every path you type
  --no-store              do not store the runs
  --executor E            local (default) | ssh://user@host[:port][/dir] | device
  --device-run T          device executor: command template with {cmd}, e.g. 'adb shell {cmd}'
  --device-push T         device executor: push template with {src} {dst}
  --device-pull T         device executor: pull template with {src} {dst}
  --repo DIR              repository to benchmark (default .); its worktrees go to DIR/.benchbot/worktrees
                          (benchbot clean removes them)
  --counters              add perf stat instructions, cycles, branch-misses, cache-misses per round
  --round-timeout S       seconds before a round is killed (default 600)
  --build-timeout S       seconds before a build is killed (default 3600)
  --max-failed-rounds N   failed rounds tolerated before giving up (default 3)
${MACHINE_FLAGS_USAGE}
  --seed N                seed of the round order (default: derived from the two SHAs)
  --labels L1,L2          runner labels recorded in the fingerprint, comma- or space-separated (default: env RUNNER_LABELS)
  --allow-dirty           run although the repository has uncommitted changes
  --repetitions N         run the bench command N times in every round (default 1)
  --round-summary S       median (default): each round contributes the median of what it measured per
                          benchmark; all: every value counts as a sample
  --pin-cpu C             auto (default: the kernel's isolated CPUs, if any) | off | a taskset CPU list, e.g. 3 or 2-3
  --no-pool-base          do not pool stored rounds of the same base SHA on this machine into the base side
                          (pooled by default, after a drift check against today's base rounds)
  --test T                mann-whitney (default) | yuen (20%-trimmed t)

exit status: 0 no regression, 1 at least one regression, 2 usage, setup or input error`;

/** RunCommandSettings are the parsed flags: the runner's settings plus where to store and how to print. */
export interface RunCommandSettings extends RunAbSettings {
  output: ReportFormat;
  store?: string;
  noStore: boolean;
  executorSpec: ExecutorSpec;
  maxLoad?: number;
  loadWaitMs: number;
  lockTimeoutMs: number;
}

function positiveInt(value: string | undefined, flag: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} ${value}: give a whole number of at least ${min}`);
  return n;
}

function seconds(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(value.replace(/s$/, ''));
  if (!(n > 0)) throw new UsageError(`${flag} ${value}: give a number of seconds, e.g. 600`);
  return n * 1000;
}

function executorSpec(text: string, device: { run?: string; push?: string; pull?: string }): ExecutorSpec {
  try {
    return parseExecutorSpec(text, device);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** parseRunArgs validates `benchbot run`'s flags; every problem names the flag to change. */
export function parseRunArgs(args: string[], cwd: string, env: NodeJS.ProcessEnv): RunCommandSettings {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: false,
      options: {
        base: { type: 'string' }, head: { type: 'string' }, bench: { type: 'string' }, build: { type: 'string' },
        format: { type: 'string' }, 'result-file': { type: 'string' },
        'min-runs': { type: 'string' }, 'max-runs': { type: 'string' }, warmup: { type: 'string' },
        threshold: { type: 'string' }, 'threshold-for': { type: 'string', multiple: true }, alpha: { type: 'string' },
        output: { type: 'string' }, store: { type: 'string' }, 'no-store': { type: 'boolean' },
        executor: { type: 'string' }, 'device-run': { type: 'string' }, 'device-push': { type: 'string' }, 'device-pull': { type: 'string' },
        repo: { type: 'string' }, counters: { type: 'boolean' },
        'round-timeout': { type: 'string' }, 'build-timeout': { type: 'string' }, 'max-failed-rounds': { type: 'string' },
        ...MACHINE_FLAG_OPTIONS,
        seed: { type: 'string' }, labels: { type: 'string' }, 'allow-dirty': { type: 'boolean' },
        repetitions: { type: 'string' }, 'round-summary': { type: 'string' }, 'pin-cpu': { type: 'string' },
        'pool-base': { type: 'boolean' }, 'no-pool-base': { type: 'boolean' }, test: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values;
  for (const flag of ['base', 'head', 'bench'] as const) if (!v[flag]) throw new UsageError(`--${flag} is required`);
  if (v.format !== undefined && v.format !== 'command') readerFor(v.format);
  const minRuns = positiveInt(v['min-runs'], '--min-runs', 10, 2);
  const maxRuns = positiveInt(v['max-runs'], '--max-runs', Math.max(40, minRuns));
  if (maxRuns < minRuns) throw new UsageError(`--max-runs ${maxRuns} is below --min-runs ${minRuns}`);
  const { threshold, rules, alpha } = parseThresholdFlags(v);
  const output = v.output ?? 'text';
  if (!isReportFormat(output, OUTPUTS)) throw new UsageError(`--output ${v.output}: use one of ${OUTPUTS.join(', ')}`);
  const machine = parseMachineFlags(v);
  const repo = resolve(cwd, v.repo ?? '.');
  const seed = v.seed === undefined ? undefined : positiveInt(v.seed, '--seed', 0, 0);
  const labels = (v.labels ?? env.RUNNER_LABELS ?? '').split(/[\s,]+/).filter((l) => l !== '');
  const roundSummary = v['round-summary'] ?? 'median';
  if (roundSummary !== 'median' && roundSummary !== 'all') throw new UsageError(`--round-summary ${roundSummary}: use median or all`);
  const pinCpu = parsePinSetting(v['pin-cpu'] ?? 'auto');
  if (pinCpu === undefined) throw new UsageError(`--pin-cpu ${v['pin-cpu']}: use auto, off, or a CPU list such as 3 or 2-3`);
  const test = v.test ?? DEFAULT_TEST;
  if (test !== 'mann-whitney' && test !== 'yuen') throw new UsageError(`--test ${v.test}: use mann-whitney or yuen`);
  return {
    repo,
    base: v.base as string,
    head: v.head as string,
    bench: v.bench as string,
    build: v.build,
    format: v.format,
    resultFile: v['result-file'],
    minRuns,
    maxRuns,
    warmup: positiveInt(v.warmup, '--warmup', 1, 0),
    threshold,
    alpha,
    rules,
    roundTimeoutMs: seconds(v['round-timeout'], '--round-timeout', 600),
    buildTimeoutMs: seconds(v['build-timeout'], '--build-timeout', 3600),
    seed: seed ?? -1,
    counters: v.counters === true,
    allowDirty: v['allow-dirty'] === true,
    stateDir: join(repo, '.benchbot'),
    labels,
    maxFailedRounds: positiveInt(v['max-failed-rounds'], '--max-failed-rounds', 3, 0),
    output,
    store: resolveStoreArg(v.store, cwd, env),
    noStore: v['no-store'] === true,
    executorSpec: executorSpec(v.executor ?? 'local', { run: v['device-run'], push: v['device-push'], pull: v['device-pull'] }),
    ...machine,
    repetitions: positiveInt(v.repetitions, '--repetitions', 1),
    roundSummary,
    pinCpu,
    poolBase: v['pool-base'] === true ? true : v['no-pool-base'] === true ? false : DEFAULT_POOL_BASE,
    test,
  };
}



/** runRun implements `benchbot run`; returns the exit code. */
export async function runRun(args: string[], out: (text: string) => void): Promise<number> {
  const settings = parseRunArgs(args, process.cwd(), process.env);
  const executor = createExecutor(settings.executorSpec);
  // Open the store first: a store that does not connect should fail before an hour of measuring.
  const store = settings.noStore ? undefined : await openStore(settings.store, { cwd: settings.repo });
  try {
    const progress = createProgress();
    const result = await runAb(settings, {
      executor,
      progress,
      now: () => new Date().toISOString(),
      holdMachine: holdMachine(executor, progress, holdOptions(settings)),
      history: store ? storeHistory(store, settings.repo) : undefined,
    });
    if (store) await store.ingestRuns([{ ...result.base, repo: settings.repo }, { ...result.head, repo: settings.repo }]);
    out(renderRunReport(result, settings.output));
    return result.report.summary.regressed > 0 ? 1 : 0;
  } finally {
    await executor.close();
    await store?.close();
  }
}

/** storeHistory lends the runner the store's memory of this machine: stored rounds of a commit, and the noise memory. */
export function storeHistory(store: Store, repo: string | undefined): RunHistory {
  return {
    storedRounds: (sha, fingerprint) => storedRounds(store, fingerprint, repo, sha),
    learn: async (fingerprint, observations) => {
      const memory = await learnNoise(store, fingerprint, repo, observations, new Date().toISOString());
      return new Map([...memory].map(([key, record]) => [key, record.sigma]));
    },
  };
}
