import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormatError } from '../formats/format-error.ts';
import { PERF_SCRIPT_FIELDS, perfScriptWithin } from '../formats/perf-script-profile.ts';
import type { Executor } from './executor.ts';
import { shellQuote } from './local-executor.ts';
import { probePmu } from './pmu-probe.ts';
import { readBoundedFile } from './read-bounded-text.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/**
 * perf-record profiles one benchmark by sampling, at native speed, with
 * `perf record`: where a PMU is present on `cycles`, else on `cpu-clock`
 * (the kernel's timer, a software event every Linux has, sampled in user
 * space only when kernel.perf_event_paranoid is 2). Every sample has the
 * same fixed period (`-c`), so sample counts are Poisson counts of the
 * time spent and a differential profile can say how far sampling alone
 * moves them (compare/profile-diff.ts).
 *
 * What is kept is `perf script` text (formats/perf-script-profile.ts) of
 * the samples taken inside the benchmark function only, cut above it, as
 * callgrind's `--toggle-collect` counts: Google Benchmark's `BM_X` (or a
 * fixture's `Fixture_Name_Benchmark::BenchmarkCase`), Go's `pkg.BenchmarkX`
 * (or its closure, for a sub-benchmark). A harness whose benchmarks
 * benchbot cannot run one at a time (the JavaScript harnesses, `--format
 * command`, hyperfine) is recorded whole: every sample of the command.
 *
 * Per iteration: Go runs a fixed schedule (`-test.benchtime Nx`, N chosen
 * for about PERF_RECORD_DEFAULTS.targetNs of work from the benchmark's
 * native time per iteration), so the iterations are known. Google
 * Benchmark 1.7 (Debian's) has no fixed schedule and runs its estimation
 * runs before the one it reports: the samples are divided by the
 * iterations the library's own CPU time per iteration accounts for
 * (sampled CPU time / cpu_time of its JSON row). A whole command is one
 * iteration.
 *
 * Call chains: Go and V8's JIT code keep frame pointers (`--call-graph
 * fp`, cheap); C and C++ built with -O2 do not, so other harnesses are
 * unwound from a copy of the stack (`--call-graph dwarf`, 8 KiB a sample,
 * hence a longer period). Node runs with `--perf-basic-prof` in
 * NODE_OPTIONS, so V8 writes the perf map that names its JIT-compiled
 * functions; without it perf sees addresses (`[unknown]`).
 */

/**
 * PERF_RECORD_DEFAULTS: `cpuClockPeriodNs` 100 µs between samples (10 kHz,
 * some 10,000 samples a second of work: enough that a 5% change in a
 * function holding a fifth of the time is ~3 standard errors);
 * `dwarfPeriodNs` 250 µs (perf's default 4 kHz) when each sample copies
 * 8 KiB of stack; `cyclesPeriod` one sample every 1,000,003 cycles (a prime,
 * so the samples do not beat with a loop), ~3 kHz at 3 GHz; `targetNs` one
 * second of benchmark work per side for a fixed schedule.
 */
export const PERF_RECORD_DEFAULTS = {
  cpuClockPeriodNs: 100_000,
  dwarfPeriodNs: 250_000,
  cyclesPeriod: 1_000_003,
  targetNs: 1_000_000_000,
} as const;

/** PERF_SAMPLED_HARNESSES are the harnesses whose benchmarks perf record profiles one at a time; any other is recorded whole. */
export const PERF_SAMPLED_HARNESSES: readonly string[] = ['google-benchmark', 'go'];

/** FRAME_POINTER_HARNESSES are the harnesses whose code keeps frame pointers: Go, and the JavaScript engines' JIT code. */
const FRAME_POINTER_HARNESSES: readonly string[] = ['go', 'benchmark-js', 'tinybench', 'mitata', 'vitest-bench'];

/** The directory, inside the directory the benchmark runs in, that holds perf's files while they are made. */
const RECORD_DIR = '.benchbot-perf';

/** PerfEvent is what perf samples on here, and why. */
export interface PerfEvent {
  event: 'cycles' | 'cpu-clock';
  detail: string;
}

/**
 * probePerfRecord says whether perf record can sample where the benchmarks
 * run, and on which event: `cycles` where `perf stat` counts in hardware,
 * else `cpu-clock`. A string is the reason it cannot, in words a user can
 * act on.
 */
export async function probePerfRecord(executor: Executor, cwd: string, env?: Record<string, string>): Promise<PerfEvent | string> {
  const probe = await executor.run(`command -v perf >/dev/null 2>&1 || { echo '# perf: not installed'; exit 0; }; f=$(mktemp) && perf record -q -e cpu-clock -c ${PERF_RECORD_DEFAULTS.cpuClockPeriodNs} -o "$f" -- true >/dev/null 2>&1; s=$?; rm -f "$f"; exit $s`, { cwd, timeoutMs: 30_000, env });
  if (probe.stdout.includes('# perf: not installed')) return 'perf is not installed where the benchmarks run (Debian: apt-get install linux-perf)';
  if (probe.exitCode !== 0) return 'perf record cannot sample here (kernel.perf_event_paranoid above 2, or a container without perf_event_open)';
  const pmu = await probePmu(executor, cwd);
  return pmu.available ? { event: 'cycles', detail: `sampling cycles (${pmu.detail})` } : { event: 'cpu-clock', detail: `sampling cpu-clock, the kernel's timer (${pmu.detail})` };
}

/** RecordSettings say which benchmark to record and how; `bench` and `format` are the command and its harness as in `benchbot run`. */
export interface RecordSettings {
  bench: string;
  format: string;
  benchmark: string;
  event: PerfEvent['event'];
  /** nsPerIteration is the benchmark's native time per iteration, which sets a fixed schedule's length (Go); undefined: PERF_RECORD_DEFAULTS' target over 1 µs. */
  nsPerIteration?: number;
  timeoutMs: number;
  env?: Record<string, string>;
  /** keepFile is the local file the benchmark's samples are kept in (perf script text). */
  keepFile: string;
  nameSetting?: NameSetting;
}

/** Recorded is the kept file, the iterations it covers and its sample count, or why there is none. */
export type Recorded = { file: string; iterations: number; samples: number } | { reason: string };

/**
 * recordBenchmark runs one benchmark under perf record in `dir` (where the
 * executor runs it), prints the samples there with perf script (which
 * needs the binaries and a JIT's perf map), and keeps those of the
 * benchmark function. It never throws for a benchmark that cannot be
 * recorded: it says why.
 */
export async function recordBenchmark(settings: RecordSettings, executor: Executor, dir: string, tag: string): Promise<Recorded> {
  const name = settings.nameSetting ?? cliSetting;
  const remote = `${dir}/${RECORD_DIR}`;
  const id = tag.replace(/[^\w.-]/g, '_');
  const ready = await executor.run(`mkdir -p ${shellQuote(remote)} && rm -f ${shellQuote(`${remote}/${id}`)}.*`, { cwd: dir, timeoutMs: 30_000 });
  if (ready.exitCode !== 0) throw new Error(`cannot create ${remote}: ${ready.stderr.trim()}`);
  const callGraph = FRAME_POINTER_HARNESSES.includes(settings.format) ? 'fp' : 'dwarf';
  const period = settings.event === 'cycles' ? PERF_RECORD_DEFAULTS.cyclesPeriod : callGraph === 'dwarf' ? PERF_RECORD_DEFAULTS.dwarfPeriodNs : PERF_RECORD_DEFAULTS.cpuClockPeriodNs;
  const data = `${remote}/${id}.data`;
  const perf = ['perf', 'record', '-q', '-e', settings.event, '-c', String(period), '--call-graph', callGraph, '-o', data, '--'].map(shellQuote).join(' ');
  const readRemote = async (path: string): Promise<string | undefined> => {
    const local = `${settings.keepFile}.json`;
    try {
      await executor.fetch(path, local);
      return readBoundedFile(local, path);
    } catch {
      return undefined;
    } finally {
      rmSync(local, { force: true });
    }
  };
  const plan = planOf(settings, remote, id, perf, readRemote);
  if (typeof plan === 'string') return { reason: plan };
  // V8 names its JIT-compiled functions for perf only when asked; other runtimes ignore NODE_OPTIONS.
  const nodeOptions = `${settings.env?.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ''} --perf-basic-prof --interpreted-frames-native-stack`.trim();
  const env = { ...settings.env, ...plan.env, NODE_OPTIONS: nodeOptions };
  const result = await executor.run(plan.command, { cwd: dir, timeoutMs: settings.timeoutMs, env });
  if (result.timedOut) return { reason: `timed out under perf record after ${Math.round(settings.timeoutMs / 1000)} s (${name('round-timeout')})` };
  if (result.exitCode !== 0) {
    const tail = (result.stderr || result.stdout).trimEnd().split('\n').slice(-3).join(' | ');
    return { reason: `exit code ${result.exitCode ?? result.signal} under perf record: ${tail}` };
  }
  const text = `${remote}/${id}.txt`;
  const script = await executor.run(`perf script -i ${shellQuote(data)} -F ${PERF_SCRIPT_FIELDS} --no-inline > ${shellQuote(text)} 2>/dev/null`, { cwd: dir, timeoutMs: settings.timeoutMs, env: settings.env });
  if (script.exitCode !== 0) return { reason: `perf script could not read the recording (exit code ${script.exitCode ?? script.signal})` };
  mkdirSync(join(settings.keepFile, '..'), { recursive: true });
  const fetched = `${settings.keepFile}.fetch`;
  try {
    await executor.fetch(text, fetched);
    // A JIT names functions by their source file's path (V8: `JS:*work /path/bench.js:3:14`): the checkout's own path
    // differs between base and head, so it is cut, as an object's directory is.
    const within = perfScriptWithin(readBoundedFile(fetched, text).replaceAll(`${dir}/`, ''), text, plan.within);
    if (within.kept === 0) return { reason: within.outside === 0 ? 'perf recorded no sample (the benchmark ran too briefly)' : `none of perf's ${within.outside} samples is in ${plan.fn} (the benchmark function, named after the benchmark): built without symbols, or a call chain perf could not unwind` };
    const iterations = await plan.iterations(within.kept * period);
    if (iterations === undefined || !(iterations >= 1)) return { reason: `cannot tell how many iterations the ${within.kept} samples cover` };
    writeFileSync(settings.keepFile, within.text);
    return { file: settings.keepFile, iterations: Math.round(iterations), samples: within.kept };
  } catch (error) {
    if (error instanceof FormatError) return { reason: error.message };
    throw error;
  } finally {
    rmSync(fetched, { force: true });
    // The perf maps V8 wrote (/tmp/perf-<pid>.map, one per process) are read by perf script only: removed with the recording.
    const maps = `for p in $(perf script -i ${shellQuote(data)} -F pid 2>/dev/null | tr -dc '0-9\\n' | sort -u); do rm -f "/tmp/perf-$p.map"; done`;
    await executor.run(`${maps}; rm -f ${shellQuote(data)} ${shellQuote(text)}`, { cwd: dir, timeoutMs: settings.timeoutMs });
  }
}

/** Plan is how one benchmark is recorded: its command, environment, the benchmark function, and its iterations afterwards. */
interface Plan {
  command: string;
  env: Record<string, string>;
  /** within says whether a function is the benchmark's; undefined keeps every sample (a whole command). */
  within?: (name: string) => boolean;
  /** fn describes the benchmark function for messages. */
  fn: string;
  /** iterations is how many iterations the kept samples cover, given the time (the event's unit) they sampled. */
  iterations: (sampled: number) => Promise<number | undefined>;
}

/** ReadRemote returns the text of a file where the benchmark ran, undefined when there is none. */
type ReadRemote = (path: string) => Promise<string | undefined>;

function planOf(settings: RecordSettings, remote: string, id: string, perf: string, readRemote: ReadRemote): Plan | string {
  if (settings.format === 'google-benchmark') return googleBenchmarkPlan(settings, remote, id, perf, readRemote);
  if (settings.format === 'go') return goPlan(settings, remote, id, perf);
  return { command: `${perf} sh -c ${shellQuote(settings.bench)}`, env: {}, fn: 'the whole command', iterations: async () => 1 };
}

/**
 * googleBenchmarkPlan records one Google Benchmark benchmark with its flags
 * appended (they win over the script's own; the library keeps a flag's last
 * value) and in the environment (`BENCHMARK_<FLAG>`, for a script that does
 * not pass its arguments on), with a JSON copy of the results whose CPU
 * time per iteration says how many iterations the samples cover.
 */
function googleBenchmarkPlan(settings: RecordSettings, remote: string, id: string, perf: string, readRemote: ReadRemote): Plan {
  const out = `${remote}/${id}.json`;
  const flags: Record<string, string> = { benchmark_filter: `^${escapeRegExp(settings.benchmark)}$`, benchmark_repetitions: '1', benchmark_out: out, benchmark_out_format: 'json' };
  const fn = settings.benchmark.split('/')[0];
  const [first, second] = settings.benchmark.split('/');
  const fixture = second !== undefined && /^\w+$/.test(first) && /^\w+$/.test(second) ? `${first}_${second}_Benchmark::BenchmarkCase` : undefined;
  const args = Object.entries(flags).map(([flag, value]) => shellQuote(`--${flag}=${value}`)).join(' ');
  return {
    // A command whose last word does not take the flags (`./bench | tee out.json`) fails with them: the environment alone then.
    command: `${perf} sh -c ${shellQuote(`${settings.bench} ${args}`)} || ${perf} sh -c ${shellQuote(settings.bench)}`,
    env: Object.fromEntries(Object.entries(flags).map(([flag, value]) => [flag.toUpperCase(), value])),
    within: (name) => matchesCpp(fn, name) || (fixture !== undefined && matchesCpp(fixture, name)),
    fn: fixture === undefined ? fn : `${fn} (or ${fixture})`,
    iterations: async (sampled) => cpuTimeIterations(settings.benchmark, settings.event, await readRemote(out), sampled),
  };
}

/**
 * cpuTimeIterations is the sampled CPU time (ns) over the library's own CPU
 * time per iteration (its JSON row's cpu_time, in its time_unit). Sampling
 * on cycles counts no time: there the JSON's iterations are taken, which
 * leaves the estimation runs' samples in.
 */
function cpuTimeIterations(benchmark: string, event: PerfEvent['event'], text: string | undefined, sampled: number): number | undefined {
  if (text === undefined) return undefined;
  try {
    const doc = JSON.parse(text) as { benchmarks?: { name?: string; run_name?: string; run_type?: string; cpu_time?: number; time_unit?: string; iterations?: number }[] };
    const row = (doc.benchmarks ?? []).find((b) => (b.run_type ?? 'iteration') === 'iteration' && (b.name === benchmark || b.run_name === benchmark));
    if (event === 'cycles') return typeof row?.iterations === 'number' ? row.iterations : undefined;
    const unit = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 }[row?.time_unit ?? 'ns'];
    if (typeof row?.cpu_time !== 'number' || !(row.cpu_time > 0) || unit === undefined) return undefined;
    return sampled / (row.cpu_time * unit);
  } catch {
    return undefined;
  }
}

/**
 * matchesCpp says whether a demangled C++ name is the function `fn`, maybe
 * in a namespace: perf names functions without their parameters (`BM_Sort`,
 * `ns::BM_Sort`), with them under some settings (`BM_Sort(benchmark::State&)`).
 */
function matchesCpp(fn: string, name: string): boolean {
  const bare = name.endsWith(')') && name.includes('(') ? name.slice(0, name.indexOf('(')) : name;
  return bare === fn || bare.endsWith(`::${fn}`) || bare.endsWith(` ${fn}`);
}

/**
 * GO_BENCHMARK_CALLER is the testing package's function that calls the
 * benchmark function, b.N iterations a call: the outermost frame a Go
 * benchmark's samples are kept up to.
 */
export const GO_BENCHMARK_CALLER = 'testing.(*B).runN';

/**
 * PERF_GO_EXEC is the `go test -exec` program: it runs the test binary
 * under perf record (the command in $BENCHBOT_PERF) with the benchmark and
 * the schedule appended, so they win over the bench command's own flags.
 */
const PERF_GO_EXEC = `#!/bin/sh
# benchbot: runs a Go test binary under perf record with a fixed schedule (go test -exec).
bin=$1; shift
eval "exec $BENCHBOT_PERF \\"\\$bin\\" \\"\\$@\\" -test.run='^$' \\"-test.bench=\\$BENCHBOT_GO_BENCH\\" \\"-test.benchtime=\\$BENCHBOT_GO_BENCHTIME\\" -test.count=1"
`;

/**
 * goPlan records one Go benchmark through `go test -exec`, with a fixed
 * schedule of N iterations (N + 1 with the b.N = 1 call Go makes first;
 * a b.Loop benchmark runs N: the difference is one in N). `-ldflags=-s=false`
 * keeps the symbol table `go test` strips.
 */
function goPlan(settings: RecordSettings, remote: string, id: string, perf: string): Plan | string {
  const name = settings.benchmark.replace(/\/procs=\d+$/, '').replace(/-\d+$/, '');
  const qualified = name.startsWith('Benchmark') ? undefined : /^(.*?[^/])\.(Benchmark.*)$/.exec(name);
  const pkg = qualified?.[1];
  const levels = (qualified?.[2] ?? name).split('/');
  const parent = levels[0];
  if (/\s/.test(remote)) return `the checkout's path ${JSON.stringify(remote)} has a space, which GOFLAGS (space-separated) cannot carry`;
  if (!/^Benchmark[\p{L}\p{N}_]*$/u.test(parent)) return `${JSON.stringify(settings.benchmark)} is not a Go benchmark name`;
  const ending = levels.length > 1 ? `\\.${escapeRegExp(parent)}\\.func\\d+(?:\\.\\d+)*$` : `\\.${escapeRegExp(parent)}$`;
  const matching = new RegExp(pkg === undefined ? ending : `^${escapeRegExp(pkg)}(?:_test)?${ending}`);
  const iterations = Math.max(1, Math.min(1e9, Math.ceil(PERF_RECORD_DEFAULTS.targetNs / Math.max(settings.nsPerIteration ?? 1000, 1))));
  const exec = `${remote}/go-exec`;
  return {
    command: `printf '%s' ${shellQuote(PERF_GO_EXEC)} > ${shellQuote(exec)} && chmod +x ${shellQuote(exec)} && GOFLAGS="\${GOFLAGS:+$GOFLAGS }-exec=${exec} -ldflags=-s=false"; export GOFLAGS; ${settings.bench}`,
    env: {
      BENCHBOT_PERF: perf,
      BENCHBOT_GO_BENCH: levels.map((l) => `^${escapeRegExp(l)}$`).join('/'),
      BENCHBOT_GO_BENCHTIME: `${iterations}x`,
    },
    // Go's small leaf functions set up no frame, so a frame-pointer chain loses their caller: a sample in one that the
    // benchmark function called directly reads leaf, testing.(*B).runN. runN calls only the benchmark function (one runs).
    within: (fn) => matching.test(fn) || fn === GO_BENCHMARK_CALLER,
    fn: levels.length > 1 ? `${parent}.funcN` : parent,
    iterations: async () => iterations,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
