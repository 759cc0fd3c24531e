import { DEFAULT_TEST } from '../compare/estimate-change.ts';
import { formatNames } from '../formats/detect.ts';
import { didYouMean } from '../model/closest-name.ts';
import { createExecutor, type ExecutorSpec } from '../runner/executor.ts';
import { openRepository, resolveCommit } from '../runner/git-checkout.ts';
import { holdMachine } from '../runner/hold-machine.ts';
import { DEFAULT_LOAD_WAIT_MS } from '../runner/load-guard.ts';
import { DEFAULT_LOCK_WAIT_MS } from '../runner/machine-lock.ts';
import type { Progress } from '../runner/progress.ts';
import { DEFAULT_POOL_BASE, runAb, type RunAbDeps, type RunAbResult, type RunAbSettings, type RunHistory } from '../runner/run-ab.ts';
import type { MeasurePair } from './confirm-findings.ts';
import { learnNoise, storedRounds } from '../store/noise-memory.ts';
import { openStore } from '../store/open-store.ts';
import type { IngestRun, Store } from '../store/store.ts';
import { nightlyEvidence, type NightlyEvidence } from './nightly.ts';
import { SettingError, type NameSetting } from './setting-names.ts';
import { PROFILE_DEFAULTS, profileRegressions } from './profile-benchmark.ts';

/**
 * pr-check: measure a base against a head on this machine (the PR check,
 * and a nightly's A/B of the branch head against the night before), store
 * both runs, and for a nightly scan the branch's history. The CLI's `run`
 * and `calibrate` and the action's measuring job parse their inputs into
 * PrCheckSettings and print or publish the result.
 */

/**
 * PR_CHECK_DEFAULTS are the PR check's defaults for every adapter: 10 rounds
 * per side before the first look and a budget of 40 (or minRuns, if more:
 * defaultMaxRuns), one discarded warm-up round per side, a 2% threshold at
 * an overall alpha of 0.05, 600 s per round and 3,600 s per build before
 * they are killed, 3 failed rounds tolerated, 5 minutes for a quiet machine
 * and an hour for another job's machine lock, the round order derived from
 * the two SHAs (seed -1), one bench command per round summarized by its
 * median, pinned to the isolated CPUs if any, stored base rounds pooled;
 * with instruction counting, 3 counts per side (valgrind-count.ts),
 * judged at a threshold of their own that follows the harness (0.5%, 1%
 * for pytest-benchmark: compare-runs.ts defaultWorkThreshold, which says
 * why), so it is no entry here.
 */
export const PR_CHECK_DEFAULTS = {
  minRuns: 10,
  maxRuns: 40,
  warmup: 1,
  threshold: 0.02,
  alpha: 0.05,
  roundTimeoutMs: 600_000,
  buildTimeoutMs: 3_600_000,
  maxFailedRounds: 3,
  loadWaitMs: DEFAULT_LOAD_WAIT_MS,
  lockTimeoutMs: DEFAULT_LOCK_WAIT_MS,
  seed: -1,
  repetitions: 1,
  roundSummary: 'median',
  pinCpu: 'auto',
  poolBase: DEFAULT_POOL_BASE,
  test: DEFAULT_TEST,
  // Where a regression lives is worth two valgrind runs per regressed benchmark (jobs/profile-benchmark.ts).
  profile: true,
} as const;

/** defaultMaxRuns is the round budget per side when none is given: PR_CHECK_DEFAULTS.maxRuns, or minRuns when that is more. */
export function defaultMaxRuns(minRuns: number): number {
  return Math.max(PR_CHECK_DEFAULTS.maxRuns, minRuns);
}

/** checkFormat refuses a `format` no reader has; `command` times the whole bench command through hyperfine. */
export function checkFormat(format: string | undefined, name: NameSetting): void {
  if (format === undefined || format === 'command' || formatNames().includes(format)) return;
  throw new SettingError(`${name('format')}: unknown format "${format}"${didYouMean(format, ['command', ...formatNames()])}; use one of: ${formatNames().join(', ')}`);
}

/** Shard is one part of a suite split across identical runners: `index` of `count`, both from 1. */
export interface Shard {
  index: number;
  count: number;
}

/**
 * PrCheckSettings are a PR check's settings, parsed and validated by the
 * adapter (defaults: PR_CHECK_DEFAULTS). `base` may be left out only for a
 * nightly, which picks it (nightlyBase).
 */
export interface PrCheckSettings extends Omit<RunAbSettings, 'base' | 'nameSetting'> {
  base?: string;
  executorSpec: ExecutorSpec;
  /** maxLoad is the 1-minute load average to wait for; undefined: 0.5 + 10% of the cores. */
  maxLoad?: number;
  loadWaitMs: number;
  lockTimeoutMs: number;
  /** store is the history's SQLite path or postgres:// URL (undefined: the default one); `noStore` keeps no history. */
  store?: string;
  noStore: boolean;
  /** repository is what the runs and the noise memory are stored under: the GitHub repository, or the CLI's directory. */
  repository?: string;
  /** branch is stored with the head's run: a pull request's head branch, a nightly's branch. */
  branch?: string;
  /** nightly records the head as the branch's nightly, compares it with the night before, scans the branch's history and writes it to historyFile (history.json). */
  nightly?: { serverUrl?: string; historyFile: string };
  /** shard runs one part of the suite; the bench command learns which from BENCHBOT_SHARD and BENCHBOT_SHARDS. */
  shard?: Shard;
  /** profile makes a differential profile of each regressed benchmark (default PR_CHECK_DEFAULTS.profile). */
  profile?: boolean;
  /** calibrate runs A/A rounds whose noise is learned, with advice for this round budget; its runs are not stored. */
  calibrate?: { budgetRoundsPerSide: number };
  nameSetting: NameSetting;
}

/** PrCheckDeps are the edges a PR check touches beside the executor and the store its settings name. */
export interface PrCheckDeps {
  progress: Progress;
  /** now returns the current time as ISO 8601. */
  now: () => string;
  /** env is where the store's URL may come from (BENCHBOT_DATABASE_URL; default process.env). */
  env?: Record<string, string | undefined>;
}

/** PrCheckResult is the measured run and, for a nightly with a store, its evidence for the report job. */
export interface PrCheckResult {
  run: RunAbResult;
  nightly?: NightlyEvidence;
}

/** runPrCheck measures base against head, stores both runs and, for a nightly, scans the branch; the executor and store are its own. */
export async function runPrCheck(settings: PrCheckSettings, deps: PrCheckDeps): Promise<PrCheckResult> {
  return onThisMachine(settings, deps, async ({ store, abSettings, abDeps }) => {
    const name = settings.nameSetting;
    const base = settings.base ?? (settings.nightly ? await nightlyBase(settings, store) : undefined);
    if (base === undefined) throw new SettingError(`${name('base')}: required; give the commit to compare the head with`);
    const ab = abSettings(base, settings.head);
    const run = await whereRegressionsLive(await runAb(ab, abDeps), settings, abDeps);
    if (!store) return { run };
    if (!settings.calibrate) await store.ingestRuns(storedRuns(run, settings));
    if (!settings.nightly) return { run };
    return { run, nightly: await branchEvidence(store, settings, settings.nightly, run.head.sha, ab, abDeps) };
  });
}

/**
 * confirmAwaiting is a nightly without a night of its own (`benchbot
 * nightly --confirm-only`): the branch's findings that await their
 * interleaved A/B get it on this machine, as after a measured night
 * (jobs/confirm-findings.ts), and the branch is scanned; `settings.head`
 * is only where the first-parent chain of history.json starts.
 */
export async function confirmAwaiting(settings: PrCheckSettings & { nightly: NonNullable<PrCheckSettings['nightly']> }, deps: PrCheckDeps): Promise<NightlyEvidence> {
  // Only a store with history has findings to confirm: a mistyped path must not become a new, empty one.
  return onThisMachine(settings, deps, async ({ store, abSettings, abDeps }) => {
    const name = settings.nameSetting;
    if (!store) throw new SettingError(`${name('no-store')}: confirming the stored findings needs the store`);
    const head = resolveCommit(openRepository(settings.repo, name), settings.head, name('head'));
    return branchEvidence(store, settings, settings.nightly, head, abSettings(head, head), abDeps);
  }, { storeMustExist: true });
}

/**
 * whereRegressionsLive adds the differential profile of each regressed
 * benchmark to the run (none for calibrate, or with profile off). Counted
 * work does not see the machine's load, so it runs after the rounds.
 */
async function whereRegressionsLive(run: RunAbResult, settings: PrCheckSettings, deps: RunAbDeps): Promise<RunAbResult> {
  if (settings.calibrate || !(settings.profile ?? PR_CHECK_DEFAULTS.profile) || run.report.summary.regressed === 0) return run;
  const where = await profileRegressions(run, {
    repo: openRepository(settings.repo, settings.nameSetting), bench: settings.bench, build: settings.build, top: PROFILE_DEFAULTS.top,
    timeoutMs: settings.roundTimeoutMs, buildTimeoutMs: settings.buildTimeoutMs, stateDir: settings.stateDir, nameSetting: settings.nameSetting,
  }, { executor: deps.executor, progress: deps.progress });
  return { ...run, profiles: where.profiles, profileNotes: where.notes, profileSources: where.sources };
}

/** branchEvidence confirms what awaits an interleaved A/B right away, on this runner (jobs/confirm-findings.ts), and scans the branch. */
function branchEvidence(store: Store, settings: PrCheckSettings, nightly: NonNullable<PrCheckSettings['nightly']>, headSha: string, ab: RunAbSettings, abDeps: RunAbDeps): Promise<NightlyEvidence> {
  const confirm: MeasurePair = async (pair) => runAb({ ...ab, base: pair.base, head: pair.head }, abDeps);
  const scan = { branch: settings.branch ?? 'main', threshold: settings.threshold, workThreshold: settings.workThreshold, minRuns: settings.minRuns, maxRuns: settings.maxRuns, repository: settings.repository, serverUrl: nightly.serverUrl };
  return nightlyEvidence(store, { ...scan, repoDir: settings.repo, checkout: settings.repo, headSha, historyFile: nightly.historyFile }, confirm);
}

/** Measuring is what a job measures with on this machine: its store (none with noStore), the A/B settings of a pair, and the runner's edges. */
interface Measuring {
  store: Store | undefined;
  abSettings: (base: string, head: string) => RunAbSettings;
  abDeps: RunAbDeps;
}

/** onThisMachine opens the executor and the store a PR check or nightly measures with, runs `body`, and closes both. */
async function onThisMachine<T>(settings: PrCheckSettings, deps: PrCheckDeps, body: (m: Measuring) => Promise<T>, options: { storeMustExist?: boolean } = {}): Promise<T> {
  const name = settings.nameSetting;
  const executor = createExecutor(settings.executorSpec, name);
  let store: Store | undefined;
  try {
    // Open the store first: a store that does not connect should fail before an hour of measuring.
    store = settings.noStore ? undefined : await openStore(settings.store, { cwd: settings.repo, env: deps.env, mustExist: options.storeMustExist });
    // The shard's part of the suite is the bench command's business; it learns which part from these variables on every executor.
    const bench = settings.shard ? `export BENCHBOT_SHARD=${settings.shard.index} BENCHBOT_SHARDS=${settings.shard.count}; ${settings.bench}` : settings.bench;
    // A nightly's A/B runs to a decision or the budget: the scan judges every round (scan/ab-evidence.ts).
    const abSettings = (base: string, head: string): RunAbSettings => ({ ...settings, base, head, bench, nameSetting: name, ...(settings.nightly ? { futility: false } : {}) });
    const abDeps: RunAbDeps = {
      executor,
      progress: deps.progress,
      now: deps.now,
      holdMachine: holdMachine(executor, deps.progress, { maxLoad: settings.maxLoad, loadWaitMs: settings.loadWaitMs, lockTimeoutMs: settings.lockTimeoutMs, nameSetting: name }),
      // The machine's noise memory, keyed like the stored runs.
      history: store ? storeHistory(store, settings.repository) : undefined,
      budgetRoundsPerSide: settings.calibrate?.budgetRoundsPerSide,
    };
    return await body({ store, abSettings, abDeps });
  } finally {
    await executor.close();
    await store?.close();
  }
}

/**
 * nightlyBase picks what a nightly is compared with: the last nightly of the
 * same branch in the store when it is another commit this checkout has, else
 * the head's first parent (the previous merge on the branch).
 */
export async function nightlyBase(settings: Pick<PrCheckSettings, 'repo' | 'head' | 'repository' | 'branch' | 'nameSetting'>, store: Store | undefined): Promise<string> {
  const name = settings.nameSetting;
  const repo = openRepository(settings.repo, name);
  const headSha = resolveCommit(repo, settings.head, name('head'));
  const [last] = store ? await store.listRuns({ repo: settings.repository, branch: settings.branch, role: 'nightly', limit: 1 }) : [];
  if (last && last.sha !== headSha) {
    try {
      return resolveCommit(repo, last.sha, name('base'));
    } catch {
      // History was rewritten or the checkout is shallow; the parent still gives a comparison.
    }
  }
  try {
    return resolveCommit(repo, `${headSha}^`, name('base'));
  } catch {
    throw new SettingError(`${name('base')}: ${headSha.slice(0, 12)} has no parent in this checkout; fetch more history (actions/checkout with fetch-depth: 0) or give ${name('base')}`);
  }
}

/**
 * storedRuns are the two runs as stored: under `repository`, the head with
 * its branch; a nightly's head with role `nightly` (what the scan reads),
 * its base only this night's reference.
 */
export function storedRuns(run: Pick<RunAbResult, 'base' | 'head'>, settings: Pick<PrCheckSettings, 'repository' | 'branch' | 'nightly'>): IngestRun[] {
  const repo = settings.repository;
  return [{ ...run.base, repo }, { ...run.head, ...(settings.nightly ? { role: 'nightly' as const } : {}), repo, branch: settings.branch }];
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
