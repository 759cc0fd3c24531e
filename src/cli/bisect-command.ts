import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { classifySessions, combine, contrast } from '../bisect/session-oracle.ts';
import type { Contrast, OracleVerdict } from '../bisect/session-oracle.ts';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, toBisectJson } from '../bisect/create-bisect.ts';
import type { ProbeSession } from '../bisect/create-bisect.ts';
import type { BisectState } from '../bisect/create-bisect.ts';
import { parsePercent } from '../compare/thresholds.ts';
import { readerFor } from '../formats/detect.ts';
import type { Direction, Measurement } from '../model/measurement.ts';
import { renderBisectLog } from '../report/regression-issue.ts';
import type { BisectLog } from '../bisect/bisect-log.ts';
import { formatChange } from '../report/format-numbers.ts';
import { createExecutor } from '../runner/executor.ts';
import type { Executor } from '../runner/executor.ts';
import { machineKey } from '../model/fingerprint.ts';
import { firstParentMerges } from '../runner/first-parent-merges.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import { holdOptions, MACHINE_FLAG_OPTIONS, MACHINE_FLAGS_USAGE, parseMachineFlags } from './machine-flags.ts';
import type { MachineFlags } from './machine-flags.ts';
import { measureCommit, measureDirectory, measureInterleaved } from '../runner/measure-commit.ts';
import type { Arm, InterleavedOutcome, MeasureOutcome, MeasureSettings } from '../runner/measure-commit.ts';
import { seedFromShas } from '../runner/round-schedule.ts';
import { openRepository, resolveCommit, RunnerError } from '../runner/git-checkout.ts';
import { createProgress } from '../runner/progress.ts';
import type { Progress } from '../runner/progress.ts';
import { ratioWithCi } from '../stats/hodges-lehmann.ts';
import { DEFAULT_SQLITE_PATH, openStore, STORE_URL_ENV } from '../store/open-store.ts';
import { poolSamples } from '../store/store.ts';
import type { Store } from '../store/store.ts';
import { UsageError } from './usage-error.ts';
import { resolveStoreArg } from './resolve-store-arg.ts';

const COMMON_OPTIONS = `  --bench CMD             benchmark command, run in the checkout (required)
  --build CMD             build command, run once per checkout (a failing build skips the commit)
  --format F              output format of CMD (default: detected); 'command' times the whole command via hyperfine
  --result-file PATH      read results from this file (relative to the checkout) instead of stdout; a directory
                          is criterion's (target/criterion): each round reads the */new/ results it wrote
  --benchmark NAME        benchmark to follow (repeatable; default: all); of several, the one that moved most from good to bad
  --metric M              metric to follow (default: any; the one that moved most)
  --rounds N              rounds per benchmark session (default 10)
  --warmup N              discarded warm-up rounds per session (default 1)
  --max-sessions N        sessions an undecided commit may get before it is set aside (default 4)
  --threshold X           smallest change that matters (default 2%)
  --repo DIR              repository (default .); its worktrees go to DIR/.benchbot/worktrees (benchbot clean removes them)
  --store URL             history store (default .benchbot/benchbot.db in the current directory, when it exists;
                          env BENCHBOT_DATABASE_URL); a relative path is relative to the current directory
  --round-timeout S       seconds before a round is killed (default 600)
  --build-timeout S       seconds before a build is killed (default 3600)
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
  --parallel K            probes per step (default 1): steps drop to about log base K+1 of the merges
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

/** BisectFlags are the flags both commands share, parsed. */
export interface BisectFlags {
  repo: string;
  measure: MeasureSettings;
  benchmarks: string[];
  metric?: string;
  threshold: number;
  maxSessions: number;
  store?: string;
  noStore: boolean;
  machine: MachineFlags;
}

function positiveInt(value: unknown, flag: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} ${String(value)}: give a whole number of at least ${min}`);
  return n;
}

function seconds(value: unknown, flag: string, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const n = Number(String(value).replace(/s$/, ''));
  if (!(n > 0)) throw new UsageError(`${flag} ${String(value)}: give a number of seconds, e.g. 600`);
  return n * 1000;
}

const COMMON_FLAGS = {
  bench: { type: 'string' }, build: { type: 'string' }, format: { type: 'string' }, 'result-file': { type: 'string' },
  benchmark: { type: 'string', multiple: true }, metric: { type: 'string' }, rounds: { type: 'string' }, warmup: { type: 'string' },
  'max-sessions': { type: 'string' }, threshold: { type: 'string' }, repo: { type: 'string' }, store: { type: 'string' },
  'round-timeout': { type: 'string' }, 'build-timeout': { type: 'string' }, ...MACHINE_FLAG_OPTIONS,
} as const;

function parse(args: string[], options: ParseArgsOptionsConfig) {
  try {
    return parseArgs({ args, options, allowPositionals: false }).values as Record<string, string | string[] | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function commonFlags(v: Record<string, string | string[] | boolean | undefined>, cwd: string): BisectFlags {
  if (!v.bench) throw new UsageError('--bench is required: the benchmark command to run at each commit');
  const format = v.format as string | undefined;
  if (format !== undefined && format !== 'command') readerFor(format);
  const threshold = v.threshold === undefined ? 0.02 : parsePercent(v.threshold as string);
  if (threshold === undefined || threshold <= 0) throw new UsageError(`--threshold ${String(v.threshold)}: give a percentage such as 2%`);
  const rounds = positiveInt(v.rounds, '--rounds', 10, 2);
  return {
    repo: resolve(cwd, (v.repo as string | undefined) ?? '.'),
    measure: {
      bench: v.bench as string,
      build: v.build as string | undefined,
      format,
      resultFile: v['result-file'] as string | undefined,
      rounds,
      warmup: positiveInt(v.warmup, '--warmup', 1, 0),
      roundTimeoutMs: seconds(v['round-timeout'], '--round-timeout', 600),
      buildTimeoutMs: seconds(v['build-timeout'], '--build-timeout', 3600),
    },
    benchmarks: (v.benchmark as string[] | undefined) ?? [],
    metric: v.metric as string | undefined,
    threshold,
    maxSessions: positiveInt(v['max-sessions'], '--max-sessions', 4),
    store: v.store === undefined ? undefined : resolveStoreArg(v.store as string, cwd, process.env),
    noStore: v['no-store'] === true,
    machine: parseMachineFlags(v),
  };
}

/** SeriesChoice names the benchmark x metric a bisection follows. */
export interface SeriesChoice {
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
}

/** valuesOf returns one benchmark x metric's values from pooled measurements, or undefined. */
export function valuesOf(measurements: readonly Measurement[], choice: Pick<SeriesChoice, 'benchmark' | 'metric'>): number[] | undefined {
  return measurements.find((m) => m.benchmark === choice.benchmark && m.metric === choice.metric)?.values;
}

/**
 * chooseSeries picks what to bisect among the benchmark x metrics both ends
 * have (restricted to `benchmarks` and `metric` when given): the one whose
 * good-to-bad change is significant and largest in the worse direction;
 * when none is, the largest change of any kind (the bisection will then
 * report it as not reproducible, with its numbers). Null when the ends
 * share nothing.
 */
export function chooseSeries(good: readonly Measurement[], bad: readonly Measurement[], filter: { benchmarks: string[]; metric?: string; threshold: number }): SeriesChoice | null {
  let best: { choice: SeriesChoice; score: number } | null = null;
  for (const g of good) {
    if (filter.benchmarks.length > 0 && !filter.benchmarks.includes(g.benchmark)) continue;
    if (filter.metric !== undefined && g.metric !== filter.metric) continue;
    const b = valuesOf(bad, g);
    if (!b || b.length < 2 || g.values.length < 2) continue;
    const r = ratioWithCi(g.values, b);
    const shift = r === null ? 0 : Math.log(r.ratio) * (g.better === 'lower' ? 1 : -1);
    // Significant worsening beyond the threshold ranks above anything else.
    const worse = r !== null && r.excludesOne && shift >= Math.log1p(filter.threshold);
    const score = (worse ? 1000 : 0) + Math.abs(shift);
    if (best === null || score > best.score) best = { choice: { benchmark: g.benchmark, metric: g.metric, unit: g.unit, better: g.better }, score };
  }
  return best?.choice ?? null;
}

async function openOptionalStore(flags: BisectFlags, cwd: string): Promise<Store | undefined> {
  if (flags.noStore) return undefined;
  const explicit = flags.store ?? process.env[STORE_URL_ENV];
  // Reading references must not create a store as a side effect of a bisection.
  if (!explicit && !existsSync(join(cwd, DEFAULT_SQLITE_PATH))) return undefined;
  return openStore(flags.store, { cwd });
}

/** storedSamples pools the stored runs at sha made on this machine (same machine key), optionally of one role. */
async function storedSamples(store: Store, sha: string, machine: () => Promise<string>, role?: 'nightly'): Promise<Measurement[]> {
  const rows = await store.samplesFor({ sha, role, machineKey: await machine() });
  return poolSamples(rows);
}

/**
 * storedAbPair finds the nightly A/B of good vs bad made on this machine:
 * the nightly run at `bad` and the base-role run at `good` stored by the
 * same nightly job (same time). Those two were measured interleaved, so
 * they are a reference session already paid for.
 */
async function storedAbPair(store: Store, good: string, bad: string, machine: () => Promise<string>): Promise<{ good: Measurement[]; bad: Measurement[]; time: string } | undefined> {
  const key = await machine();
  const heads = await store.samplesFor({ sha: bad, role: 'nightly', machineKey: key });
  if (heads.length === 0) return undefined;
  const bases = await store.samplesFor({ sha: good, role: 'base', machineKey: key });
  for (const time of [...new Set(heads.map((h) => h.time))].reverse()) {
    const base = bases.filter((b) => b.time === time);
    if (base.length === 0) continue;
    return { good: poolSamples(base), bad: poolSamples(heads.filter((h) => h.time === time)), time };
  }
  return undefined;
}

/** machineKeyOf fingerprints the executor's machine on first use only: the fingerprint script takes a few hundred ms. */
function machineKeyOf(executor: Executor): () => Promise<string> {
  let key: Promise<string> | undefined;
  return () => (key ??= executor.fingerprint().then(machineKey));
}

/** BisectRun is what runBisectSession returns: the state machine's final state and the CLI's JSON. */
export interface BisectRun {
  state: BisectState;
  log: BisectLog;
}

/**
 * runBisectSession drives a bisection end to end on this machine (no
 * printing): candidates, references, then probe steps of `parallel`
 * commits each until the state machine is finished.
 */
export async function runBisectSession(options: { flags: BisectFlags; good: string; bad: string; parallel: number; executor: Executor; progress: Progress; store?: Store }): Promise<BisectRun> {
  const { flags, executor, progress } = options;
  const repo = openRepository(flags.repo);
  const good = resolveCommit(repo, options.good, '--good');
  const bad = resolveCommit(repo, options.bad, '--bad');
  const candidates = firstParentMerges(repo, good, bad);
  const stateDir = join(repo, '.benchbot');
  const deps = { executor, progress };
  let seed = seedFromShas(good, bad);
  const session = async (arms: Arm[]): Promise<InterleavedOutcome> => measureInterleaved(repo, arms, stateDir, flags.measure, deps, seed++);

  // The references: the nightly A/B that found the regression (good and bad interleaved on this machine) when the
  // store has it, else one interleaved session of good and bad measured now.
  const machine = machineKeyOf(executor);
  let reference: { good: Measurement[]; bad: Measurement[]; counted: boolean } | undefined;
  if (options.store) {
    const pair = await storedAbPair(options.store, good, bad, machine);
    if (pair) {
      progress.note(`references: the stored nightly A/B of ${good.slice(0, 12)} vs ${bad.slice(0, 12)} on this machine (${pair.time})`);
      reference = { ...pair, counted: false };
    }
  }
  // Without a stored A/B, the first probe session's good and bad arms are the references (and choose the series).
  let choice: SeriesChoice | null = null;
  const choose = (good: Measurement[], bad: Measurement[]): SeriesChoice => {
    const c = chooseSeries(good, bad, flags);
    if (c === null) {
      const names = [...new Set(good.map((m) => `${m.benchmark} (${m.metric})`))].slice(0, 10).join(', ');
      throw new RunnerError(`good and bad share no benchmark${flags.benchmarks.length > 0 ? ` named ${flags.benchmarks.join(', ')}` : ''}${flags.metric ? ` with metric ${flags.metric}` : ''}; the good commit measured: ${names || 'nothing'} (check --benchmark and --metric)`);
    }
    progress.note(`following ${c.benchmark} (${c.metric}) over ${candidates.length} candidate merge(s)`);
    return c;
  };
  if (reference) choice = choose(reference.good, reference.bad);

  let state = createBisect({
    candidates: candidates.map((c) => ({ sha: c.sha, subject: c.subject, ...(c.pr !== undefined ? { pr: c.pr } : {}), ...(c.parent !== undefined ? { parent: c.parent } : {}) })),
    good,
    ...(reference && choice ? { reference: { good: valuesOf(reference.good, choice) ?? [], bad: valuesOf(reference.bad, choice) ?? [], counted: reference.counted } } : {}),
    options: { threshold: flags.threshold, maxSessionsPerCommit: flags.maxSessions },
  });
  const referenceArms = (o: InterleavedOutcome) => {
    if (o.skip !== undefined && o.arm !== 'probe') throw new RunnerError(`the ${o.arm} reference (${(o.arm === 'good' ? good : bad).slice(0, 12)}) cannot be measured: ${o.skip}`);
    if (o.skip === undefined && choice === null) choice = choose(o.arms.good, o.arms.bad);
  };
  const pick = (o: InterleavedOutcome, label: string) => (o.skip === undefined && choice !== null ? valuesOf(o.arms[label], choice) : undefined);
  const missing = () => ({ skip: `no ${choice?.benchmark} (${choice?.metric}) in its output` });
  let steps = 0;
  const limit = candidates.length * (flags.maxSessions + 1) + 10;
  // One line per finished session: a plain log shows where the bisection stands without a line per round.
  let told = state.steps.length;
  const tell = () => {
    for (const s of state.steps.slice(told)) progress.note(`${s.kind} ${s.sha.slice(0, 12)}: ${s.verdict}${s.ratio !== null ? ` (${formatChange(s.ratio)} vs good, n=${s.n})` : ''}${s.reason ? `: ${s.reason}` : ''}`);
    told = state.steps.length;
  };
  while (!state.finished && steps < limit) {
    tell();
    const requests = nextSessions(state, options.parallel);
    if (requests.length === 0) break;
    steps++;
    for (const request of requests) {
      if (request.kind === 'reference') {
        progress.group(`references: ${good.slice(0, 12)} vs ${bad.slice(0, 12)}, interleaved`);
        const o = await session([{ label: 'good', sha: good }, { label: 'bad', sha: bad }]);
        progress.endGroup();
        referenceArms(o);
        const [g, b] = [pick(o, 'good'), pick(o, 'bad')];
        state = recordReference(state, o.skip !== undefined ? { skip: o.skip } : g && b ? { good: g, bad: b } : missing());
      } else if (request.kind === 'probe') {
        progress.group(`step ${steps}: ${request.sha.slice(0, 12)} ${candidates.find((c) => c.sha === request.sha)?.subject ?? ''}, interleaved with good and bad`);
        const o = await session([{ label: 'good', sha: good }, { label: 'probe', sha: request.sha }, { label: 'bad', sha: bad }]);
        progress.endGroup();
        // A reference that fails to build or run is an error, not a skip of the probe.
        referenceArms(o);
        if (o.skip !== undefined && choice === null) {
          // The probe failed before any reference was seen: measure the references on their own next.
          state = recordProbe(state, request.sha, { skip: o.skip });
          continue;
        }
        const [g, p, b] = [pick(o, 'good'), pick(o, 'probe'), pick(o, 'bad')];
        state = recordProbe(state, request.sha, o.skip !== undefined ? { skip: o.skip } : g && p && b && p.length > 0 ? { good: g, probe: p, bad: b } : missing());
      } else {
        progress.group(`step ${steps}: confirm ${request.sha.slice(0, 12)} against its parent ${request.parent.slice(0, 12)}, interleaved`);
        const o = await session([{ label: 'parent', sha: request.parent }, { label: 'probe', sha: request.sha }]);
        progress.endGroup();
        const [pa, p] = [pick(o, 'parent'), pick(o, 'probe')];
        state = recordConfirmation(state, request.sha, o.skip !== undefined ? { skip: o.skip } : pa && p ? { parent: pa, probe: p } : missing());
      }
    }
  }
  tell();
  if (choice === null) throw new RunnerError('nothing could be measured: the first probe and the references failed');
  const followed: SeriesChoice = choice;
  const json = toBisectJson(state);
  const log: BisectLog = {
    ...json, benchmark: followed.benchmark, metric: followed.metric, good, bad, probe_steps: steps,
    candidates: candidates.map((c) => ({ sha: c.sha, subject: c.subject, ...(c.pr !== undefined ? { pr: c.pr } : {}), author: c.author })),
  };
  return { state, log };
}

/** renderBisectMarkdown is the CLI's markdown: what was bisected, the outcome, and the bisect log. */
export function renderBisectMarkdown(log: BisectLog): string {
  const lines = [`### benchbot bisect: ${log.benchmark} (${log.metric})`, ''];
  const c = log.culprit;
  if (log.status === 'not-reproducible') {
    const r = log.reference;
    lines.push(`**Not reproducible:** good and bad differ by ${r.ratio === null ? 'nothing measurable' : formatChange(r.ratio)}${r.ratio_ci ? ` (CI ${formatChange(r.ratio_ci[0])} … ${formatChange(r.ratio_ci[1])})` : ''}, which is not a significant change beyond the threshold on this machine.`);
  } else if (c) {
    const author = log.candidates?.find((x) => x.sha === c.sha)?.author;
    lines.push(`**Culprit:** ${c.pr !== null ? `#${c.pr} ` : ''}\`${c.sha.slice(0, 12)}\` ${c.subject}${author ? ` (${author})` : ''}`);
    if (log.culprits.length > 1) {
      for (const x of log.culprits) lines.push(`- ${x.pr !== null ? `#${x.pr} ` : ''}\`${x.sha.slice(0, 12)}\` ${x.subject}: ${x.ratio === null ? '–' : formatChange(x.ratio)}${x.share === null ? '' : `, ${Number((x.share * 100).toFixed(1))}% of the shift`}`);
    }
  } else if (log.range && log.range.length > 0) {
    lines.push(`**Culprit range:** ${log.range.length} merges that could not be told apart (skipped or undecided): ${log.range.map((x) => `${x.pr !== null ? `#${x.pr} ` : ''}\`${x.sha.slice(0, 12)}\``).join(', ')}`);
  } else {
    lines.push(`**Unfinished** (${log.status}).`);
  }
  lines.push('', renderBisectLog(log));
  return lines.join('\n');
}

/** runBisect implements `benchbot bisect`. */
export async function runBisect(args: string[], out: (text: string) => void): Promise<number> {
  const v = parse(args, { ...COMMON_FLAGS, good: { type: 'string' }, bad: { type: 'string' }, parallel: { type: 'string' }, output: { type: 'string' }, 'no-store': { type: 'boolean' } });
  if (!v.good) throw new UsageError('--good is required: a commit without the regression');
  if (!v.bad) throw new UsageError('--bad is required: a later commit with the regression');
  const flags = commonFlags(v, process.cwd());
  const parallel = positiveInt(v.parallel, '--parallel', 1);
  const output = (v.output as string | undefined) ?? 'markdown';
  if (output !== 'markdown' && output !== 'json') throw new UsageError(`--output ${output}: use markdown or json`);
  // Refs are checked before the machine is held: a typo should not wait for a quiet machine.
  const checked = openRepository(flags.repo);
  resolveCommit(checked, v.good as string, '--good');
  resolveCommit(checked, v.bad as string, '--bad');
  const executor = createExecutor({ kind: 'local' });
  const store = await openOptionalStore(flags, process.cwd());
  const progress = createProgress();
  // The machine lock and the load guard, as every measuring command takes them (machine-flags.ts).
  const release = await holdMachine(executor, progress, holdOptions(flags.machine))((await executor.fingerprint()).cores);
  try {
    const { log } = await runBisectSession({ flags, good: v.good as string, bad: v.bad as string, parallel, executor, progress, store });
    out(output === 'json' ? JSON.stringify(log, null, 2) : renderBisectMarkdown(log));
    return 0;
  } finally {
    release();
    await executor.close();
    await store?.close();
  }
}

/**
 * classifyOracleSessions classifies a probe from its interleaved sessions
 * (session-oracle.ts): probe vs good and bad vs probe combined by random
 * effects, against the good-to-bad shift measured in the same sessions.
 */
export function classifyOracleSessions(sessions: readonly ProbeSession[], threshold: number): { verdict: OracleVerdict; partial: boolean; llr: number; ratio: number | null; ratioCi: [number, number] | null; shift: number | null } {
  const all = (f: (x: ProbeSession) => Contrast | null) => sessions.map(f).filter((c): c is Contrast => c !== null);
  const fromGood = combine(all((x) => contrast(x.good, x.probe)));
  const toBad = combine(all((x) => contrast(x.probe, x.bad)));
  const shift = combine(all((x) => contrast(x.good, x.bad)));
  if (fromGood === null || toBad === null || shift === null) return { verdict: 'unknown', partial: false, llr: 0, ratio: null, ratioCi: null, shift: null };
  const c = classifySessions(fromGood, toBad, shift.mean, { threshold });
  return { ...c, ratio: Math.exp(fromGood.mean), ratioCi: [Math.exp(fromGood.mean - 1.96 * fromGood.se), Math.exp(fromGood.mean + 1.96 * fromGood.se)], shift: Math.exp(shift.mean) };
}

/** normalizeToolchain turns cargo-bisect-rustc's toolchain names (`bisector-nightly-2024-01-02-x86_64-unknown-linux-gnu`, `bisector-ci-<sha>-<target>`) into what a user writes (`nightly-2024-01-02`, `ci-<sha>`). */
export function normalizeToolchain(name: string): string {
  const stripped = name.replace(/^bisector-/, '');
  const m = /^(nightly-\d{4}-\d{2}-\d{2}|ci-[0-9a-f]{7,40}(?:-alt)?|stable|beta|nightly|\d+\.\d+(?:\.\d+)?)(?:-.+)?$/.exec(stripped);
  return m ? m[1] : stripped;
}

/** short abbreviates a commit SHA; toolchain names stay whole. */
function short(id: string): string {
  return /^[0-9a-f]{40,64}$/.test(id) ? id.slice(0, 12) : id;
}

/** OracleExit maps verdicts to a driver's exit codes. */
const EXIT = {
  git: { good: 0, bad: 1, skip: 125 },
  cargo: { good: 0, bad: 1, skip: 1 },
} as const;

/**
 * runBisectOracle implements `benchbot bisect-oracle`: one verdict for the
 * commit (git) or toolchain (cargo) under test, as an exit code.
 *
 * State, in the store's state table under `bisect-oracle:GOOD..BAD`: the
 * references' measurements (`:ref:ID`, every benchmark), the series
 * followed (fixed once both references are known, so every verdict of one
 * bisection is about the same numbers) and each probe's pooled sessions
 * (`:probe:ID`). A reference is taken from the store's runs at that commit
 * on this machine when there are any; else measured when it is itself the
 * probe (cargo-bisect-rustc tests its start and end first, with the right
 * toolchain installed), else measured on demand (git: a worktree; cargo:
 * RUSTUP_TOOLCHAIN set to the name given).
 */
export async function runBisectOracle(args: string[], out: (text: string) => void): Promise<number> {
  const v = parse(args, { ...COMMON_FLAGS, 'good-ref': { type: 'string' }, 'bad-ref': { type: 'string' }, 'exit-codes': { type: 'string' }, probe: { type: 'string' } });
  const mode = (v['exit-codes'] as string | undefined) ?? 'git';
  if (mode !== 'git' && mode !== 'cargo') throw new UsageError(`--exit-codes ${mode}: use git or cargo`);
  if (!v['good-ref']) throw new UsageError('--good-ref is required');
  if (!v['bad-ref']) throw new UsageError('--bad-ref is required');
  const cwd = process.cwd();
  const flags = commonFlags(v, cwd);
  const progress = createProgress();
  const executor = createExecutor({ kind: 'local' });
  const codes = EXIT[mode];
  const goodRaw = v['good-ref'] as string;
  const badRaw = v['bad-ref'] as string;

  let goodId: string;
  let badId: string;
  let probeId: string;
  let measureOne: (id: string, over?: Partial<MeasureSettings>) => Promise<MeasureOutcome>;
  if (mode === 'git') {
    const repo = openRepository(flags.repo);
    goodId = resolveCommit(repo, goodRaw, '--good-ref');
    badId = resolveCommit(repo, badRaw, '--bad-ref');
    probeId = resolveCommit(repo, (v.probe as string | undefined) ?? 'HEAD', '--probe');
    // Worktrees keep the checkout git bisect manages untouched (and builds cached per tree).
    measureOne = (id, over = {}) => measureCommit(repo, id, join(repo, '.benchbot'), { ...flags.measure, ...over }, { executor, progress });
  } else {
    goodId = normalizeToolchain(goodRaw);
    badId = normalizeToolchain(badRaw);
    const toolchain = (v.probe as string | undefined) ?? process.env.RUSTUP_TOOLCHAIN;
    if (!toolchain) throw new UsageError('no toolchain under test: cargo-bisect-rustc sets RUSTUP_TOOLCHAIN; outside it pass --probe TOOLCHAIN');
    probeId = normalizeToolchain(toolchain);
    const raw = (id: string) => (id === probeId ? toolchain : id === goodId ? goodRaw : badRaw);
    // The project stays; RUSTUP_TOOLCHAIN picks the toolchain, as cargo-bisect-rustc does for its script.
    measureOne = (id, over = {}) => measureDirectory(cwd, id, { ...flags.measure, ...over, env: { RUSTUP_TOOLCHAIN: raw(id) } }, { executor, progress });
  }

  const store = await openStore(flags.store, { cwd });
  // The machine lock and the load guard, as every measuring command takes them (machine-flags.ts).
  const release = await holdMachine(executor, progress, holdOptions(flags.machine))((await executor.fingerprint()).cores);
  try {
    const prefix = `bisect-oracle:${goodId}..${badId}`;
    const machine = machineKeyOf(executor);
    const measureRef = async (id: string, role: string): Promise<Measurement[]> => {
      progress.group(`${role} reference ${id}: ${flags.measure.rounds} rounds`);
      const outcome = await measureOne(id);
      progress.endGroup();
      if (outcome.skip !== undefined) throw new RunnerError(`the ${role} reference ${id} cannot be measured: ${outcome.skip}`);
      await store.putState(`${prefix}:ref:${id}`, outcome.measurements);
      return outcome.measurements;
    };
    const knownRef = async (id: string): Promise<Measurement[] | undefined> => {
      const kept = (await store.getState(`${prefix}:ref:${id}`))?.value as Measurement[] | undefined;
      if (kept) return kept;
      const stored = await storedSamples(store, id, machine);
      return stored.some((m) => m.values.length >= 2) ? stored : undefined;
    };
    const reproducible = (good: Measurement[], bad: Measurement[]) => {
      const choice = chooseSeries(good, bad, flags);
      if (choice === null) throw new RunnerError(`the references share no benchmark${flags.benchmarks.length > 0 ? ` named ${flags.benchmarks.join(', ')}` : ''}${flags.metric ? ` with metric ${flags.metric}` : ''}; check --benchmark and --metric`);
      const g = valuesOf(good, choice) as number[];
      const b = valuesOf(bad, choice) as number[];
      const check = ratioWithCi(g, b);
      const ok = check !== null && check.excludesOne && Math.abs(Math.log(check.ratio)) >= Math.log1p(flags.threshold);
      const why = `${choice.benchmark} (${choice.metric}) differs by ${check ? formatChange(check.ratio) : 'nothing measurable'} between ${short(goodId)} and ${short(badId)} here${check ? ` (CI ${formatChange(check.lower)} … ${formatChange(check.upper)})` : ''}`;
      return { choice, g, b, ok, why };
    };

    if (probeId === goodId || probeId === badId) {
      const role = probeId === goodId ? 'good' : 'bad';
      const mine = (await knownRef(probeId)) ?? (await measureRef(probeId, role));
      const other = await knownRef(probeId === goodId ? badId : goodId);
      if (other !== undefined) {
        const r = role === 'good' ? reproducible(mine, other) : reproducible(other, mine);
        if (!r.ok) {
          // For cargo-bisect-rustc, calling the end "baseline" makes it stop: the regression does not reproduce.
          if (mode === 'cargo' && role === 'bad') {
            out(`benchbot oracle: not reproducible: ${r.why}; answering baseline for the end of the range`);
            return codes.good;
          }
          throw new RunnerError(`not reproducible: ${r.why}; nothing to bisect`);
        }
      }
      out(`benchbot oracle: ${short(probeId)} is the ${role} reference`);
      return codes[role];
    }

    const goodM = (await knownRef(goodId)) ?? (await measureRef(goodId, 'good'));
    const badM = (await knownRef(badId)) ?? (await measureRef(badId, 'bad'));
    const r = reproducible(goodM, badM);
    // The stored or separately measured references choose the series and rule out a bisection with nothing to find.
    if (!r.ok) throw new RunnerError(`not reproducible: ${r.why}; nothing to bisect`);
    const { choice } = r;
    // Each call is one session: the probe interleaved with both references, so the session's offset cancels.
    const probeKey = `${prefix}:session:${probeId}`;
    const measureSession = async (): Promise<{ skip: string; arm: string } | ProbeSession> => {
      if (mode === 'git') {
        const o = await measureInterleaved(flags.repo, [{ label: 'good', sha: goodId }, { label: 'probe', sha: probeId }, { label: 'bad', sha: badId }], join(flags.repo, '.benchbot'), flags.measure, { executor, progress }, seedFromShas(goodId, probeId));
        if (o.skip !== undefined) return o;
        return { good: valuesOf(o.arms.good, choice) ?? [], probe: valuesOf(o.arms.probe, choice) ?? [], bad: valuesOf(o.arms.bad, choice) ?? [] };
      }
      // cargo: one project, the toolchain per arm through RUSTUP_TOOLCHAIN; one round of each arm at a time, the order alternating.
      const arms = { good: goodId, probe: probeId, bad: badId } as const;
      const got: Record<keyof typeof arms, number[]> = { good: [], probe: [], bad: [] };
      for (let round = 0; round < flags.measure.rounds; round++) {
        const order: Array<keyof typeof arms> = round % 2 === 0 ? ['good', 'probe', 'bad'] : ['bad', 'probe', 'good'];
        for (const arm of order) {
          const o = await measureOne(arms[arm], { rounds: 1, warmup: round === 0 ? flags.measure.warmup : 0 });
          if (o.skip !== undefined) return { skip: o.skip, arm };
          for (const v of valuesOf(o.measurements, choice) ?? []) got[arm].push(v); // no push(...): 120 k+ values overflow the stack
        }
      }
      return got;
    };
    for (;;) {
      progress.group(`probe ${short(probeId)}: ${flags.measure.rounds} rounds, interleaved with ${short(goodId)} and ${short(badId)}`);
      const session = await measureSession();
      progress.endGroup();
      if ('skip' in session) {
        if (session.arm !== 'probe') throw new RunnerError(`the ${session.arm} reference cannot be measured in this session: ${session.skip}`);
        out(`benchbot oracle: ${short(probeId)} skipped: ${session.skip}`);
        return codes.skip;
      }
      if (session.probe.length === 0) {
        out(`benchbot oracle: ${short(probeId)} skipped: no ${choice.benchmark} (${choice.metric}) in its output`);
        return codes.skip;
      }
      const before = ((await store.getState(probeKey))?.value as { sessions: ProbeSession[] } | undefined) ?? { sessions: [] };
      const entry = { sessions: [...before.sessions, session] };
      await store.putState(probeKey, entry);
      const c = classifyOracleSessions(entry.sessions, flags.threshold);
      const numbers = `${choice.benchmark} (${choice.metric}) ${entry.sessions.length} session(s), ${c.ratio === null ? 'no ratio' : `${formatChange(c.ratio)} vs good`}${c.ratioCi ? ` (CI ${formatChange(c.ratioCi[0])} … ${formatChange(c.ratioCi[1])})` : ''}${c.shift === null ? '' : `; bad vs good ${formatChange(c.shift)} in the same sessions`}`;
      if (c.verdict !== 'unknown') {
        out(`benchbot oracle: ${short(probeId)} ${c.verdict}${c.partial ? ' (partial shift)' : ''}: ${numbers}`);
        return c.verdict === 'good' || c.verdict === 'beyond-good' ? codes.good : codes.bad;
      }
      if (entry.sessions.length >= flags.maxSessions) {
        if (mode === 'git') {
          out(`benchbot oracle: ${short(probeId)} still undecided after ${entry.sessions.length} sessions (${numbers}); skipping it`);
          return codes.skip;
        }
        // cargo-bisect-rustc has no skip: lean on the sequential test's evidence.
        const leaning = c.llr > 0 ? 'bad' : 'good';
        out(`benchbot oracle: ${short(probeId)} undecided after ${entry.sessions.length} sessions (${numbers}); answering ${leaning}, the side the evidence leans to`);
        return codes[leaning];
      }
    }
  } finally {
    release();
    await executor.close();
    await store.close();
  }
}
