/**
 * bisect-session: the bisect job. Over the first-parent merges of good..bad
 * it measures what the state machine (src/bisect/create-bisect.ts) asks
 * for, one interleaved session at a time on this machine, and returns the
 * final state with its bisect.json (BisectLog). The references are the
 * stored nightly A/B of good vs bad when the store has one, else the good
 * and bad arms of the first session; they choose the series to follow
 * (src/bisect/choose-series.ts). `benchbot bisect` and the action's bisect
 * mode (action.yml, through the CLI) parse their inputs into BisectSettings
 * and print or upload the log.
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BisectLog } from '../bisect/bisect-log.ts';
import { chooseSeries, valuesOf, workEndsDiffer } from '../bisect/choose-series.ts';
import type { SeriesChoice } from '../bisect/choose-series.ts';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, toBisectJson } from '../bisect/create-bisect.ts';
import type { BisectState } from '../bisect/create-bisect.ts';
import { machineKey } from '../model/fingerprint.ts';
import type { Measurement } from '../model/measurement.ts';
import { INSTRUCTIONS_METRIC, isWorkMetric } from '../model/work-metrics.ts';
import { countCommit, harnessOf } from '../runner/count-commit.ts';
import { formatChange } from '../report/format-numbers.ts';
import { createExecutor } from '../runner/executor.ts';
import type { Executor } from '../runner/executor.ts';
import { firstParentMerges } from '../runner/first-parent-merges.ts';
import { openRepository, resolveCommit, RunnerError } from '../runner/git-checkout.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import type { HoldOptions } from '../runner/hold-machine.ts';
import { measureInterleaved } from '../runner/measure-commit.ts';
import type { Arm, InterleavedOutcome, MeasureSettings } from '../runner/measure-commit.ts';
import { createProgress } from '../runner/progress.ts';
import type { Progress } from '../runner/progress.ts';
import { seedFromShas } from '../compare/round-schedule.ts';
import { DEFAULT_SQLITE_PATH, openStore, STORE_URL_ENV } from '../store/open-store.ts';
import { poolSamples } from '../store/store.ts';
import { poolMeasurements } from '../compare/compare-runs.ts';
import type { Store } from '../store/store.ts';
import type { NameSetting } from './setting-names.ts';

/**
 * BISECT_DEFAULTS are the bisect jobs' defaults, the one place they are
 * written: rounds per session, discarded warm-up rounds, the smallest
 * change that matters (a fraction), sessions an undecided commit may get,
 * probes per step, the round and build time limits in milliseconds, and
 * the instruction counts per commit and session when they are asked for.
 */
export const BISECT_DEFAULTS = {
  // 15, not the PR check's 10: a bisect session's cost is mostly its builds, and rounds that decide a probe in one
  // session keep a 64-merge bisection within 1.5 log2(64) = 9 sessions (bench:nightly; 10 rounds needed up to 11).
  rounds: 15,
  warmup: 1,
  threshold: 0.02,
  maxSessions: 4,
  parallel: 1,
  roundTimeoutMs: 600_000,
  buildTimeoutMs: 3_600_000,
  // A count repeats: one per commit and session is what item 5 of issue 23 asks (the spread is shown by the PR check's repeats).
  instructionRepeats: 1,
  // The ends are counted 3 times: the work rule (compare/work-verdict.ts) needs 3 repeats a side to call a change whose
  // repeats differ at all (Go's counts move by ~0.15%), and the ends' spread is the noise every probe's single count is judged by.
  referenceCountRepeats: 3,
} as const;

/**
 * BisectSettings are what a bisection measures and follows: `repo` the
 * repository's directory (absolute), `measure` the bench and build commands
 * with the rounds per session, `benchmarks` and `metric` what to follow
 * (empty and undefined: the series that moved most), `threshold` the
 * smallest change that matters, `maxSessions` sessions an undecided commit
 * may get before it is set aside, `parallel` probes per step. Defaults:
 * BISECT_DEFAULTS.
 */
export interface BisectSettings {
  repo: string;
  measure: MeasureSettings;
  benchmarks: readonly string[];
  metric?: string;
  threshold: number;
  maxSessions: number;
  parallel: number;
}

/** BisectRun is what a bisection returns: the state machine's final state and its bisect.json. */
export interface BisectRun {
  state: BisectState;
  log: BisectLog;
}

/** machineKeyOf fingerprints the executor's machine on first use only: the fingerprint script takes a few hundred ms. */
export function machineKeyOf(executor: Executor): () => Promise<string> {
  let key: Promise<string> | undefined;
  return () => (key ??= executor.fingerprint().then(machineKey));
}

/** shareNothing says that the ends have no series to follow within the benchmarks and metric asked for. */
export function shareNothing(ends: string, settings: Pick<BisectSettings, 'benchmarks' | 'metric'>): string {
  return `${ends} share no benchmark${settings.benchmarks.length > 0 ? ` named ${settings.benchmarks.join(', ')}` : ''}${settings.metric ? ` with metric ${settings.metric}` : ''}`;
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

/**
 * runBisectSession drives a bisection end to end on this machine (no
 * printing): candidates, references, then probe steps of
 * `settings.parallel` commits each until the state machine is finished.
 * `store`, when given, may hold the nightly A/B of good vs bad.
 */
export async function runBisectSession(options: { settings: BisectSettings; good: string; bad: string; executor: Executor; progress: Progress; store?: Store; name: NameSetting }): Promise<BisectRun> {
  const { settings, executor, progress, name } = options;
  const repo = openRepository(settings.repo, name);
  const good = resolveCommit(repo, options.good, name('good'));
  const bad = resolveCommit(repo, options.bad, name('bad'));
  const candidates = firstParentMerges(repo, good, bad);
  const stateDir = join(repo, '.benchbot');
  const deps = { executor, progress };
  let seed = seedFromShas(good, bad);
  const session = async (arms: Arm[]): Promise<InterleavedOutcome> => measureInterleaved(repo, arms, stateDir, timed, deps, seed++);

  // The references: the nightly A/B that found the regression (good and bad interleaved on this machine) when the
  // store has it, else one interleaved session of good and bad measured now.
  const machine = machineKeyOf(executor);
  // Counted work is followed only where a count can be taken at every probe: with --instructions.
  // With measure.instructions (--instructions) the ends are counted first (instructions.repeats times each); a count that
  // got worse beyond the threshold is followed with one count per probe, else the sessions measure wall time alone.
  const counting = settings.measure.instructions !== undefined && (settings.metric === undefined || isWorkMetric(settings.metric));
  const timed: MeasureSettings = { ...settings.measure, instructions: undefined };
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
  const choose = (good: Measurement[], bad: Measurement[], counted = counting && settings.metric !== undefined): SeriesChoice => {
    const c = chooseSeries(good, bad, { ...settings, counted });
    if (c === null) {
      const names = [...new Set(good.map((m) => `${m.benchmark} (${m.metric})`))].slice(0, 10).join(', ');
      throw new RunnerError(`${shareNothing('good and bad', settings)}; the good commit measured: ${names || 'nothing'} (check ${name('benchmark')} and ${name('metric')})`);
    }
    progress.note(`following ${c.benchmark} (${c.metric}${isWorkMetric(c.metric) ? ', counted under valgrind: one count per probe' : ''}) over ${candidates.length} candidate merge(s)`);
    return c;
  };
  if (reference) choice = choose(reference.good, reference.bad);

  // Counted work: the ends are counted unless the stored A/B already has their counts; a count that got worse is followed.
  const counter = counting ? workCounter(repo, good, stateDir, settings, deps) : undefined;
  const storedCounts = reference !== undefined && reference.good.some((m) => isWorkMetric(m.metric) && (settings.benchmarks.length === 0 || settings.benchmarks.includes(m.benchmark)));
  if (counter && !storedCounts) {
    const repeats = Math.max(settings.measure.instructions?.repeats ?? BISECT_DEFAULTS.instructionRepeats, BISECT_DEFAULTS.referenceCountRepeats);
    progress.group(`references: ${good.slice(0, 12)} and ${bad.slice(0, 12)}, instructions counted under valgrind, ${repeats} time(s) each`);
    const ends = { good: await counter.count(good, repeats, { role: 'good' }), bad: await counter.count(bad, repeats, { role: 'bad' }) };
    progress.endGroup();
    const c = chooseSeries(ends.good, ends.bad, { ...settings, counted: true });
    const worse = c !== null && isWorkMetric(c.metric) && workEndsDiffer(valuesOf(ends.good, c) ?? [], valuesOf(ends.bad, c) ?? [], settings.threshold).differs;
    if (c !== null && (worse || settings.metric !== undefined)) {
      reference = { good: ends.good, bad: ends.bad, counted: true };
      choice = choose(ends.good, ends.bad, true);
    } else {
      const agree = ends.good.filter((m) => m.metric === INSTRUCTIONS_METRIC).map((m) => `${m.benchmark} ${formatChange(workEndsDiffer(m.values, valuesOf(ends.bad, m) ?? [], settings.threshold).change?.ratio ?? NaN)}`);
      progress.note(`instruction counts of good and bad do not differ beyond the threshold (${agree.slice(0, 5).join(', ') || 'none counted'}): following wall time`);
    }
  } else if (counter && reference && choice && !isWorkMetric(choice.metric)) {
    progress.note('the stored nightly A/B counted no benchmark that got worse beyond the threshold: following wall time');
  }
  const work = choice !== null && isWorkMetric(choice.metric);

  let state = createBisect({
    candidates: candidates.map((c) => ({ sha: c.sha, subject: c.subject, ...(c.pr !== undefined ? { pr: c.pr } : {}), ...(c.parent !== undefined ? { parent: c.parent } : {}) })),
    good,
    ...(reference && choice ? { reference: { good: valuesOf(reference.good, choice) ?? [], bad: valuesOf(reference.bad, choice) ?? [], counted: reference.counted } } : {}),
    options: { threshold: settings.threshold, maxSessionsPerCommit: settings.maxSessions, parallel: settings.parallel, work },
  });
  const referenceArms = (o: InterleavedOutcome) => {
    if (o.skip !== undefined && o.arm !== 'probe') throw new RunnerError(`the ${o.arm} reference (${(o.arm === 'good' ? good : bad).slice(0, 12)}) cannot be measured: ${o.skip}`);
    if (o.skip === undefined && choice === null) choice = choose(o.arms.good, o.arms.bad);
  };
  const pick = (o: InterleavedOutcome, label: string) => (o.skip === undefined && choice !== null ? valuesOf(o.arms[label], choice) : undefined);
  const missing = () => ({ skip: `no ${choice?.benchmark} (${choice?.metric}) in its output` });
  let steps = 0;
  const limit = candidates.length * (settings.maxSessions + 1) + 10;
  // One line per finished session: a plain log shows where the bisection stands without a line per round.
  let told = state.steps.length;
  const tell = () => {
    for (const s of state.steps.slice(told)) progress.note(`${s.kind} ${s.sha.slice(0, 12)}: ${s.verdict}${s.ratio !== null ? ` (${formatChange(s.ratio)} vs good, n=${s.n})` : ''}${s.reason ? `: ${s.reason}` : ''}`);
    told = state.steps.length;
  };
  while (!state.finished && steps < limit) {
    tell();
    const requests = nextSessions(state, settings.parallel);
    if (requests.length === 0) break;
    steps++;
    for (const request of requests) {
      if (work && counter && choice) {
        state = await countedSession(state, request, counter, choice, good, bad, progress, steps);
        continue;
      }
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
  const log: BisectLog = {
    ...toBisectJson(state), benchmark: followed.benchmark, metric: followed.metric, good, bad, probe_steps: steps,
    candidates: candidates.map((c) => ({ sha: c.sha, subject: c.subject, ...(c.pr !== undefined ? { pr: c.pr } : {}), author: c.author })),
  };
  return { state, log };
}

/** WorkCounter counts commits' work for a bisection: each commit once at most per repeat count asked for (a count does not change). */
interface WorkCounter {
  /**
   * count returns the counts at `sha`, `repeats` each, of every benchmark
   * or `only` the one followed; `fresh` counts again and returns only the
   * new counts. A commit that cannot be built or counted is a RunnerError
   * for the references (`role`), else an empty list with `skipped` set.
   */
  count(sha: string, repeats: number, options?: { role?: string; fresh?: boolean; only?: string }): Promise<Measurement[]>;
  skipped: Map<string, string>;
}

/**
 * workCounter counts with countCommit in the bisection's worktrees; the
 * harness and the benchmark names come from one wall-time round of the
 * good commit (or --format command). Counts are kept per commit: a commit
 * counted as a probe is not counted again as a culprit's parent.
 */
function workCounter(repo: string, good: string, stateDir: string, settings: BisectSettings, deps: { executor: Executor; progress: Progress }): WorkCounter {
  let harness: Promise<{ format: string; names: string[] }> | undefined;
  const kept = new Map<string, Measurement[]>();
  const skipped = new Map<string, string>();
  const keepDir = join(stateDir, 'callgrind', 'bisect');
  const target = () => (harness ??= harnessOf(repo, good, stateDir, { ...settings.measure, instructions: undefined }, deps).then((h) => {
    if ('skip' in h) throw new RunnerError(`the good commit (${good.slice(0, 12)}) cannot be measured: ${h.skip}`);
    return { format: h.format, names: settings.benchmarks.length > 0 ? h.names.filter((n) => settings.benchmarks.includes(n)) : h.names };
  }));
  return {
    skipped,
    async count(sha, repeats, { role, fresh = false, only } = {}) {
      const have = kept.get(sha);
      const enough = (ms: Measurement[]) => (only === undefined ? ms.length > 0 && ms.every((m) => m.values.length >= repeats) : ms.some((m) => m.benchmark === only && m.values.length >= repeats));
      if (have && !fresh && enough(have)) return have;
      const all = await target();
      // A probe counts the benchmark followed alone: the others would double its time under valgrind for nothing.
      const h = only === undefined ? all : { ...all, names: all.format === 'command' ? all.names : [only] };
      deps.progress.status(`${sha.slice(0, 12)}: counting under valgrind`);
      const o = await countCommit(repo, sha, stateDir, settings.measure, { ...h, instructions: settings.measure.instructions ?? {}, repeats, keepDir }, deps);
      const why = o.skip ?? (o.measurements.length === 0 ? o.reasons.map((r) => r.message).join('; ') || 'nothing counted' : undefined);
      if (why !== undefined || o.skip !== undefined) {
        if (role !== undefined) throw new RunnerError(`the ${role} commit (${sha.slice(0, 12)}) cannot be counted: ${why}`);
        skipped.set(sha, why ?? 'nothing counted');
        return [];
      }
      const { measurements } = o;
      for (const r of o.reasons) deps.progress.note(`${sha.slice(0, 12)}: ${r.message}`);
      deps.progress.note(`${sha.slice(0, 12)}: counted in ${(o.durationMs / 1000).toFixed(1)} s`);
      // A fresh count adds to what the commit had (more repeats for later probes) and returns only itself.
      kept.set(sha, have ? poolMeasurements(fresh ? [...have, ...measurements] : [...have.filter((m) => !measurements.some((n) => n.benchmark === m.benchmark && n.metric === m.metric)), ...measurements]) : measurements);
      return measurements;
    },
  };
}

/**
 * countedSession measures one session of a bisection that follows counted
 * work: a probe is its count alone (once; the references' counts are
 * reused), a confirmation the culprit's and its parent's counts, a
 * reference session (good and bad not told apart yet) both ends counted
 * again.
 */
async function countedSession(state: BisectState, request: ReturnType<typeof nextSessions>[number], counter: WorkCounter, choice: SeriesChoice, good: string, bad: string, progress: Progress, step: number): Promise<BisectState> {
  const values = async (sha: string, repeats = 1) => {
    const ms = await counter.count(sha, repeats, { only: choice.benchmark });
    return valuesOf(ms, choice) ?? [];
  };
  const missing = (sha: string) => ({ skip: counter.skipped.get(sha) ?? `no ${choice.benchmark} (${choice.metric}) counted` });
  const refs = async () => ({ good: await values(good), bad: await values(bad) });
  if (request.kind === 'reference') {
    progress.group(`step ${step}: references counted again`);
    const again = { good: await counter.count(good, 1, { role: 'good', fresh: true, only: choice.benchmark }), bad: await counter.count(bad, 1, { role: 'bad', fresh: true, only: choice.benchmark }) };
    progress.endGroup();
    return recordReference(state, { good: valuesOf(again.good, choice) ?? [], bad: valuesOf(again.bad, choice) ?? [] });
  }
  if (request.kind === 'probe') {
    progress.group(`step ${step}: ${request.sha.slice(0, 12)} ${state.candidates.find((c) => c.sha === request.sha)?.subject ?? ''}, counted under valgrind`);
    const probe = await values(request.sha);
    progress.endGroup();
    return recordProbe(state, request.sha, probe.length > 0 ? { ...(await refs()), probe, referencesReused: true } : missing(request.sha));
  }
  progress.group(`step ${step}: confirm ${request.sha.slice(0, 12)} against its parent ${request.parent.slice(0, 12)}, counted under valgrind`);
  const [parent, probe] = [await values(request.parent), await values(request.sha)];
  progress.endGroup();
  return recordConfirmation(state, request.sha, parent.length > 0 && probe.length > 0 ? { parent, probe } : missing(parent.length === 0 ? request.parent : request.sha));
}

/**
 * BisectJob is one bisection as an adapter asks for it: the settings, the
 * two ends as the user wrote them, where the stored nightly A/B may be
 * (`store` a store URL or path, else BENCHBOT_DATABASE_URL, else the
 * default SQLite file when it exists; `noStore` reads none), how to share
 * the machine, and how the adapter names its settings.
 */
export interface BisectJob {
  settings: BisectSettings;
  good: string;
  bad: string;
  store?: string;
  noStore: boolean;
  hold: HoldOptions;
  name: NameSetting;
  cwd: string;
}

/** openOptionalStore opens the store only when one is named or already exists: a bisection must not create one. */
async function openOptionalStore(job: BisectJob): Promise<Store | undefined> {
  if (job.noStore) return undefined;
  const explicit = job.store ?? process.env[STORE_URL_ENV];
  if (!explicit && !existsSync(join(job.cwd, DEFAULT_SQLITE_PATH))) return undefined;
  return openStore(job.store, { cwd: job.cwd });
}

/**
 * bisect runs a BisectJob on this machine: it checks both ends first (a
 * typo should not wait for a quiet machine), then holds the machine (the
 * lock and the load guard, as every measuring job) for runBisectSession.
 */
export async function bisect(job: BisectJob): Promise<BisectRun> {
  const checked = openRepository(job.settings.repo, job.name);
  resolveCommit(checked, job.good, job.name('good'));
  resolveCommit(checked, job.bad, job.name('bad'));
  const executor = createExecutor({ kind: 'local' });
  const store = await openOptionalStore(job);
  const progress = createProgress();
  const release = await holdMachine(executor, progress, job.hold)((await executor.fingerprint()).cores);
  try {
    return await runBisectSession({ settings: job.settings, good: job.good, bad: job.bad, executor, progress, store, name: job.name });
  } finally {
    release();
    await executor.close();
    await store?.close();
  }
}
