import { join, resolve } from 'node:path';
import { parseExecutorSpec } from '../runner/executor.ts';
import { DEFAULT_COUNT_ITERATIONS } from '../runner/valgrind-count.ts';
import { cliSetting } from '../jobs/setting-names.ts';
import { PROFILE_DEFAULTS, profileBenchmark, type ProfileSettings } from '../jobs/profile-benchmark.ts';
import { PROFILE_FORMATS, renderProfile, type ProfileFormat } from '../report/profile-report.ts';
import { inertText } from '../report/inert-markdown.ts';
import { PROFILE_TOOLS } from '../model/profile-diff.ts';
import { choose, parseFlags, secondsFlag, UsageError, wholeFlag } from './usage-error.ts';
import { measureInterruptibly } from './interrupt.ts';
import { checkoutsStay } from './run-command.ts';

export const PROFILE_USAGE = `usage: benchbot profile --base REF --head REF --bench CMD --benchmark NAME [options]

Where a benchmark's change lives. Checks out and builds base and head as run
does, runs the benchmark once to find it, then profiles it at each commit, and
prints the functions whose cost per iteration changed most: self cost (the
function's own code, the first row is where the change lives) and inclusive
cost (with all it calls), each with its share of the benchmark's whole change.
callgrind (the default where benchbot can fix the harness's iteration
schedule: Google Benchmark, Go, criterion, --format command) counts exactly,
so the diff is the change and nothing else, on any machine. perf record (any other
harness, or --with perf) samples at native speed, cycles where the machine
has a PMU, else cpu-clock; its shares carry a sampling error.

options:
  --base REF              base commit, branch or tag (required)
  --head REF              head commit, branch or tag (required)
  --bench CMD             benchmark command, run in the checkout (required)
  --benchmark NAME        the benchmark, named as run reports it (required; with --format command: command)
  --build CMD             build command, run once per checkout (skipped when that tree was built before)
  --with T                callgrind | perf (default: callgrind where the harness's schedule can be fixed,
                          else perf)
  --format F              the harness (default: detected); callgrind profiles google-benchmark, go,
                          cargo-bench (criterion's console), command
  --iterations N          benchmark iterations profiled per side (default: the instruction count's schedule,
                          ${Object.entries(DEFAULT_COUNT_ITERATIONS).map(([h, n]) => `${n} for ${h}`).join(', ')})
  --top N                 functions per ranking (default ${PROFILE_DEFAULTS.top})
  --repo DIR              repository (default .); worktrees and the callgrind files go to DIR/.benchbot
  --executor E            local (default) | ssh://user@host[:port][/dir]
  --timeout S             seconds before one profiled run is killed (default ${PROFILE_DEFAULTS.timeoutMs / 1000})
  --build-timeout S       seconds before a build is killed (default ${PROFILE_DEFAULTS.buildTimeoutMs / 1000})
  --output O              ${PROFILE_FORMATS.join(' | ')} (default text)

exit status: 0 the profile was made, 2 usage, setup or input error (unknown commit or benchmark)`;



/** parseProfileArgs validates `benchbot profile`'s flags; every problem names the flag to change. */
export function parseProfileArgs(args: string[], cwd: string): ProfileSettings & { output: ProfileFormat } {
  const { values: v } = parseFlags(args, {
    base: { type: 'string' }, head: { type: 'string' }, bench: { type: 'string' }, benchmark: { type: 'string' },
    build: { type: 'string' }, format: { type: 'string' }, iterations: { type: 'string' }, top: { type: 'string' },
    repo: { type: 'string' }, executor: { type: 'string' }, timeout: { type: 'string' }, 'build-timeout': { type: 'string' },
    output: { type: 'string' }, with: { type: 'string' },
  }, false);
  for (const flag of ['base', 'head', 'bench'] as const) if (!v[flag]) throw new UsageError(`--${flag} is required`);
  const benchmark = v.benchmark ?? (v.format === 'command' ? 'command' : undefined);
  if (benchmark === undefined) throw new UsageError('--benchmark is required: the benchmark to profile, named as run reports it');
  if (v.format === 'command' && benchmark !== 'command') throw new UsageError(`--benchmark ${benchmark}: with --format command the whole command is one benchmark, named command`);
  const repo = resolve(cwd, v.repo ?? '.');
  let executorSpec;
  try {
    executorSpec = parseExecutorSpec(v.executor ?? 'local', {}, cliSetting);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    repo,
    base: v.base as string,
    head: v.head as string,
    bench: v.bench as string,
    build: v.build,
    format: v.format,
    benchmark,
    iterations: v.iterations === undefined ? undefined : wholeFlag(v.iterations, '--iterations', 1),
    top: wholeFlag(v.top, '--top', PROFILE_DEFAULTS.top),
    timeoutMs: secondsFlag(v.timeout, '--timeout', PROFILE_DEFAULTS.timeoutMs),
    buildTimeoutMs: secondsFlag(v['build-timeout'], '--build-timeout', PROFILE_DEFAULTS.buildTimeoutMs),
    stateDir: join(repo, '.benchbot'),
    executorSpec,
    nameSetting: cliSetting,
    output: choose('--output', v.output ?? 'text', PROFILE_FORMATS),
    ...(v.with === undefined ? {} : { tool: choose('--with', v.with, PROFILE_TOOLS) }),
  };
}

/** runProfile implements `benchbot profile`; returns the exit code. */
export async function runProfile(args: string[], out: (text: string) => void): Promise<number> {
  const settings = parseProfileArgs(args, process.cwd());
  const outcome = await measureInterruptibly('profile', checkoutsStay(settings.stateDir), (progress) => profileBenchmark(settings, { progress }));
  const rendered = renderProfile(outcome.diff, settings.output);
  if (settings.output === 'json') {
    out(rendered);
    return 0;
  }
  const sampled = outcome.diff.tool === 'perf';
  const pmu = sampled
    ? `perf record: ${outcome.pmu.detail}`
    : outcome.pmu.available
      ? `this machine has a PMU (${outcome.pmu.detail}): perf record (--with perf) could sample the benchmark at native speed; callgrind's exact counts are what is shown`
      : `perf record: ${outcome.pmu.detail}; callgrind's exact counts are the profile`;
  const lines = [...outcome.notes, pmu];
  const files = sampled ? `perf samples of the benchmark (perf script text): ${outcome.files.base} ${outcome.files.head}` : `callgrind files (kcachegrind, callgrind_annotate): ${outcome.files.base} ${outcome.files.head}`;
  out(settings.output === 'markdown' ? `${rendered}\n\n${lines.map((l) => `<sub>${inertText(l)}.</sub>`).join('\n\n')}` : `${rendered}\n\n${lines.join('\n')}\n${files}`);
  return 0;
}
