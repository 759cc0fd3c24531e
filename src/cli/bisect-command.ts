import { resolve } from 'node:path';
import type { ParseArgsOptionsConfig } from 'node:util';
import { percentFlag } from './threshold-flags.ts';
import { readerFor } from '../formats/detect.ts';
import { bisectOracle } from '../jobs/bisect-oracle.ts';
import type { OracleDriver } from '../jobs/bisect-oracle.ts';
import { bisect, BISECT_DEFAULTS } from '../jobs/bisect-session.ts';
import type { BisectSettings } from '../jobs/bisect-session.ts';
import { actionSetting, cliSetting } from '../jobs/setting-names.ts';
import type { NameSetting } from '../jobs/setting-names.ts';
import { renderBisectMarkdown } from '../report/bisect-report.ts';
import { holdOptions, MACHINE_FLAG_OPTIONS, MACHINE_FLAGS_USAGE, parseMachineFlags } from './machine-flags.ts';
import type { MachineFlags } from './machine-flags.ts';
import { choose, parseFlags, secondsFlag, UsageError, wholeFlag } from './usage-error.ts';
import { resolveStoreArg } from './resolve-store-arg.ts';
import { INSTRUCTION_FLAG_OPTIONS, instructionFlagsUsage, parseInstructionFlags } from './instruction-flags.ts';
import type { InstructionSettings } from '../runner/valgrind-count.ts';

/**
 * bisect-command: `benchbot bisect` and `benchbot bisect-oracle`, their
 * flags parsed into the bisect jobs' settings (src/jobs/bisect-session.ts,
 * src/jobs/bisect-oracle.ts) and the outcome printed. The action's bisect
 * mode runs `benchbot bisect` with BENCHBOT_SETTING_NAMES=action
 * (action.yml), so the job's errors name its inputs (`good`), not flags.
 */

const COMMON_OPTIONS = `  --bench CMD             benchmark command, run in the checkout (required)
  --build CMD             build command, run once per checkout (a failing build skips the commit)
  --format F              output format of CMD (default: detected); 'command' times the whole command via hyperfine
  --result-file PATH      read results from this file (relative to the checkout) instead of stdout; a directory
                          is criterion's (target/criterion): each round reads the */new/ results it wrote
  --benchmark NAME        benchmark to follow (repeatable; default: all); of several, the one that moved most from good to bad
  --metric M              metric to follow (default: any; the one that moved most)
  --rounds N              rounds per benchmark session (default ${BISECT_DEFAULTS.rounds})
  --warmup N              discarded warm-up rounds per session (default ${BISECT_DEFAULTS.warmup})
  --max-sessions N        sessions an undecided commit may get before it is set aside (default ${BISECT_DEFAULTS.maxSessions})
  --threshold X           smallest change that matters, a percentage: 2% or 2; 0.5%, never a bare 0.5 (default ${BISECT_DEFAULTS.threshold * 100}%)
  --repo DIR              repository (default .); its worktrees go to DIR/.benchbot/worktrees (benchbot clean removes them)
  --store URL             history store (default .benchbot/benchbot.db in the current directory, when it exists;
                          env BENCHBOT_DATABASE_URL); a relative path is relative to the current directory
  --round-timeout S       seconds before a round is killed (default ${BISECT_DEFAULTS.roundTimeoutMs / 1000})
  --build-timeout S       seconds before a build is killed (default ${BISECT_DEFAULTS.buildTimeoutMs / 1000})
${instructionFlagsUsage(BISECT_DEFAULTS.instructionRepeats)}
${MACHINE_FLAGS_USAGE}`;

export const BISECT_USAGE = `usage: benchbot bisect --good REF --bad REF --bench CMD [options]

Finds the merge that made a benchmark slower: the candidates are the
first-parent merges in good..bad (one per pull request). Every probe is one
session of the merge interleaved with good and bad, classified good, bad or
unknown by a sequential test on the contrasts inside its sessions (unknown
buys another session; a commit that does not build or crashes is skipped)
until one merge is left; that merge is named only once a session against
its own parent confirms it. Good and bad must differ in the first session
(or in the stored nightly A/B of the two on this machine).

options:
  --good REF              a commit without the regression (required)
  --bad REF               a later commit with it (required)
${COMMON_OPTIONS}
  --parallel K            probes per step (default ${BISECT_DEFAULTS.parallel}): steps drop to about log base K+1 of the merges
  --output O              markdown | json (default markdown)
  --no-store              do not read the stored nightly A/B of good vs bad

exit status: 0 the bisection finished (see its status: found, range or not-reproducible), 2 usage, setup or store error`;

export const BISECT_ORACLE_USAGE = `usage: benchbot bisect-oracle --good-ref REF --bad-ref REF --bench CMD [options]

One verdict of the bisect oracle, for bisect drivers that call a script per
commit: git bisect run (bisect/git-bisect-run) and cargo-bisect-rustc
--script (bisect/cargo-bisect-rustc-script). References come from the
store (any stored run at that commit), else they are measured once and kept
in the store's state table, as are the probes' sessions.

options:
  --good-ref REF          the good reference: a commit (git) or a toolchain such as nightly-2024-01-01 (cargo) (required)
  --bad-ref REF           the bad reference (required)
  --exit-codes E          git (default: 0 good, 1 bad, 125 skip) | cargo (0 baseline, 1 regressed)
  --probe ID              what is being tested (default: HEAD of --repo for git, $RUSTUP_TOOLCHAIN for cargo)
${COMMON_OPTIONS}

Errors exit 2; bisect/git-bisect-run turns that into 128, which makes git bisect stop.`;

/** BisectFlags are the flags both commands share, parsed: the jobs' settings and what the CLI does around them. */
interface BisectFlags {
  settings: Omit<BisectSettings, 'parallel'>;
  store?: string;
  noStore: boolean;
  machine: MachineFlags;
}



const COMMON_FLAGS = {
  bench: { type: 'string' }, build: { type: 'string' }, format: { type: 'string' }, 'result-file': { type: 'string' },
  benchmark: { type: 'string', multiple: true }, metric: { type: 'string' }, rounds: { type: 'string' }, warmup: { type: 'string' },
  'max-sessions': { type: 'string' }, threshold: { type: 'string' }, repo: { type: 'string' }, store: { type: 'string' },
  'round-timeout': { type: 'string' }, 'build-timeout': { type: 'string' }, ...MACHINE_FLAG_OPTIONS, ...INSTRUCTION_FLAG_OPTIONS,
} as const;

/** instructionsOf reads the instruction-counting flags (cli/instruction-flags.ts) into the measure settings, when given. */
function instructionsOf(v: Record<string, string | string[] | boolean | undefined>, name: NameSetting): { instructions?: InstructionSettings } {
  const instructions = parseInstructionFlags(v as Parameters<typeof parseInstructionFlags>[0], BISECT_DEFAULTS.instructionRepeats, name);
  return instructions ? { instructions } : {};
}

function parse(args: string[], options: ParseArgsOptionsConfig) {
  return parseFlags(args, options, false).values as Record<string, string | string[] | boolean | undefined>;
}

/** settingNames is how this run names settings: as flags, or as the action's inputs when action.yml runs it. */
function settingNames(env: NodeJS.ProcessEnv): NameSetting {
  return env.BENCHBOT_SETTING_NAMES === 'action' ? actionSetting : cliSetting;
}

function commonFlags(v: Record<string, string | string[] | boolean | undefined>, cwd: string, name: NameSetting): BisectFlags {
  if (!v.bench) throw new UsageError(`${name('bench')} is required: the benchmark command to run at each commit`);
  const format = v.format as string | undefined;
  if (format !== undefined && format !== 'command') readerFor(format);
  const threshold = v.threshold === undefined ? BISECT_DEFAULTS.threshold : percentFlag(name('threshold'), v.threshold as string, true);
  return {
    settings: {
      repo: resolve(cwd, (v.repo as string | undefined) ?? '.'),
      measure: {
        bench: v.bench as string,
        build: v.build as string | undefined,
        format,
        resultFile: v['result-file'] as string | undefined,
        rounds: wholeFlag(v.rounds, name('rounds'), BISECT_DEFAULTS.rounds, 2),
        warmup: wholeFlag(v.warmup, name('warmup'), BISECT_DEFAULTS.warmup, 0),
        roundTimeoutMs: secondsFlag(v['round-timeout'], name('round-timeout'), BISECT_DEFAULTS.roundTimeoutMs),
        buildTimeoutMs: secondsFlag(v['build-timeout'], name('build-timeout'), BISECT_DEFAULTS.buildTimeoutMs),
        ...instructionsOf(v, name),
      },
      benchmarks: (v.benchmark as string[] | undefined) ?? [],
      metric: v.metric as string | undefined,
      threshold,
      maxSessions: wholeFlag(v['max-sessions'], name('max-sessions'), BISECT_DEFAULTS.maxSessions),
    },
    store: v.store === undefined ? undefined : resolveStoreArg(v.store as string, cwd, process.env),
    noStore: v['no-store'] === true,
    machine: parseMachineFlags(v),
  };
}

/** runBisect implements `benchbot bisect`. */
export async function runBisect(args: string[], out: (text: string) => void): Promise<number> {
  const name = settingNames(process.env);
  const v = parse(args, { ...COMMON_FLAGS, good: { type: 'string' }, bad: { type: 'string' }, parallel: { type: 'string' }, output: { type: 'string' }, 'no-store': { type: 'boolean' } });
  if (!v.good) throw new UsageError(`${name('good')} is required: a commit without the regression`);
  if (!v.bad) throw new UsageError(`${name('bad')} is required: a later commit with the regression`);
  const cwd = process.cwd();
  const flags = commonFlags(v, cwd, name);
  const parallel = wholeFlag(v.parallel, name('parallel'), BISECT_DEFAULTS.parallel);
  const output = choose('--output', (v.output as string | undefined) ?? 'markdown', ['markdown', 'json']);
  const { log } = await bisect({
    settings: { ...flags.settings, parallel }, good: v.good as string, bad: v.bad as string,
    store: flags.store, noStore: flags.noStore, hold: holdOptions(flags.machine, name), name, cwd,
  });
  out(output === 'json' ? JSON.stringify(log, null, 2) : renderBisectMarkdown(log));
  return 0;
}

/** EXIT maps the oracle's answers to each driver's exit codes. */
const EXIT = {
  git: { good: 0, bad: 1, skip: 125 },
  cargo: { good: 0, bad: 1, skip: 1 },
} as const;

/** runBisectOracle implements `benchbot bisect-oracle`: one verdict for the commit (git) or toolchain (cargo) under test, as an exit code. */
export async function runBisectOracle(args: string[], out: (text: string) => void): Promise<number> {
  const name = cliSetting;
  const v = parse(args, { ...COMMON_FLAGS, 'good-ref': { type: 'string' }, 'bad-ref': { type: 'string' }, 'exit-codes': { type: 'string' }, probe: { type: 'string' } });
  const driver = choose('--exit-codes', (v['exit-codes'] as string | undefined) ?? 'git', ['git', 'cargo']);
  if (!v['good-ref']) throw new UsageError('--good-ref is required');
  if (!v['bad-ref']) throw new UsageError('--bad-ref is required');
  const cwd = process.cwd();
  const flags = commonFlags(v, cwd, name);
  const probe = (v.probe as string | undefined) ?? (driver === 'git' ? 'HEAD' : process.env.RUSTUP_TOOLCHAIN);
  if (!probe) throw new UsageError('no toolchain under test: cargo-bisect-rustc sets RUSTUP_TOOLCHAIN; outside it pass --probe TOOLCHAIN');
  const { answer, message } = await bisectOracle({
    driver: driver satisfies OracleDriver, goodRef: v['good-ref'] as string, badRef: v['bad-ref'] as string, probe,
    settings: flags.settings, store: flags.store, hold: holdOptions(flags.machine, name), name, cwd,
  });
  out(`benchbot oracle: ${message}`);
  return EXIT[driver][answer];
}
