import type { Executor } from './executor.ts';
import { shellQuote } from './local-executor.ts';
import type { CountSettings, Planned } from './valgrind-count.ts';

// How a criterion benchmark is counted (valgrind-count.ts runs the plan).
//
// criterion's schedule is timed (warm-up until a time has passed, then
// samples sized from it), so under valgrind it would vary with the speed of
// the run. Its one fixed schedule is `--test` mode: every selected
// benchmark's routine runs exactly once (`Bencher::iter` with one
// iteration), without warm-up, analysis or files written. The count is
// toggled on criterion's timing loop, `Bencher::iter` and its kin, which
// criterion keeps out of line (`#[inline(never)]`), so the routine the user
// passed (usually inlined into it) is counted whatever it is called. The
// four clock reads inside it are counted too: under valgrind they are
// system calls (valgrind does not map the vDSO), the same instructions
// every time (measured: 55,604 instructions for an FNV-1a of 16 KiB, three
// runs of three, cache misses alike).

/** CRITERION_FORMATS are the readers of criterion's results: its `target/criterion` directory and cargo bench's console. */
export const CRITERION_FORMATS: readonly string[] = ['criterion', 'cargo-bench'];

/**
 * CRITERION_LOOPS are criterion's timing loops, the functions a benchmark's
 * routine runs in: `iter`, `iter_custom`, `iter_batched` and
 * `iter_batched_ref` (`iter_with_setup` and `iter_with_large_drop` call
 * `iter_batched`; a toggle met twice would switch collection off again
 * inside). Named as callgrind demangles them: legacy mangling
 * (`criterion::bencher::Bencher<M>::iter`, every monomorphisation one name,
 * and only the selected benchmark runs) and v0 mangling
 * (`<criterion::bencher::Bencher<…>>::iter::<…>`).
 */
const CRITERION_LOOPS = ['iter', 'iter_custom', 'iter_batched', 'iter_batched_ref'] as const;

const LOOP_TOGGLES: readonly string[] = CRITERION_LOOPS.flatMap((loop) => [
  `criterion::bencher::Bencher<M>::${loop}`,
  // criterion before 0.3.4 defined Bencher in its crate root.
  `criterion::Bencher<M>::${loop}`,
  `criterion::bencher::AsyncBencher<A,M>::${loop}`,
  `<criterion::bencher::Bencher<*>>::${loop}::<*>`,
  `<criterion::bencher::AsyncBencher<*>>::${loop}::<*>`,
]);

const LOOP_NAME = new RegExp(`^(?:criterion::(?:bencher::)?(?:Async)?Bencher<[^>]*>::(?:${CRITERION_LOOPS.join('|')})(?:::h[0-9a-f]{16})?|<criterion::bencher::(?:Async)?Bencher<.*>>::(?:${CRITERION_LOOPS.join('|')})::<.*>)$`);

/**
 * CARGO_RUNNER is cargo's target runner while criterion benchmarks are
 * counted (`CARGO_TARGET_<TRIPLE>_RUNNER`): `cargo bench` starts every bench
 * binary through it, and it runs the binary under valgrind (the command in
 * $BENCHBOT_VALGRIND) in criterion's --test mode, with only the benchmark in
 * $BENCHBOT_CRITERION_FILTER selected. The arguments the bench command gave
 * the binary are left out: in --test mode criterion's timing options do
 * nothing, and a filter of the command's own would clash with benchbot's
 * (criterion takes one). A libtest target that `cargo bench` also runs
 * gets the same two arguments, which libtest reads as a test filter and
 * `--test`: it runs no test.
 */
const CARGO_RUNNER = `#!/bin/sh
# benchbot: cargo's target runner while criterion benchmarks are counted: one benchmark, criterion's --test mode, under valgrind.
bin=$1
eval "exec $BENCHBOT_VALGRIND \\"\\$bin\\" \\"\\$BENCHBOT_CRITERION_FILTER\\" --test"
`;

/** CriterionSchedule is what every criterion plan of a count shares: the environment (cargo's runner, criterion's home), or why there is no runner. */
export interface CriterionSchedule {
  /**
   * env sets cargo's target runner for the host (unless rustc could not
   * name the host) and CRITERION_HOME: without it criterion asks `cargo
   * metadata` for its output directory, reading the answer through a pipe
   * in chunks of whatever size the timing gives, and the allocator's state
   * left behind varied the first allocation inside the routine (measured:
   * a sort of 1,024 numbers read 94,558, 94,625 and 94,819 instructions in
   * six counts; with it, the same in every count). --test mode writes
   * nothing there.
   */
  env: Record<string, string>;
  /** noRunner says why cargo's bench binaries cannot be started under valgrind, when they cannot. */
  noRunner?: string;
}

/**
 * criterionSchedule writes the cargo runner into the count's directory and
 * names it in `CARGO_TARGET_<host triple>_RUNNER` (the host from `rustc
 * -vV`): cargo splits that variable at spaces, so a path with one cannot be
 * a runner.
 */
export async function criterionSchedule(settings: CountSettings, executor: Executor, dir: string, remote: string): Promise<CriterionSchedule> {
  const runner = `${remote}/cargo-runner`;
  const home = { CRITERION_HOME: `${remote}/criterion-home` };
  const written = await executor.run(`printf '%s' ${shellQuote(CARGO_RUNNER)} > ${shellQuote(runner)} && chmod +x ${shellQuote(runner)}`, { cwd: dir, timeoutMs: 30_000 });
  if (written.exitCode !== 0) throw new Error(`cannot write ${runner}: ${written.stderr.trim()}`);
  if (/\s/.test(runner)) return { env: home, noRunner: `the checkout's path ${JSON.stringify(remote)} has a space, which cargo's runner setting (space-separated) cannot carry` };
  const rustc = await executor.run('rustc -vV', { cwd: dir, timeoutMs: 60_000, env: settings.env });
  const host = /^host: (\S+)$/m.exec(rustc.stdout)?.[1];
  if (rustc.exitCode !== 0 || host === undefined) return { env: home, noRunner: `\`rustc -vV\` did not name the host (${(rustc.stderr || rustc.stdout).trim().split('\n').pop() ?? `exit ${rustc.exitCode}`}), so cargo's target runner cannot be set` };
  return { env: { ...home, [`CARGO_TARGET_${host.toUpperCase().replace(/[-.]/g, '_')}_RUNNER`]: runner } };
}

/** runsCargo says whether a bench command starts cargo itself (which passes what follows `--` to the bench binaries, and runs them through its runner). */
function runsCargo(bench: string): boolean {
  return /(?:^|[\s;&|(`/])cargo(?:\s|$)/.test(bench);
}

/**
 * criterionFilter is the criterion filter (a regular expression over the
 * benchmark's id, `group/function/parameter`) that selects one benchmark
 * named as benchbot stores it: the path below `target/criterion`, where
 * criterion replaced `? " / \ * < > : | ^` in each part by `_` (so `_`
 * stands for any of them) and cut a part at 64 bytes, or the console's
 * title, cut at 100 with `...`.
 */
export function criterionFilter(benchmark: string): string {
  const cut = benchmark.endsWith('...');
  const name = cut ? benchmark.slice(0, -3) : benchmark;
  const parts = name.split('/').map((part) => {
    const body = [...part].map((ch) => (ch === '_' ? '[_?"/\\\\*<>:|^]' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
    // A part of exactly 64 bytes may be the start of a longer one.
    return Buffer.byteLength(part) === 64 ? `${body}.*` : body;
  });
  return `^${parts.join('/')}${cut ? '' : '$'}`;
}

/**
 * criterionPlan counts one criterion benchmark in --test mode. A command
 * that starts cargo (`cargo bench --bench x -- …`) runs as written, cargo
 * starting the bench binary through the runner (the whole command also
 * runs under valgrind, so a script that starts the binary itself is traced
 * to it); any other command gets the filter and `--test` appended, for a
 * script that passes its arguments on to the binary (`./bench "$@"`), and
 * runs as written if it fails with them.
 */
export function criterionPlan(bench: string, benchmark: string, schedule: CriterionSchedule): Planned {
  const filter = criterionFilter(benchmark);
  const env = { ...schedule.env, BENCHBOT_CRITERION_FILTER: filter };
  const fn = 'criterion::bencher::Bencher::iter';
  const asWritten: Planned = {
    benchmark,
    command: bench,
    env,
    matches: (name) => LOOP_NAME.test(name),
    toggles: LOOP_TOGGLES,
    fn,
    valgrindEnv: true,
    noneRan: `criterion ran no benchmark under valgrind matching ${JSON.stringify(filter)}${schedule.noRunner ? ` (${schedule.noRunner})` : ''}: a bench script must pass its arguments on to the bench binary (\`./bench "$@"\`) or run \`cargo bench\``,
    iterations: async (calls) => {
      if (calls === 1) return 1;
      if (calls === 0) return { reason: `no call of ${fn} was counted` };
      return { reason: `${calls} benchmarks ran for the filter ${JSON.stringify(filter)} (criterion's --test mode runs one iteration of each), so the count is not this one's` };
    },
  };
  if (runsCargo(bench)) return asWritten;
  return { ...asWritten, command: `${bench} ${shellQuote(filter)} --test`, onFailure: asWritten };
}
