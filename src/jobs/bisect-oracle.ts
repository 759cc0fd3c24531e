/**
 * bisect-oracle: one verdict of the bisect oracle for drivers that call a
 * script per commit, `git bisect run` (bisect/git-bisect-run) and
 * cargo-bisect-rustc `--script` (bisect/cargo-bisect-rustc-script). Each
 * call is a new process, so what one bisection learns lives in the store's
 * state table: the references' measurements, and each probe's sessions.
 * The verdict itself is pure (classifyOracleSessions in
 * src/bisect/session-oracle.ts); `benchbot bisect-oracle` turns it into the
 * driver's exit code.
 */

import { join } from 'node:path';
import { chooseSeries, endsDiffer, valuesOf } from '../bisect/choose-series.ts';
import type { ProbeSession } from '../bisect/create-bisect.ts';
import { classifyOracleSessions } from '../bisect/session-oracle.ts';
import type { Measurement } from '../model/measurement.ts';
import { isWorkMetric } from '../model/work-metrics.ts';
import { formatChange } from '../report/format-numbers.ts';
import { createExecutor } from '../runner/executor.ts';
import { openRepository, resolveCommit, RunnerError } from '../runner/git-checkout.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import type { HoldOptions } from '../runner/hold-machine.ts';
import { measureCommit, measureDirectory, measureInterleaved } from '../runner/measure-commit.ts';
import type { MeasureOutcome, MeasureSettings } from '../runner/measure-commit.ts';
import { createProgress } from '../runner/progress.ts';
import { seedFromShas } from '../compare/round-schedule.ts';
import { openStore } from '../store/open-store.ts';
import { poolSamples } from '../store/store.ts';
import type { Store } from '../store/store.ts';
import { machineKeyOf, shareNothing } from './bisect-session.ts';
import type { BisectSettings } from './bisect-session.ts';
import type { NameSetting } from './setting-names.ts';

/**
 * OracleDriver is the program that calls the oracle: `git` (git bisect run:
 * the probe is a commit, measured in a worktree) or `cargo`
 * (cargo-bisect-rustc: the probe is a toolchain, set by RUSTUP_TOOLCHAIN in
 * the project directory, and there is no skip).
 */
export type OracleDriver = 'git' | 'cargo';

/** OracleAnswer is the oracle's answer for the driver: `skip` when the probe cannot be measured or stays undecided. */
export type OracleAnswer = 'good' | 'bad' | 'skip';

/**
 * OracleJob is one call of the oracle: `goodRef` and `badRef` the
 * references as the driver names them, `probe` what is under test (a ref
 * for git, a toolchain for cargo), `store` the store URL or path (default:
 * the default store), the settings its bisection shares (`parallel` is not
 * used), how to share the machine and how the adapter names its settings.
 */
export interface OracleJob {
  driver: OracleDriver;
  goodRef: string;
  badRef: string;
  probe: string;
  settings: Omit<BisectSettings, 'parallel'>;
  store?: string;
  hold: HoldOptions;
  name: NameSetting;
  cwd: string;
}

/** OracleResult is the answer with the line that says why (the numbers of the sessions it was decided on). */
export interface OracleResult {
  answer: OracleAnswer;
  message: string;
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

/**
 * oracleState is a bisection's memory in the store's state table, under
 * `bisect-oracle:GOOD..BAD`: the references' measurements (`:ref:ID`,
 * every benchmark) and each probe's pooled sessions (`:session:ID`).
 */
function oracleState(store: Store, goodId: string, badId: string) {
  const prefix = `bisect-oracle:${goodId}..${badId}`;
  return {
    reference: async (id: string): Promise<Measurement[] | undefined> => (await store.getState(`${prefix}:ref:${id}`))?.value as Measurement[] | undefined,
    keepReference: async (id: string, measurements: Measurement[]): Promise<void> => {
      await store.putState(`${prefix}:ref:${id}`, measurements);
    },
    /** addSession appends one session of the probe and returns all of them. */
    addSession: async (probeId: string, session: ProbeSession): Promise<ProbeSession[]> => {
      const key = `${prefix}:session:${probeId}`;
      const before = ((await store.getState(key))?.value as { sessions: ProbeSession[] } | undefined) ?? { sessions: [] };
      const entry = { sessions: [...before.sessions, session] };
      await store.putState(key, entry);
      return entry.sessions;
    },
  };
}

/**
 * bisectOracle answers for the commit (git) or toolchain (cargo) under
 * test. A reference is taken from the store's state, else from the stored
 * runs at that commit on this machine, else measured when it is itself the
 * probe (cargo-bisect-rustc tests its start and end first, with the right
 * toolchain installed), else measured on demand (git: a worktree; cargo:
 * RUSTUP_TOOLCHAIN set to the name given). The series followed is chosen
 * from the references, so every verdict of one bisection is about the same
 * numbers; a probe gets sessions interleaved with both references until
 * the oracle decides or `maxSessions` is spent.
 */
export async function bisectOracle(job: OracleJob): Promise<OracleResult> {
  const { settings, name, driver } = job;
  const progress = createProgress();
  const executor = createExecutor({ kind: 'local' });

  let goodId: string;
  let badId: string;
  let probeId: string;
  let measureOne: (id: string, over?: Partial<MeasureSettings>) => Promise<MeasureOutcome>;
  if (driver === 'git') {
    const repo = openRepository(settings.repo, name);
    goodId = resolveCommit(repo, job.goodRef, name('good-ref'));
    badId = resolveCommit(repo, job.badRef, name('bad-ref'));
    probeId = resolveCommit(repo, job.probe, name('probe'));
    // Worktrees keep the checkout git bisect manages untouched (and builds cached per tree).
    measureOne = (id, over = {}) => measureCommit(repo, id, join(repo, '.benchbot'), { ...settings.measure, ...over }, { executor, progress });
  } else {
    goodId = normalizeToolchain(job.goodRef);
    badId = normalizeToolchain(job.badRef);
    probeId = normalizeToolchain(job.probe);
    const raw = (id: string) => (id === probeId ? job.probe : id === goodId ? job.goodRef : job.badRef);
    // The project stays; RUSTUP_TOOLCHAIN picks the toolchain, as cargo-bisect-rustc does for its script.
    measureOne = (id, over = {}) => measureDirectory(job.cwd, id, { ...settings.measure, ...over, env: { RUSTUP_TOOLCHAIN: raw(id) } }, { executor, progress });
  }

  const store = await openStore(job.store, { cwd: job.cwd });
  const release = await holdMachine(executor, progress, job.hold)((await executor.fingerprint()).cores);
  try {
    const state = oracleState(store, goodId, badId);
    const machine = machineKeyOf(executor);
    const measureRef = async (id: string, role: string): Promise<Measurement[]> => {
      progress.group(`${role} reference ${id}: ${settings.measure.rounds} rounds`);
      const outcome = await measureOne(id);
      progress.endGroup();
      if (outcome.skip !== undefined) throw new RunnerError(`the ${role} reference ${id} cannot be measured: ${outcome.skip}`);
      await state.keepReference(id, outcome.measurements);
      return outcome.measurements;
    };
    const knownRef = async (id: string): Promise<Measurement[] | undefined> => {
      const kept = await state.reference(id);
      if (kept) return kept;
      const stored = poolSamples(await store.samplesFor({ sha: id, machineKey: await machine() }));
      return stored.some((m) => m.values.length >= (isWorkMetric(m.metric) ? 1 : 2)) ? stored : undefined;
    };
    const reproducible = (good: Measurement[], bad: Measurement[]) => {
      const choice = chooseSeries(good, bad, { ...settings, counted: settings.measure.instructions !== undefined });
      if (choice === null) throw new RunnerError(`${shareNothing('the references', settings)}; check ${name('benchmark')} and ${name('metric')}`);
      const { change: check, differs: ok } = endsDiffer(valuesOf(good, choice) ?? [], valuesOf(bad, choice) ?? [], settings.threshold, choice.metric);
      const why = `${choice.benchmark} (${choice.metric}) differs by ${check ? formatChange(check.ratio) : 'nothing measurable'} between ${short(goodId)} and ${short(badId)} here${check ? ` (CI ${formatChange(check.lower)} … ${formatChange(check.upper)})` : ''}`;
      return { choice, ok, why };
    };

    if (probeId === goodId || probeId === badId) {
      const role = probeId === goodId ? 'good' : 'bad';
      const mine = (await knownRef(probeId)) ?? (await measureRef(probeId, role));
      const other = await knownRef(probeId === goodId ? badId : goodId);
      if (other !== undefined) {
        const r = role === 'good' ? reproducible(mine, other) : reproducible(other, mine);
        if (!r.ok) {
          // For cargo-bisect-rustc, calling the end "baseline" makes it stop: the regression does not reproduce.
          if (driver === 'cargo' && role === 'bad') return { answer: 'good', message: `not reproducible: ${r.why}; answering baseline for the end of the range` };
          throw new RunnerError(`not reproducible: ${r.why}; nothing to bisect`);
        }
      }
      return { answer: role, message: `${short(probeId)} is the ${role} reference` };
    }

    const goodM = (await knownRef(goodId)) ?? (await measureRef(goodId, 'good'));
    const badM = (await knownRef(badId)) ?? (await measureRef(badId, 'bad'));
    const r = reproducible(goodM, badM);
    // The stored or separately measured references choose the series and rule out a bisection with nothing to find.
    if (!r.ok) throw new RunnerError(`not reproducible: ${r.why}; nothing to bisect`);
    const { choice } = r;
    // Each call is one session: the probe interleaved with both references, so the session's offset cancels.
    const measureSession = async (): Promise<{ skip: string; arm: string } | ProbeSession> => {
      if (driver === 'git') {
        const o = await measureInterleaved(settings.repo, [{ label: 'good', sha: goodId }, { label: 'probe', sha: probeId }, { label: 'bad', sha: badId }], join(settings.repo, '.benchbot'), settings.measure, { executor, progress }, seedFromShas(goodId, probeId));
        if (o.skip !== undefined) return o;
        return { good: valuesOf(o.arms.good, choice) ?? [], probe: valuesOf(o.arms.probe, choice) ?? [], bad: valuesOf(o.arms.bad, choice) ?? [] };
      }
      // cargo: one project, the toolchain per arm through RUSTUP_TOOLCHAIN; one round of each arm at a time, the order alternating.
      const arms = { good: goodId, probe: probeId, bad: badId } as const;
      const got: Record<keyof typeof arms, number[]> = { good: [], probe: [], bad: [] };
      for (let round = 0; round < settings.measure.rounds; round++) {
        const order: Array<keyof typeof arms> = round % 2 === 0 ? ['good', 'probe', 'bad'] : ['bad', 'probe', 'good'];
        for (const arm of order) {
          const o = await measureOne(arms[arm], { rounds: 1, warmup: round === 0 ? settings.measure.warmup : 0 });
          if (o.skip !== undefined) return { skip: o.skip, arm };
          for (const v of valuesOf(o.measurements, choice) ?? []) got[arm].push(v); // no push(...): 120 k+ values overflow the stack
        }
      }
      return got;
    };
    for (;;) {
      progress.group(`probe ${short(probeId)}: ${settings.measure.rounds} rounds, interleaved with ${short(goodId)} and ${short(badId)}`);
      const session = await measureSession();
      progress.endGroup();
      if ('skip' in session) {
        if (session.arm !== 'probe') throw new RunnerError(`the ${session.arm} reference cannot be measured in this session: ${session.skip}`);
        return { answer: 'skip', message: `${short(probeId)} skipped: ${session.skip}` };
      }
      if (session.probe.length === 0) return { answer: 'skip', message: `${short(probeId)} skipped: no ${choice.benchmark} (${choice.metric}) in its output` };
      const sessions = await state.addSession(probeId, session);
      const c = classifyOracleSessions(sessions, settings.threshold, isWorkMetric(choice.metric));
      const numbers = `${choice.benchmark} (${choice.metric}) ${sessions.length} session(s), ${c.ratio === null ? 'no ratio' : `${formatChange(c.ratio)} vs good`}${c.ratioCi ? ` (CI ${formatChange(c.ratioCi[0])} … ${formatChange(c.ratioCi[1])})` : ''}${c.shift === null ? '' : `; bad vs good ${formatChange(c.shift)} in the same sessions`}`;
      if (c.verdict !== 'unknown') {
        return { answer: c.verdict === 'good' || c.verdict === 'beyond-good' ? 'good' : 'bad', message: `${short(probeId)} ${c.verdict}${c.partial ? ' (partial shift)' : ''}: ${numbers}` };
      }
      if (sessions.length >= settings.maxSessions) {
        if (driver === 'git') return { answer: 'skip', message: `${short(probeId)} still undecided after ${sessions.length} sessions (${numbers}); skipping it` };
        // cargo-bisect-rustc has no skip: lean on the sequential test's evidence.
        const leaning = c.llr > 0 ? 'bad' : 'good';
        return { answer: leaning, message: `${short(probeId)} undecided after ${sessions.length} sessions (${numbers}); answering ${leaning}, the side the evidence leans to` };
      }
    }
  } finally {
    release();
    await executor.close();
    await store.close();
  }
}
