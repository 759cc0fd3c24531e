import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { ESTIMATED_CYCLES_METRIC, INSTRUCTIONS_METRIC, WORK_UNIT } from '../model/work-metrics.ts';
import { addTotals, callsOf, estimatedCycles, parseCallgrindTotals, type CallgrindTotals } from '../formats/callgrind-totals.ts';
import { FormatError } from '../formats/format-error.ts';
import { callgrindSubtree, type SubtreeSettings } from '../formats/callgrind-subtree.ts';
import type { NameFilter } from '../compare/name-filter.ts';
import type { Executor } from './executor.ts';
import { shellQuote } from './local-executor.ts';
import { pinnedCommand } from './cpu-pin.ts';
import { readBoundedFile } from './read-bounded-text.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { conversionFactor } from '../model/units.ts';
import { CRITERION_FORMATS, criterionPlan, criterionSchedule } from './criterion-count.ts';
import { PYTEST_COUNT_C, PYTEST_COUNT_MODULE, PYTEST_COUNT_PLUGIN } from './pytest-count-plugin.ts';

/**
 * COUNTED_HARNESSES are the harnesses whose iteration schedule benchbot can
 * fix, so that a benchmark's count under valgrind is the same every time:
 * Google Benchmark (`BENCHMARK_MIN_TIME` through its environment, one
 * process per benchmark), Go (`-test.benchtime Nx` through `go test -exec`),
 * criterion (its `--test` mode, one iteration, read from `target/criterion`
 * or from cargo bench's console), pytest-benchmark (a plugin benchbot loads
 * replaces its clock-driven schedule with N calls, pytest-count-plugin.ts)
 * and `--format command` (the whole command counted once).
 */
export const COUNTED_HARNESSES: readonly string[] = ['google-benchmark', 'go', 'criterion', 'cargo-bench', 'pytest-benchmark', 'command'];

/**
 * DEFAULT_COUNT_ITERATIONS is the fixed schedule per harness: iterations per
 * benchmark run under valgrind, which runs code some 50 times slower.
 * Google Benchmark from 1.8 runs `--benchmark_min_time=100x` (before 1.8
 * the library has no fixed count but one iteration, `BENCHMARK_MIN_TIME=0`);
 * Go runs `-test.benchtime 1000x`, the schedule the issue measured, because
 * the Go runtime adds a few ten thousand instructions of its own scheduling
 * to some runs (measured here, a 4,000-instruction sum: 100x spread 12%
 * between repeats, 1000x 0.5%). criterion's one fixed schedule is its
 * `--test` mode: one iteration (criterion-count.ts). pytest-benchmark calls
 * the function 10 times after one uncounted warm-up call: CPython repeats
 * its work to within a few hundredths of a percent with a fixed hash seed,
 * and more calls would only multiply valgrind's time on slow benchmarks.
 */
export const DEFAULT_COUNT_ITERATIONS: Readonly<Record<string, number>> = { 'google-benchmark': 100, go: 1000, criterion: 1, 'cargo-bench': 1, 'pytest-benchmark': 10 };

/**
 * COUNT_BUDGET_SECONDS is how much of a benchmark's own (native) time one
 * count may run before its schedule is cut: valgrind runs it some 50 times
 * slower, so a benchmark of 3 ms per iteration (a real B-tree's
 * delete-and-restore of 16,000 items) at 1000 iterations is 3 s natively
 * and minutes under callgrind, while 20 ms are still some 50 million
 * instructions, against which the Go runtime's few ten thousand of its own
 * are 0.1%.
 */
export const COUNT_BUDGET_SECONDS = 0.02;

/** SCHEDULE_TIME_METRICS are the wall-time metrics countSchedule reads a benchmark's time per iteration from, the first one present. */
const SCHEDULE_TIME_METRICS = ['real_time', 'time', 'cpu_time'];

/**
 * countSchedule picks fewer iterations for the benchmarks whose default
 * schedule would run longer than {@link COUNT_BUDGET_SECONDS}, from the wall
 * time per iteration the rounds measured (the median of every value given):
 * the largest power of ten that fits the budget, at least 1. `run` gives it
 * both sides' rounds, so both sides are counted with the same schedule; a
 * power of ten keeps wall-time noise from moving it. Only the benchmarks
 * cut are returned.
 */
export function countSchedule(measured: readonly Measurement[], iterations: number): Record<string, number> {
  const perIteration = new Map<string, { metric: number; values: number[] }>();
  for (const m of measured) {
    const rank = SCHEDULE_TIME_METRICS.indexOf(m.metric);
    const toSeconds = conversionFactor(m.unit.split('/')[0], 's');
    if (rank < 0 || toSeconds === undefined) continue;
    const seen = perIteration.get(m.benchmark);
    if (seen !== undefined && seen.metric < rank) continue;
    const values = seen !== undefined && seen.metric === rank ? seen.values : [];
    for (const v of m.values) if (Number.isFinite(v) && v > 0) values.push(v * toSeconds);
    perIteration.set(m.benchmark, { metric: rank, values });
  }
  const schedule: Record<string, number> = {};
  for (const [benchmark, { values }] of perIteration) {
    if (values.length === 0) continue;
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted.length % 2 === 1 ? sorted[sorted.length >> 1] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    const fits = 10 ** Math.floor(Math.log10(COUNT_BUDGET_SECONDS / median));
    const n = Math.max(1, Math.min(iterations, fits));
    if (n < iterations) schedule[benchmark] = n;
  }
  return schedule;
}

/** DEFAULT_COUNT_REPEATS is how many times each side's benchmarks are counted: a few, to show that the count repeats. */
export const DEFAULT_COUNT_REPEATS = 3;

/**
 * LAYOUT_SAMPLED_REPEATS is how many times a pytest-benchmark suite's
 * benchmarks are counted per side, each repeat in another memory layout
 * ({@link layoutPad}). CPython's work is exact from process to process in
 * one layout, but moves with the layout: the addresses of objects decide
 * hash-table probe sequences, which free-list block a list reuses, when a
 * dict resizes. Measured on pint 0.25.3 (CPython 3.11): across 7 count
 * directories that differed only in name, 13 of 50 benchmarks spanned more
 * than 1% and 5 more than 2% (one 196,787 vs 214,359 instructions, +8.9%);
 * an environment padded by 97 characters a step moved them alike. The
 * checkouts of the two sides differ in just such ways (their paths, the
 * commit's files), so one layout per side would compare two draws of that
 * variation; five layouts per side, the one farthest from its side's
 * median set aside (compare/work-verdict.ts SET_ASIDE_FROM), compare the
 * layouts' middle instead (the same effect as wall time's, Mytkowicz et al.,
 * "Producing wrong data without doing anything obviously wrong!", ASPLOS
 * 2009; STABILIZER, Curtsinger and Berger, ASPLOS 2013, randomizes layout
 * for the same reason).
 */
export const LAYOUT_SAMPLED_REPEATS = 5;

/** LAYOUT_SAMPLED_HARNESSES are the harnesses whose counts move with the memory layout, counted in {@link LAYOUT_SAMPLED_REPEATS} layouts. */
const LAYOUT_SAMPLED_HARNESSES: readonly string[] = ['pytest-benchmark'];

/** isLayoutSampled says whether a harness's repeats are each counted in another memory layout ({@link layoutPad}). */
export function isLayoutSampled(format: string): boolean {
  return LAYOUT_SAMPLED_HARNESSES.includes(format);
}

/** defaultCountRepeats is the number of counts per side when a job names none: {@link LAYOUT_SAMPLED_REPEATS} for CPython, else {@link DEFAULT_COUNT_REPEATS}. */
export function defaultCountRepeats(format: string): number {
  return isLayoutSampled(format) ? LAYOUT_SAMPLED_REPEATS : DEFAULT_COUNT_REPEATS;
}

/**
 * LAYOUT_PAD_STEP is how many characters each repeat adds to the
 * environment variable BENCHBOT_LAYOUT_PAD: the environment sits at the top
 * of the process's stack and in the interpreter's heap (os.environ), so its
 * size moves what is allocated after it. 97, a prime, so that repeats do not
 * fall on the same alignment of 8, 16 or 64 bytes.
 */
const LAYOUT_PAD_STEP = 97;

/** layoutPad is the environment a layout-sampled repeat adds (repeat 1 none): the same repeat gets the same pad on both sides. */
export function layoutPad(format: string, repeat: number): Record<string, string> {
  if (!isLayoutSampled(format) || repeat <= 1) return {};
  return { BENCHBOT_LAYOUT_PAD: 'x'.repeat(LAYOUT_PAD_STEP * (repeat - 1)) };
}

/**
 * LAYOUT_VARIATION_LIMIT is {@link COUNT_VARIATION_LIMIT} for the
 * layout-sampled harnesses: their repeats differ by the layout on purpose
 * (up to 9% measured), so only a spread beyond what layouts did here says
 * the runtime does not repeat its work.
 */
export const LAYOUT_VARIATION_LIMIT = 0.2;

/**
 * COUNT_VARIATION_LIMIT is the largest spread (max/min - 1) between the
 * repeats of one benchmark's instruction count that is still reported as a
 * count. A C++ benchmark repeats exactly; a Go benchmark to some parts per
 * million (GO_SUBTREE), one that allocates to a few hundredths of a percent
 * (google/btree: at most 0.028%; docs/instructions.md); a
 * JIT (Java, .NET, V8, PyPy) moves far more, and its counts are dropped
 * with a reason.
 */
export const COUNT_VARIATION_LIMIT = 0.01;

/**
 * JIT_RUNTIMES are the runtimes of the harnesses whose counts cannot
 * repeat: V8 compiles on background threads and tiers up on budgets, the
 * JVM's and .NET's tiered JITs compile on background threads too, and all
 * three collect garbage concurrently; the moment optimized code is
 * installed, and so the instructions a benchmark's iterations execute,
 * depends on thread timing (docs/instructions.md).
 */
const JIT_RUNTIMES: Readonly<Record<string, string>> = {
  'benchmark-js': 'V8 (Node.js)', tinybench: 'a JavaScript engine (V8 in Node.js)', mitata: 'a JavaScript engine (V8 in Node.js)', 'vitest-bench': 'a JavaScript engine (V8 in Node.js)',
  jmh: 'the JVM', benchmarkdotnet: '.NET',
};

/** COUNT_DIR is the directory, inside the directory the benchmark runs in, that holds the callgrind files while they are made. */
const COUNT_DIR = '.benchbot-callgrind';

/**
 * InstructionSettings are what a job asks of instruction counting: which
 * benchmarks (`filter`, the name-filter syntax; undefined: all), how many
 * `repeats` per side and the `iterations` of the fixed schedule (defaults
 * {@link DEFAULT_COUNT_REPEATS}, {@link DEFAULT_COUNT_ITERATIONS}).
 */
export interface InstructionSettings {
  filter?: NameFilter;
  repeats?: number;
  iterations?: number;
}

/**
 * CountSettings say what to count and how. `bench` and `format` are the
 * benchmark command and its harness as in `benchbot run` (`format` the
 * reader the wall-time rounds used: `google-benchmark`, `go`, `command`);
 * `names` the benchmarks to count (as the wall-time rounds named them;
 * needed by the per-benchmark harnesses), narrowed by `filter`.
 */
export interface CountSettings {
  bench: string;
  format: string;
  names: readonly string[];
  filter?: NameFilter;
  /** repeats is how many times each benchmark is counted (the values of its measurements); default {@link DEFAULT_COUNT_REPEATS}. */
  repeats?: number;
  /** iterations is the fixed schedule, default {@link DEFAULT_COUNT_ITERATIONS} of the harness. */
  iterations?: number;
  /** schedule gives some benchmarks fewer iterations than `iterations` ({@link countSchedule}); the same on both sides of a comparison. */
  schedule?: Readonly<Record<string, number>>;
  /** timeoutMs bounds each benchmark's process under valgrind. */
  timeoutMs: number;
  /**
   * parallel is how many benchmarks are counted at once (default 1): a
   * count does not depend on the machine's load, so `run` counts one per
   * core of the measuring machine.
   */
  parallel?: number;
  env?: Record<string, string>;
  pin?: string;
  /**
   * keepDir is the local directory the callgrind output files are copied
   * to, one per benchmark and repeat, for differential profiles (`run` puts
   * it under its state directory: `<state>/callgrind/<base>..<head>-XXXXXX/<side>`).
   */
  keepDir: string;
  nameSetting?: NameSetting;
}

/**
 * CountedProfile is one kept callgrind output file: `benchmark`, the
 * repeat it came from (1-based), the local `file`, and the `iterations` its
 * count covers (its totals divided by them are the per-iteration values).
 * For `--format command` the benchmark is `command` and iterations 1.
 */
export interface CountedProfile {
  benchmark: string;
  repeat: number;
  file: string;
  iterations: number;
}

/**
 * CountOutcome is what counting found: per benchmark the metrics
 * `instructions` and `estimated_cycles` (unit `count`, lower is better),
 * one value per repeat, per iteration; the callgrind files kept; and one
 * `reasons` line per benchmark (or one for the whole harness, without a
 * benchmark) that could not be counted, why, in words a user can act on.
 */
export interface CountOutcome {
  measurements: Measurement[];
  profiles: CountedProfile[];
  reasons: ReadWarning[];
  durationMs: number;
}

/** Planned is how one benchmark is counted: its command, environment and toggled function, and its iterations afterwards. */
export interface Planned {
  benchmark: string;
  command: string;
  env: Record<string, string>;
  /** matches says whether a function name (as callgrind demangles it) is the benchmark function; undefined counts the whole command. */
  matches?: (name: string) => boolean;
  /** toggles are the callgrind `--toggle-collect` patterns: the benchmark function, then the harness's timers inside it. */
  toggles: readonly string[];
  /** describes the toggled function for messages. */
  fn: string;
  /** fallback is counted instead when no function `matches` ran (a Google Benchmark fixture's benchmark). */
  fallback?: Planned;
  /** onFailure is counted instead when the command fails: the command without the arguments appended to it (Google Benchmark, criterion), without the cgo link (Go). */
  onFailure?: Planned;
  /** valgrindOptions are more options for valgrind (Go's --separate-callers, GO_VALGRIND_OPTIONS). */
  valgrindOptions?: readonly string[];
  /**
   * subtree, when set, counts the benchmark function's work from a profile
   * of the whole process (no toggles) by {@link callgrindSubtree}: its own
   * functions' self cost and its calls into the runtime, the calls of it by
   * the harness's caller. The kept file is that work alone.
   */
  subtree?: SubtreeSettings & {
    /** runs says how many times the harness ran the benchmark function, from what its work called. */
    runs: (outside: readonly string[]) => number;
  };
  /** iterations returns how many iterations the run covered, given the calls of the benchmark function counted; undefined when it cannot tell, or why not. */
  iterations: (calls: number) => Promise<number | undefined | { reason: string }>;
  /** noneRan says why nothing was counted when no toggled function ran (default: no function named like `fn` ran). */
  noneRan?: string;
  /** valgrindEnv hands the valgrind invocation to a wrapper the command may start (cargo's target runner) in $BENCHBOT_VALGRIND. */
  valgrindEnv?: boolean;
  /** batch are the benchmarks one process counts, one callgrind dump each (pytest-benchmark); `benchmark` then only labels the batch. */
  batch?: readonly string[];
}

/**
 * countInstructions counts the work of each benchmark the bench command
 * runs in `dir` (where the executor runs it), `repeats` times, each
 * benchmark in a process of its own under `valgrind --tool=callgrind
 * --cache-sim=yes` with a fixed iteration schedule and collection toggled on
 * the benchmark function only (`--toggle-collect`), so the count is that
 * function's inclusive cost, divided by its iterations. `tag` names the
 * side in messages and kept files. It never throws for a benchmark that
 * cannot be counted: it says why in `reasons`, and the wall time stays what
 * is measured.
 */
export async function countInstructions(settings: CountSettings, executor: Executor, dir: string, tag: string): Promise<CountOutcome> {
  const name = settings.nameSetting ?? cliSetting;
  const repeats = settings.repeats ?? defaultCountRepeats(settings.format);
  const iterations = settings.iterations ?? DEFAULT_COUNT_ITERATIONS[settings.format] ?? 1;
  const outcome: CountOutcome = { measurements: [], profiles: [], reasons: [], durationMs: 0 };
  if (!COUNTED_HARNESSES.includes(settings.format)) {
    const jit = JIT_RUNTIMES[settings.format];
    const why = jit !== undefined
      ? `${settings.format} runs on ${jit}, whose JIT compiles hot code on background threads at moments that depend on time and whose garbage collector runs concurrently, so the work counted would differ from run to run`
      : `${settings.format} has no iteration schedule benchbot can fix, so its counts would vary with the time it runs`;
    outcome.reasons.push({ kind: 'note', message: `${name('instructions')}: ${why}; instructions are counted for ${COUNTED_HARNESSES.join(', ')} (docs/instructions.md); wall time as before` });
    return outcome;
  }
  const names = settings.format === 'command' ? ['command'] : settings.names.filter((n) => settings.filter?.test(n) ?? true);
  if (names.length === 0) {
    if (settings.filter !== undefined) outcome.reasons.push({ kind: 'note', message: `${name('instructions-filter')} ${JSON.stringify(settings.filter.pattern)} matches none of the ${settings.names.length} benchmark(s) measured; nothing counted` });
    return outcome;
  }
  const probe = await executor.run('command -v valgrind', { cwd: dir, timeoutMs: 30_000, env: settings.env });
  if (probe.exitCode !== 0) {
    outcome.reasons.push({ kind: 'note', message: `${name('instructions')}: valgrind is not installed where the benchmarks run (Debian: apt-get install valgrind); instructions not counted, wall time as before` });
    return outcome;
  }
  const remote = `${dir}/${COUNT_DIR}`;
  const ready = await executor.run(`rm -rf ${shellQuote(remote)} && mkdir -p ${shellQuote(remote)}`, { cwd: dir, timeoutMs: 30_000 });
  if (ready.exitCode !== 0) throw new Error(`cannot create ${remote}: ${ready.stderr.trim()}`);
  mkdirSync(settings.keepDir, { recursive: true });

  const plans: Planned[] = [];
  const iterationsOf = (benchmark: string) => (Object.hasOwn(settings.schedule ?? {}, benchmark) ? settings.schedule![benchmark] : iterations);
  if (settings.format === 'google-benchmark') {
    const fixed = await googleBenchmarkFixesIterations(settings, executor, dir);
    for (const [i, benchmark] of names.entries()) {
      const n = iterationsOf(benchmark);
      plans.push(googleBenchmarkPlan(settings, remote, benchmark, i, fixed ? `${n}x` : '0', fixed ? n : 1, executor));
    }
  } else if (settings.format === 'go') {
    await writeGoExec(executor, dir, remote);
    for (const [i, benchmark] of names.entries()) {
      const plan = goPlan(settings, remote, benchmark, i, iterationsOf(benchmark));
      if (typeof plan === 'string') outcome.reasons.push({ benchmark, kind: 'note', message: `${name('instructions')}: ${plan}; wall time as before` });
      else plans.push(plan);
    }
  } else if (CRITERION_FORMATS.includes(settings.format)) {
    const schedule = await criterionSchedule(settings, executor, dir, remote);
    if (settings.iterations !== undefined && settings.iterations !== 1) outcome.reasons.push({ kind: 'note', message: `${name('instructions-iterations')} ${settings.iterations}: criterion's one fixed schedule is its --test mode, one iteration per benchmark; counted so` });
    for (const benchmark of names) plans.push(criterionPlan(settings.bench, benchmark, schedule));
  } else if (settings.format === 'pytest-benchmark') {
    const problem = await writePytestPlugin(executor, dir, remote, settings.env);
    if (problem !== undefined) {
      outcome.reasons.push({ kind: 'note', message: `${name('instructions')}: ${problem}; wall time as before` });
      await executor.run(`rm -rf ${shellQuote(remote)}`, { cwd: dir, timeoutMs: 30_000 });
      return outcome;
    }
    // One pytest process per core counts its share of the benchmarks: Python and the collection start once per batch, not per benchmark.
    for (const [i, batch] of contiguousBatches(names, settings.parallel ?? 1).entries()) plans.push(await pytestPlan(settings, executor, dir, remote, batch, i, iterations));
  } else {
    plans.push({
      benchmark: 'command',
      command: settings.bench,
      env: {},
      fn: 'the whole command',
      toggles: [],
      iterations: async () => 1,
    });
  }

  const values = new Map<string, { instructions: number[]; cycles: number[]; own: number[] }>();
  const failed = new Set<string>();
  const started = process.hrtime.bigint();
  for (let repeat = 1; repeat <= repeats; repeat++) {
    // Counts do not depend on the machine's load, so a repeat's benchmarks run side by side; the results are taken in order.
    const live = plans.filter((plan) => (plan.batch ?? [plan.benchmark]).some((b) => !failed.has(b)));
    const pad = layoutPad(settings.format, repeat);
    const results = await inParallel(live, settings.parallel ?? 1, (plan) => (plan.batch !== undefined ? countBatch : countOne)(settings, executor, dir, remote, { ...plan, env: { ...plan.env, ...pad } }, `b${plans.indexOf(plan)}.r${repeat}`));
    for (const [i, plan] of live.entries()) {
      const result = results[i];
      if (plan.batch !== undefined && 'reason' in result) {
        // The batch's process failed as a whole: one line for all its benchmarks.
        for (const b of plan.batch) failed.add(b);
        outcome.reasons.push({ kind: 'note', message: `${name('instructions')}: ${plan.batch.length} benchmark(s) not counted: ${result.reason}; wall time as before` });
        continue;
      }
      const each: [string, Counted][] = 'each' in result ? result.each : [[plan.benchmark, result]];
      for (const [benchmark, counted] of each) {
        if (failed.has(benchmark) || 'each' in counted) continue;
        if ('reason' in counted) {
          failed.add(benchmark);
          outcome.reasons.push({ benchmark: benchmark === 'command' ? undefined : benchmark, kind: 'note', message: `${name('instructions')}: ${counted.reason}; wall time as before` });
          continue;
        }
        const kept = join(settings.keepDir, `${fileSafe(benchmark)}.${tagSafe(tag)}.r${repeat}.callgrind`);
        renameSync(counted.file, kept);
        outcome.profiles.push({ benchmark, repeat, file: kept, iterations: counted.iterations });
        const v = values.get(benchmark) ?? { instructions: [], cycles: [], own: [] };
        v.instructions.push(counted.totals.Ir / counted.iterations);
        if (counted.ownIr !== undefined) v.own.push(counted.ownIr / counted.iterations);
        v.cycles.push(estimatedCycles(counted.totals) / counted.iterations);
        values.set(benchmark, v);
      }
    }
  }
  outcome.durationMs = Number(process.hrtime.bigint() - started) / 1e6;
  // The kept copies are in keepDir; the checkout is left as the rounds found it.
  await executor.run(`rm -rf ${shellQuote(remote)}`, { cwd: dir, timeoutMs: 30_000 });
  for (const [benchmark, v] of values) {
    if (failed.has(benchmark)) continue;
    const spread = Math.max(...v.instructions) / Math.min(...v.instructions) - 1;
    const limit = isLayoutSampled(settings.format) ? LAYOUT_VARIATION_LIMIT : COUNT_VARIATION_LIMIT;
    if (spread > limit) {
      const range = `${Math.round(Math.min(...v.instructions))}..${Math.round(Math.max(...v.instructions))} instructions per iteration, ${(spread * 100).toFixed(1)}% apart, more than ${limit * 100}%${limit !== COUNT_VARIATION_LIMIT ? ` across ${v.instructions.length} memory layouts` : ''}`;
      const ownSpread = v.own.length === v.instructions.length ? Math.max(...v.own) / Math.min(...v.own) - 1 : Infinity;
      // A Go benchmark whose own code repeats while its calls into the runtime do not: what varies is named (docs/instructions.md, "Go's runtime").
      const why = ownSpread <= COUNT_VARIATION_LIMIT / 10
        ? `its own code repeats (${Math.round(Math.min(...v.own))} instructions per iteration) but its calls into the Go runtime do not: the runtime did work there that its own timing decides (docs/instructions.md, "Go's runtime"; a test binary linked without cgo, where the cgo link failed, is one cause)`
        : 'the runtime does not repeat its work (a JIT, a time-based schedule)';
      outcome.reasons.push({ benchmark, kind: 'note', message: `${name('instructions')}: the count varies between repeats (${range}): ${why}; wall time as before` });
      continue;
    }
    outcome.measurements.push({ benchmark, metric: INSTRUCTIONS_METRIC, unit: WORK_UNIT, better: 'lower', values: v.instructions });
    outcome.measurements.push({ benchmark, metric: ESTIMATED_CYCLES_METRIC, unit: WORK_UNIT, better: 'lower', values: v.cycles });
  }
  return outcome;
}

/** inParallel maps items through work, at most `parallel` at a time, results in the items' order. */
async function inParallel<T, R>(items: readonly T[], parallel: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallel, items.length)) }, worker));
  return results;
}

/** Counted is one count, or why not; `ownIr` is, for a count read by {@link callgrindSubtree}, the instructions of the program's own functions (the rest were calls into the runtime); `each` a batch's outcome per benchmark. */
type Counted =
  | { reason: string; durationMs: number }
  | { totals: CallgrindTotals; file: string; iterations: number; durationMs: number; ownIr?: number }
  | { each: [string, Counted][]; durationMs: number };

/**
 * countOne runs one benchmark once under callgrind (children traced, so a
 * wrapper script or `go test` may start the process that runs it; Go's test
 * binary is started through `go test -exec`), fetches every callgrind file
 * the run wrote and sums their totals. The file with the most instructions
 * is the one kept: the process that ran the benchmark.
 */
async function countOne(settings: CountSettings, executor: Executor, dir: string, remote: string, plan: Planned, id: string): Promise<Counted> {
  const out = `${remote}/${id}`;
  const valgrind = valgrindCommand(out, plan.toggles, plan.valgrindOptions);
  // Go's test binary is started by `go test` through the exec wrapper, which runs valgrind itself.
  const command = settings.format === 'go' ? plan.command : `${valgrind} sh -c ${shellQuote(plan.command)}`;
  const env = { ...settings.env, ...plan.env, ...(settings.format === 'go' || plan.valgrindEnv === true ? { BENCHBOT_VALGRIND: valgrind } : {}) };
  const result = await executor.run(pinnedCommand(command, settings.pin), { cwd: dir, timeoutMs: settings.timeoutMs, env });
  const durationMs = result.durationMs;
  if (result.timedOut) return { reason: `timed out under valgrind after ${Math.round(settings.timeoutMs / 1000)} s (${(settings.nameSetting ?? cliSetting)('round-timeout')})`, durationMs };
  if (result.exitCode !== 0 && plan.onFailure !== undefined) return countOne(settings, executor, dir, remote, plan.onFailure, `${id}.e`);
  if (result.exitCode !== 0) {
    const tail = (result.stderr || result.stdout).trimEnd().split('\n').filter((l) => !/^==\d+==|^--\d+--/.test(l)).slice(-3).join(' | ');
    return { reason: `exit code ${result.exitCode ?? result.signal} under valgrind: ${tail}`, durationMs };
  }
  const listed = await executor.run(`ls -1 ${shellQuote(remote)}`, { cwd: dir, timeoutMs: 30_000 });
  const files = listed.stdout.split('\n').filter((f) => f.startsWith(`${id}.`) && /^\d+$/.test(f.slice(id.length + 1)));
  if (files.length === 0) return { reason: settings.format === 'go' ? 'no test binary ran under valgrind: the bench command must run `go test` (benchbot adds -exec through GOFLAGS)' : 'valgrind wrote no profile', durationMs };
  const all: { local: string; totals: CallgrindTotals; text: string }[] = [];
  for (const f of files) {
    const local = join(settings.keepDir, `.fetch-${f}`);
    await executor.fetch(`${remote}/${f}`, local);
    const text = readBoundedFile(local, f);
    try {
      all.push({ local, totals: parseCallgrindTotals(text, f), text });
    } catch (error) {
      rmSync(local, { force: true });
      if (error instanceof FormatError) return { reason: error.message, durationMs };
      throw error;
    }
  }
  if (plan.subtree !== undefined) return countSubtree(plan, all, durationMs);
  const totals = addTotals(all.map((a) => a.totals));
  const main = all.reduce((a, b) => (b.totals.Ir > a.totals.Ir ? b : a));
  for (const a of all) if (a !== main) rmSync(a.local, { force: true });
  if (totals.Ir === 0 && plan.fallback !== undefined) {
    rmSync(main.local, { force: true });
    return countOne(settings, executor, dir, remote, plan.fallback, `${id}.f`);
  }
  if (totals.Ir === 0) return { reason: plan.noneRan ?? `callgrind counted nothing: no function named like ${plan.fn} ran (the count is toggled on the benchmark function, named after the benchmark)`, durationMs };
  const calls = plan.matches === undefined ? 1 : all.reduce((n, a) => n + callsOf(a.text, plan.matches!), 0);
  if (calls === 0 && plan.fallback !== undefined) {
    for (const a of all) rmSync(a.local, { force: true });
    return countOne(settings, executor, dir, remote, plan.fallback, `${id}.f`);
  }
  const iterations = await plan.iterations(calls);
  if (typeof iterations === 'object') return { reason: iterations.reason, durationMs };
  if (iterations === undefined || iterations <= 0) return { reason: `cannot tell how many iterations ran (${calls} call(s) of ${plan.fn})`, durationMs };
  return { totals, file: main.local, iterations, durationMs };
}

/**
 * countSubtree reads the benchmark function's work out of the profiles of
 * one run (plan.subtree): from the process whose profile has the function,
 * whose file is replaced by a profile of that work alone.
 */
async function countSubtree(plan: Planned, all: readonly { local: string; text: string }[], durationMs: number): Promise<Counted> {
  let found: { local: string; subtree: NonNullable<ReturnType<typeof callgrindSubtree>> } | undefined;
  try {
    for (const a of all) {
      const subtree = callgrindSubtree(a.text, a.local, plan.subtree!);
      if (subtree !== undefined && found === undefined) found = { local: a.local, subtree };
    }
  } catch (error) {
    for (const a of all) rmSync(a.local, { force: true });
    if (error instanceof FormatError) return { reason: error.message, durationMs };
    throw error;
  }
  for (const a of all) if (a.local !== found?.local) rmSync(a.local, { force: true });
  if (found === undefined) return { reason: `callgrind counted nothing: no function named like ${plan.fn} ran`, durationMs };
  writeFileSync(found.local, found.subtree.profile);
  const runs = plan.subtree!.runs(found.subtree.outside);
  const iterations = await plan.iterations(runs);
  if (typeof iterations === 'object') return { reason: iterations.reason, durationMs };
  if (iterations === undefined || iterations <= 0) return { reason: `cannot tell how many iterations ran (${runs} run(s) of ${plan.fn})`, durationMs };
  return { totals: found.subtree.totals, file: found.local, iterations, durationMs, ownIr: found.subtree.own.Ir };
}

/**
 * valgrindCommand is the valgrind invocation: callgrind with the cache
 * simulation (for estimated cycles), children traced except build tools,
 * one output file per process (`%p`), collection toggled on `toggles`.
 */
function valgrindCommand(out: string, toggleList: readonly string[], more: readonly string[] = []): string {
  return [
    'valgrind', '--tool=callgrind', '--cache-sim=yes', '--trace-children=yes',
    '--trace-children-skip=*/make,*/cmake,*/ninja,*/git,*/go,*/cargo,*/rustc,*/cc1,*/cc1plus,*/ld',
    `--callgrind-out-file=${out}.%p`,
    ...toggleList.map((t) => `--toggle-collect=${t}`),
    ...more,
  ].map(shellQuote).join(' ');
}

/**
 * HARNESS_TIMERS are the harness's own timer functions that only the
 * benchmark function calls (through its iteration loop), toggled off again
 * inside it (a toggle flips collection): they read the clock, and the
 * vDSO's clock read retries a few instructions when the kernel updates the
 * time meanwhile, which made a 2,100-instruction Google Benchmark function
 * read 2,099 and 2,122 in two runs. Go is not toggled (GO_SUBTREE).
 */
const HARNESS_TIMERS: Readonly<Record<string, readonly string[]>> = {
  'google-benchmark': ['benchmark::State::PauseTiming()', 'benchmark::State::ResumeTiming()'],
};

/**
 * fixtureFunction is the function a Google Benchmark fixture's benchmark
 * `Fixture/Name` (`BENCHMARK_F`, `BENCHMARK_DEFINE_F`) runs in: the class
 * the macro makes, `Fixture_Name_Benchmark::BenchmarkCase`. It is tried
 * when no function named after the first segment ran.
 */
function fixtureFunction(benchmark: string): string | undefined {
  const [first, second] = benchmark.split('/');
  return second !== undefined && /^\w+$/.test(first) && /^\w+$/.test(second) ? `${first}_${second}_Benchmark::BenchmarkCase` : undefined;
}

/** cppToggles are the callgrind patterns of a C++ benchmark function (demangled with its arguments, maybe a namespace or a template's return type before it), then the harness's timers. */
function cppToggles(fn: string): string[] {
  return [`${fn}(*`, `* ${fn}(*`, `*::${fn}(*`, ...HARNESS_TIMERS['google-benchmark']];
}

/** matchesCpp is {@link cppToggles} as a predicate over demangled names; a constructor (`Fixture::Fixture(`, which `*::Fixture(*` also toggles) is not the benchmark's function. */
function matchesCpp(fn: string): (name: string) => boolean {
  return (name) => !name.includes(`${fn}::${fn}(`) && (name.startsWith(`${fn}(`) || name.includes(` ${fn}(`) || name.includes(`::${fn}(`));
}

/**
 * googleBenchmarkFixesIterations says whether the library can fix the
 * schedule: from 1.8 `--benchmark_min_time=Nx` runs exactly N iterations;
 * before it (Debian's 1.7.1) the flag takes seconds only and refuses `1x`,
 * so listing the benchmarks with it tells the versions apart, and older ones
 * get `0`: one iteration per run.
 */
async function googleBenchmarkFixesIterations(settings: CountSettings, executor: Executor, dir: string): Promise<boolean> {
  const listed = await executor.run(withArguments(settings.bench, ['--benchmark_min_time=1x', '--benchmark_list_tests=true']), { cwd: dir, timeoutMs: settings.timeoutMs, env: settings.env });
  return listed.exitCode === 0;
}

/**
 * withArguments appends arguments to the bench command, where a script that
 * passes its arguments on to the benchmark binary (`./bench "$@"`, as the
 * demo's bench.sh does) hands them over, and where they come after the
 * script's own: Google Benchmark keeps a flag's last value, so benchbot's
 * filter and schedule win over the script's.
 */
function withArguments(bench: string, args: readonly string[]): string {
  return `${bench} ${args.map(shellQuote).join(' ')}`;
}

/**
 * googleBenchmarkPlan counts one Google Benchmark benchmark: its flags both
 * appended to the command (they win over the script's own) and in the
 * environment (`BENCHMARK_<FLAG>`, read when a flag is not given, for a
 * script that does not pass arguments on): only this benchmark, the fixed
 * schedule, one repetition, and a JSON copy of the results whose iteration
 * count is what the count is divided by.
 */
function googleBenchmarkPlan(settings: CountSettings, remote: string, benchmark: string, index: number, minTime: string, perCall: number, executor: Executor, fn = benchmark.split('/')[0], appended = true): Planned {
  const out = `${remote}/b${index}.json`;
  const flags: Record<string, string> = { benchmark_filter: exactFilter(benchmark), benchmark_min_time: minTime, benchmark_repetitions: '1', benchmark_out: out, benchmark_out_format: 'json' };
  const fixture = fixtureFunction(benchmark);
  return {
    benchmark,
    command: appended ? withArguments(settings.bench, Object.entries(flags).map(([flag, value]) => `--${flag}=${value}`)) : settings.bench,
    env: Object.fromEntries(Object.entries(flags).map(([flag, value]) => [flag.toUpperCase(), value])),
    matches: matchesCpp(fn),
    toggles: cppToggles(fn),
    fn,
    // The library's own count of iterations when it wrote its JSON; else every call of the function was one run of the fixed schedule.
    iterations: async (calls) => (await jsonIterations(executor, out, benchmark, join(settings.keepDir, `.b${index}.json`))) ?? calls * perCall,
    ...(fixture !== undefined && fn !== fixture ? { fallback: googleBenchmarkPlan(settings, remote, benchmark, index, minTime, perCall, executor, fixture, appended) } : {}),
    // A command whose last word does not take the benchmark's flags (`./bench | tee out.json`) fails with them: the environment alone then.
    ...(appended ? { onFailure: googleBenchmarkPlan(settings, remote, benchmark, index, minTime, perCall, executor, fn, false) } : {}),
  };
}

/** jsonIterations reads the iterations Google Benchmark's JSON output says a benchmark ran (summed over its runs); undefined when there is no such file or row. */
async function jsonIterations(executor: Executor, remote: string, benchmark: string, local: string): Promise<number | undefined> {
  try {
    await executor.fetch(remote, local);
    const doc = JSON.parse(readBoundedFile(local, remote)) as { benchmarks?: { name?: string; run_name?: string; run_type?: string; iterations?: number }[] };
    const rows = (doc.benchmarks ?? []).filter((b) => (b.run_type ?? 'iteration') === 'iteration' && (b.name === benchmark || b.run_name === benchmark));
    if (rows.length === 0) return undefined;
    return rows.reduce((n, b) => n + (typeof b.iterations === 'number' ? b.iterations : 0), 0);
  } catch {
    return undefined;
  }
}

/**
 * GO_EXEC is the `go test -exec` program: it runs the test binary under
 * valgrind (the command in $BENCHBOT_VALGRIND) with the benchmark and the
 * schedule appended, so they win over the bench command's own flags (Go's
 * flag package keeps the last value): no tests, one benchmark, N
 * iterations, one count, and no test timeout (`-test.timeout=0`; the
 * runner's own timeout still ends a count): the timer `go test`'s default
 * 10m timeout arms made callgrind lose the benchmark's frame in a stack
 * switch inside an allocation, whose call then held the rest of the run
 * (google/btree's Get: 67.7M instead of 42.2M in 1 of 4 counts; 0 of 8
 * without the timer).
 */
const GO_EXEC = `#!/bin/sh
# benchbot: runs a Go test binary under valgrind with a fixed schedule (go test -exec).
bin=$1; shift
eval "exec $BENCHBOT_VALGRIND \\"\\$bin\\" \\"\\$@\\" -test.run='^$' \\"-test.bench=\\$BENCHBOT_GO_BENCH\\" \\"-test.benchtime=\\$BENCHBOT_GO_BENCHTIME\\" -test.count=1 -test.timeout=0"
`;

async function writeGoExec(executor: Executor, dir: string, remote: string): Promise<void> {
  const written = await executor.run(`printf '%s' ${shellQuote(GO_EXEC)} > ${shellQuote(`${remote}/go-exec`)} && chmod +x ${shellQuote(`${remote}/go-exec`)}`, { cwd: dir, timeoutMs: 30_000 });
  if (written.exitCode !== 0) throw new Error(`cannot write ${remote}/go-exec: ${written.stderr.trim()}`);
}

/**
 * GO_SUBTREE is how a Go benchmark's work is read from a profile of its
 * whole test binary (formats/callgrind-subtree.ts): the Go runtime
 * (`runtime.`, `internal/runtime/`) and the testing package are outside the
 * program, counted only per call the benchmark's code makes into them, since
 * the runtime's own work (scheduler, sysmon, collector, timers) depends on
 * wall time. Not work: the stack switches (`runtime.morestack*`, stack
 * growth and sysmon's preemption, which callgrind cannot follow) and
 * `testing.(*B).runN`, the harness function that calls the benchmark, which
 * callgrind records as called when the benchmark returns into it after a
 * stack switch. Nor the testing package's calls through `sync.Once`: a
 * benchmark that reaches `sync.(*Once).doSlow` (math/rand's global source
 * on its first use) has that function counted whole, and testing runs its
 * benchmark through a Once too, with output whose cost varies
 * (google/btree's Insert: 12,744..30,115 instructions more in one count of
 * four, 0.23% of it). runN's calls of the benchmark are the runs: two for a b.N
 * benchmark (b.N = 1, then N), one for b.Loop.
 * Measured here on BenchmarkSort (a recursive quicksort, 58,220 instructions
 * per iteration, 1000x): three repeats toggled on the function read
 * 56,256..58,190 (3.4% apart); read this way 58,220.82..58,220.92 (the
 * 2 ppm left are the function prologues sysmon's preemptions re-run).
 */
const GO_SUBTREE: Omit<SubtreeSettings, 'isRoot'> = {
  isOutside: (fn) => /^(?:runtime|testing)\.|^(?:internal\/runtime|runtime\/internal)\/|^0x/.test(fn) || !fn.includes('.'),
  isIgnoredCall: (fn, caller) => /^runtime\.(?:morestack|newstack|mcall|systemstack|gogo)/.test(fn) || fn === 'testing.(*B).runN' || (fn.startsWith('testing.') && caller.startsWith('sync.')),
  byContext: true,
  isUncounted: (fn, callers) => GO_HEAP_GROWTH.includes(fn) || (fn === GO_ALLOCATOR_ZEROING && /^runtime\.(?:mallocgc|memclrNoHeapPointersChunked)/.test(callers[0] ?? '')),
};

/**
 * GO_HEAP_GROWTH are the allocator's slow paths, left out of a Go
 * benchmark's calls into the runtime: an mcache taking a new span
 * (`refill`), a large object's span (`allocLarge`), and the page allocator
 * under both (`allocSpan`, named for the profiles where callgrind lost the
 * call that led to it), with whatever they call. With them
 * GO_ALLOCATOR_ZEROING, the allocator clearing memory a span had held
 * before. What they cost depends on the state of the heap, which the
 * runtime's own timing sets: how many threads sysmon started (each one's
 * allocations), what the scavenger returned to the system, which spans the
 * collector freed. Measured here on the bench suite's hash map, which
 * allocates two slices (6 KB) per iteration, so every other allocation
 * takes a span (GOGC=off): its calls into the page allocator read 689,280
 * to 721,874 instructions in four counts (4.7%), the whole count
 * 11,788,276..11,834,900 (0.40%); without these 10,752,136..10,752,275
 * (0.0013%).
 * The fast path of every allocation (size class, free slot, bookkeeping)
 * is still counted, so an added allocation still shows.
 */
const GO_HEAP_GROWTH: readonly string[] = ['runtime.(*mcache).refill', 'runtime.(*mcache).allocLarge', 'runtime.(*mheap).allocSpan'];
const GO_ALLOCATOR_ZEROING = 'runtime.memclrNoHeapPointers';

/**
 * GO_CALLER_DEPTH is how many callers callgrind names in the context of
 * every function (`--separate-callers=N`), so that the runtime's work can be
 * read by instruction address under the program's calls (GO_SUBTREE's
 * byContext) instead of from callgrind's inclusive costs of those calls:
 * the work of a call whose return callgrind lost after a stack switch is
 * counted once, not again inside the call it thought still open (google/
 * btree's Seek read 404,590..610,484 instructions per iteration in three
 * counts, 51%, its own code the same in all three). The runtime's work
 * deeper than this below the program's call is not counted; from a make to
 * the page allocator is some 11 frames, a map's growth 4 more. Measured
 * here: the bench suite's hash map 10,752,136..10,752,275 in four profiles
 * (0.0013%; read from the inclusive costs 0.0085%); profiles 8 MB instead
 * of 1 MB, counting some 15% longer (google/btree's 14 benchmarks at
 * 1000x, 3 counts: 427 s against 376 s).
 */
const GO_CALLER_DEPTH = 20;

/**
 * GO_CGO_LDFLAGS link the test binary with the C toolchain (with
 * CGO_ENABLED=1), so that the runtime starts its threads as pthreads.
 * Linked by Go alone, a thread's system stack is allocated in the Go heap,
 * near a goroutine's stack or not, and callgrind, which pops every frame
 * below a higher stack pointer, followed an allocation that switched
 * stacks one way on one thread and the other way on another: the bench
 * suite's hash map read 11,423..11,846 instructions per iteration in four
 * counts (3.7%), in two groups (as the runtime had started 2 or 3
 * threads); linked with cgo, 0.40% apart in one group (the rest was
 * GO_HEAP_GROWTH's). `-s=false` keeps the symbol table `go test` strips.
 */
const GO_CGO_LDFLAGS = "'-ldflags=-s=false -linkmode=external'";

/** GO_VALGRIND_OPTIONS name each function's callers (GO_CALLER_DEPTH). */
const GO_VALGRIND_OPTIONS: readonly string[] = [`--separate-callers=${GO_CALLER_DEPTH}`];

/**
 * goRuns is how many times the testing package ran a benchmark function
 * with `-test.benchtime Nx`: a b.Loop benchmark (it calls the loop's slow
 * path) once, with N; a b.N one twice, with b.N = 1 and then N (once when
 * N is 1). Callgrind's call count of the function cannot say: after a stack
 * switch it counts a return into the function as another call (a recursive
 * sort read 2 calls in one repeat and 12 in the next).
 */
function goRuns(n: number): (outside: readonly string[]) => number {
  return (outside) => (outside.some((fn) => /^testing\.\(\*B\)\.(?:Loop|loopSlowPath)$/.test(fn)) || n === 1 ? 1 : 2);
}

/**
 * goPlan counts one Go benchmark: `GOFLAGS=-exec=<wrapper>` makes `go test`
 * start its test binary through valgrind, with `-test.benchtime Nx`.
 * `GODEBUG=asyncpreemptoff=1` because callgrind 3.19 aborts on the signals
 * Go preempts goroutines with; `randautoseed=0,randseednop=1` make
 * math/rand's global source the same in every process (seed 1, `rand.Seed`
 * a no-op), so a benchmark that seeds it from the clock (google/btree's
 * tests: `rand.Seed(time.Now().Unix())`) builds the same data each time;
 * `memprofilerate=0` stops the heap profile's random sampling, whose
 * stack walks added 0-200,000 instructions to a count (google/btree's Get:
 * 0.53% between three repeats with it, 0.22% without);
 * GOMAXPROCS=1 and GOGC=off (with a memory
 * limit, so a benchmark that allocates still collects) keep other
 * goroutines from running while the benchmark's thread is counted. The
 * whole process is profiled and the benchmark function's work read out of
 * it ({@link GO_SUBTREE}).
 * Go calls a b.N benchmark with b.N = 1 and then N (two calls, N + 1
 * iterations), a b.Loop one once with N: iterations = N + calls - 1.
 * `go test` strips the symbol table of the binaries it runs (callgrind then
 * sees addresses, not names); `-ldflags=-s=false` keeps it, unless the
 * bench command passes -ldflags of its own.
 * A sub-benchmark (`BenchmarkX/case`) is counted in its closure
 * (`pkg.BenchmarkX.funcN`); one nested deeper gets a reason instead.
 */
function goPlan(settings: CountSettings, remote: string, benchmark: string, index: number, iterations: number): Planned | string {
  // The reader's names: `-N` (GOMAXPROCS) stripped already or not, `/procs=N` with -cpu lists (counted at GOMAXPROCS=1 alike),
  // `<import path>.BenchmarkX` when the output held several packages.
  const name = benchmark.replace(/\/procs=\d+$/, '').replace(/-\d+$/, '');
  const qualified = name.startsWith('Benchmark') ? undefined : /^(.*?[^/])\.(Benchmark.*)$/.exec(name);
  const pkg = qualified?.[1];
  const levels = (qualified?.[2] ?? name).split('/');
  const parent = levels[0];
  if (/\s/.test(remote)) return `the checkout's path ${JSON.stringify(remote)} has a space, which GOFLAGS (space-separated) cannot carry`;
  if (!/^Benchmark[\p{L}\p{N}_]*$/u.test(parent)) return `${JSON.stringify(benchmark)} is not a Go benchmark name`;
  if (levels.length > 2) return `${benchmark} is a sub-benchmark of a sub-benchmark, whose closure callgrind cannot tell from its parent's; count its parent level or give it a Benchmark function of its own`;
  // A sub-benchmark's function is a closure of its parent (pkg.BenchmarkX.func1); only the selected one runs. func? and func?? leave out the closures nested in it (func1.1), which would flip collection off again.
  const sub = levels.length === 2;
  const ending = sub ? `\\.${escapeRegExp(parent)}\\.func\\d{1,2}$` : `\\.${escapeRegExp(parent)}$`;
  const matching = new RegExp(pkg === undefined ? ending : `^${escapeRegExp(pkg)}(?:_test)?${ending}`);
  const plan = (cgo: boolean): Planned => ({
    benchmark,
    // The bench command's own GOFLAGS (from its environment there) stay; GOFLAGS is space-separated (a quoted entry may hold spaces), hence no spaces in the path.
    command: `GOFLAGS="\${GOFLAGS:+$GOFLAGS }-exec=${remote}/go-exec ${cgo ? GO_CGO_LDFLAGS : '-ldflags=-s=false'}"; export GOFLAGS; ${settings.bench}`,
    env: {
      GODEBUG: 'asyncpreemptoff=1,randautoseed=0,randseednop=1,memprofilerate=0',
      GOMAXPROCS: '1',
      GOGC: 'off',
      GOMEMLIMIT: '1GiB',
      ...(cgo ? { CGO_ENABLED: '1' } : {}),
      // Go matches -test.bench level by level, split at slashes.
      BENCHBOT_GO_BENCH: levels.map((l) => `^${escapeRegExp(l)}$`).join('/'),
      BENCHBOT_GO_BENCHTIME: `${iterations}x`,
    },
    matches: (fn) => matching.test(fn),
    // No toggles: the whole process is profiled and the benchmark function's work read out of it (GO_SUBTREE says why).
    toggles: [],
    valgrindOptions: GO_VALGRIND_OPTIONS,
    subtree: { ...GO_SUBTREE, isRoot: (fn) => matching.test(fn), runs: goRuns(iterations) },
    fn: sub ? `${parent}.funcN` : parent,
    iterations: async (calls) => (calls >= 1 ? iterations + calls - 1 : undefined),
    // Where the cgo link fails (no C compiler, CGO_ENABLED=0 set by the command itself), Go's own linker, as before.
    ...(cgo ? { onFailure: plan(false) } : {}),
  });
  return plan(true);
}

/** exactFilter is a Google Benchmark filter (a POSIX extended regular expression) that matches exactly one name. */
function exactFilter(name: string): string {
  return `^${escapeRegExp(name)}$`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function fileSafe(name: string): string {
  const safe = name.replace(/[^\w.-]/g, '_').slice(0, 80);
  // Names that differ only in the characters replaced must not share a file.
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
  return `${safe}-${hash.toString(16)}`;
}

function tagSafe(tag: string): string {
  return tag.replace(/[^\w.-]/g, '_');
}

/** PYTEST_COUNTED is the C function the plugin runs a benchmark's calls in; callgrind counts inside it and dumps a profile after it. */
const PYTEST_COUNTED = 'benchbot_counted';

/**
 * PYTEST_VALGRIND_OPTIONS: collection and instrumentation start off; the
 * plugin starts instrumenting before the first benchmark and toggles
 * collection by client requests (pytest-count-plugin.ts).
 */
const PYTEST_VALGRIND_OPTIONS = ['--collect-atstart=no', '--instr-atstart=no'];

/**
 * PYTHON_COUNT_ENV is the environment CPython is counted in.
 * PYTHONHASHSEED=0: CPython randomizes string hashing per process (and
 * with it the order of sets and the work of every dict lookup).
 * What is not set, though tried (docs/instructions.md, "Runtimes that
 * cannot be counted reproducibly"): PYTHONMALLOC=malloc (glibc's malloc
 * for every object) made a benchmark's cost
 * follow glibc's free lists, which depend on all that ran before: a
 * benchmark of the test project read 6.6% more after a change to another
 * function of its module, where pymalloc's pools read the same to 0.5%;
 * valgrind under `setarch -R` and a stand-in for pytest-benchmark's failing
 * `hg` probe left pint's A/A as it was (42/50 unchanged with them; 42 and
 * 37 in two runs without).
 */
const PYTHON_COUNT_ENV: Readonly<Record<string, string>> = { PYTHONHASHSEED: '0' };

/** PYTEST_NAMES_CHUNK bounds one shell argument that writes the names file (Linux takes 128 KiB per argument). */
const PYTEST_NAMES_CHUNK = 32_000;

/**
 * writePytestPlugin writes the plugin and its C file into the count
 * directory where the benchmarks run and compiles the C file there (`$CC`,
 * else `cc`); a problem is returned as words for the reason line.
 */
async function writePytestPlugin(executor: Executor, dir: string, remote: string, env: Record<string, string> | undefined): Promise<string | undefined> {
  const at = `${remote}/pytest`;
  const plugin = `${at}/${PYTEST_COUNT_MODULE}.py`;
  const source = `${at}/benchbot-counted.c`;
  const written = await executor.run(`mkdir -p ${shellQuote(at)} && printf '%s' ${shellQuote(PYTEST_COUNT_PLUGIN)} > ${shellQuote(plugin)} && printf '%s' ${shellQuote(PYTEST_COUNT_C)} > ${shellQuote(source)}`, { cwd: dir, timeoutMs: 30_000 });
  if (written.exitCode !== 0) throw new Error(`cannot write ${plugin}: ${written.stderr.trim()}`);
  const compiled = await executor.run(`"\${CC:-cc}" -O0 -shared -fPIC -o ${shellQuote(`${at}/libbenchbot-counted.so`)} ${shellQuote(source)}`, { cwd: dir, timeoutMs: 120_000, env });
  if (compiled.exitCode !== 0) {
    const said = (compiled.stderr || compiled.stdout).trim().split('\n').find((l) => /error/.test(l)) ?? `exit code ${compiled.exitCode}`;
    return `pytest-benchmark is counted through a three-function C library benchbot compiles where the benchmarks run with \`\${CC:-cc}\` and valgrind's callgrind.h, which failed there (${said.slice(0, 200)}; Debian: apt-get install gcc valgrind, Fedora: valgrind-devel)`;
  }
  return undefined;
}

/** contiguousBatches splits names into at most `parts` runs of neighbours, in order (the same names give the same batches on both sides). */
function contiguousBatches(names: readonly string[], parts: number): string[][] {
  const size = Math.ceil(names.length / Math.max(1, Math.min(parts, names.length)));
  const out: string[][] = [];
  for (let i = 0; i < names.length; i += size) out.push(names.slice(i, i + size));
  return out;
}

/**
 * pytestPlan counts a batch of pytest-benchmark benchmarks in one pytest
 * process: the bench command runs as it is, with benchbot's plugin on
 * PYTHONPATH and by `-p` in PYTEST_ADDOPTS (both kept when the environment has
 * them), which deselects every other test and runs each benchmark's
 * function a fixed number of times inside {@link PYTEST_COUNTED}.
 * The environment adds {@link PYTHON_COUNT_ENV}.
 */
async function pytestPlan(settings: CountSettings, executor: Executor, dir: string, remote: string, batch: readonly string[], index: number, iterations: number): Promise<Planned> {
  const at = `${remote}/pytest`;
  const names = `${at}/b${index}.names`;
  const text = batch.filter((n) => !n.includes('\n')).join('\n') + '\n';
  for (let i = 0; i < text.length; i += PYTEST_NAMES_CHUNK) {
    const written = await executor.run(`printf '%s' ${shellQuote(text.slice(i, i + PYTEST_NAMES_CHUNK))} ${i === 0 ? '>' : '>>'} ${shellQuote(names)}`, { cwd: dir, timeoutMs: 30_000 });
    if (written.exitCode !== 0) throw new Error(`cannot write ${names}: ${written.stderr.trim()}`);
  }
  return {
    benchmark: `pytest batch ${index}`,
    batch,
    command: `PYTHONPATH=${shellQuote(at)}"\${PYTHONPATH:+:$PYTHONPATH}"; export PYTHONPATH; PYTEST_ADDOPTS="-p ${PYTEST_COUNT_MODULE}\${PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}"; export PYTEST_ADDOPTS; ${settings.bench}`,
    env: {
      ...PYTHON_COUNT_ENV,
      BENCHBOT_PYTEST_LIB: `${at}/libbenchbot-counted.so`,
      BENCHBOT_PYTEST_SELECT: names,
      BENCHBOT_PYTEST_ITERATIONS: String(iterations),
    },
    toggles: [],
    fn: PYTEST_COUNTED,
    iterations: async () => undefined,
  };
}

/** PytestEntry is one line the plugin wrote (pytest-count-plugin.ts); every field is checked before use. */
type PytestEntry = Record<string, unknown>;

/**
 * countBatch runs one pytest-benchmark batch under callgrind, dumping a
 * profile after each benchmark's counted calls, and reads the plugin's
 * lines to tell which dump (`<out>.<pid>.<n>`) is which benchmark's. A
 * benchmark pytest failed, skipped or never ran gets a reason of its own;
 * a process that could not run the batch at all, one reason for the batch.
 */
async function countBatch(settings: CountSettings, executor: Executor, dir: string, remote: string, plan: Planned, id: string): Promise<Counted> {
  const batch = plan.batch ?? [];
  const out = `${remote}/${id}`;
  const manifest = `${out}.jsonl`;
  const valgrind = valgrindCommand(out, plan.toggles, PYTEST_VALGRIND_OPTIONS);
  // A batch runs its benchmarks one after the other: the per-benchmark bound, times their number.
  const timeoutMs = settings.timeoutMs * Math.max(1, batch.length);
  const result = await executor.run(pinnedCommand(`${valgrind} sh -c ${shellQuote(plan.command)}`, settings.pin), { cwd: dir, timeoutMs, env: { ...settings.env, ...plan.env, BENCHBOT_PYTEST_OUT: manifest } });
  const durationMs = result.durationMs;
  const tail = () => (result.stderr || result.stdout).trimEnd().split('\n').filter((l) => !/^==\d+==|^--\d+--/.test(l)).slice(-3).join(' | ').slice(0, 400);
  if (result.timedOut) return { reason: `timed out under valgrind after ${Math.round(timeoutMs / 1000)} s (${(settings.nameSetting ?? cliSetting)('round-timeout')} per benchmark)`, durationMs };
  const entries = await readPytestEntries(executor, manifest, join(settings.keepDir, `.${id}.jsonl`));
  if (entries.length === 0) {
    return { reason: result.exitCode !== 0 ? `exit code ${result.exitCode ?? result.signal} under valgrind: ${tail()}` : `pytest did not load benchbot's plugin (-p ${PYTEST_COUNT_MODULE} in PYTEST_ADDOPTS): the bench command must run pytest with pytest-benchmark`, durationMs };
  }
  const error = entries.find((e) => typeof e.error === 'string');
  if (error !== undefined) return { reason: String(error.error).slice(0, 300), durationMs };
  const done = entries.some((e) => e.done === true);
  const listed = await executor.run(`ls -1 ${shellQuote(remote)}`, { cwd: dir, timeoutMs: 30_000 });
  const files = new Set(listed.stdout.split('\n'));
  const each: [string, Counted][] = [];
  for (const benchmark of batch) {
    const mine = entries.filter((e) => e.name === benchmark);
    const problem = mine.find((e) => typeof e.outcome === 'string');
    const counts = mine.filter((e) => Number.isSafeInteger(e.dump) && Number.isSafeInteger(e.pid) && Number.isSafeInteger(e.iterations));
    const fail = (reason: string) => each.push([benchmark, { reason, durationMs }]);
    if (problem !== undefined) fail(`the test ${String(problem.outcome)} under valgrind (${String(problem.when)}): ${String(problem.message ?? '').slice(0, 300)}`);
    else if (counts.length === 0) fail(done ? 'pytest ran no benchmark of this name (benchbot selects a test by its pytest node id, the JSON\'s fullname, or by its name)' : `pytest stopped before this benchmark (exit code ${result.exitCode ?? result.signal}): ${tail()}`);
    else if (counts.length > 1) fail(`${counts.length} tests ran under this name, so the counts cannot be told apart`);
    else if (counts[0].failed === true) fail('the benchmark raised an exception under valgrind');
    else {
      const file = `${id}.${counts[0].pid as number}.${counts[0].dump as number}`;
      if (!files.has(file)) {
        fail(`callgrind wrote no profile after its calls (${file} is missing)`);
        continue;
      }
      const local = join(settings.keepDir, `.fetch-${file}`);
      await executor.fetch(`${remote}/${file}`, local);
      try {
        const totals = parseCallgrindTotals(readBoundedFile(local, file), file);
        if (totals.Ir === 0) {
          rmSync(local, { force: true });
          fail(`callgrind counted nothing inside ${PYTEST_COUNTED}`);
        } else each.push([benchmark, { totals, file: local, iterations: counts[0].iterations as number, durationMs }]);
      } catch (e) {
        rmSync(local, { force: true });
        if (e instanceof FormatError) fail(e.message);
        else throw e;
      }
    }
  }
  return { each, durationMs };
}

/** readPytestEntries fetches the plugin's lines; lines that are not JSON objects are skipped (the file is the benchmark process's output, hostile like any). */
async function readPytestEntries(executor: Executor, remote: string, local: string): Promise<PytestEntry[]> {
  try {
    await executor.fetch(remote, local);
    const entries: PytestEntry[] = [];
    for (const line of readBoundedFile(local, remote).split('\n')) {
      try {
        const value: unknown = JSON.parse(line);
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) entries.push(value as PytestEntry);
      } catch {
        // Not a line the plugin wrote whole.
      }
    }
    return entries;
  } catch {
    return [];
  } finally {
    rmSync(local, { force: true });
  }
}
