import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RESULTS_FILES } from '../jobs/results-artifact.ts';
import { MAX_RECOMPUTED_SERIES, recomputeAndRender, ReportShapeError, type BenchMeta, type RecomputedBench } from './bench-report.ts';
import { readZipTexts, ZipError } from './read-zip.ts';
import { MAX_ARTIFACT_PROFILES, PROFILES_MANIFEST, profileFileName } from '../formats/profile-artifact.ts';
import { knownGroupSequentialLevels, rememberGroupSequentialLevels, type KnownLevels } from '../stats/sequential-alpha.ts';

/**
 * The app's recompute of a `/bench` report runs in a worker thread: inflating
 * the artifact's two sample files (up to 32 MiB each), parsing them and
 * comparing thousands of series takes seconds, and on the app's one thread
 * it held every other delivery (the audit's 120,000 series kept one waiting
 * 43-163 s; GitHub gives up after 10 s). One recompute runs at a time (the
 * others wait their turn) in one worker kept warm between them, which is
 * replaced when a recompute passes its time budget or heap limit.
 */

/**
 * RECOMPUTE_TIME_BUDGET_MS is how long one recompute may run, 60 s: the
 * audit's 120,000-benchmark artifact, capped at MAX_RECOMPUTED_SERIES, took
 * about 9 s on a shared two-core machine (inflating and parsing 24 MB
 * included). Past it the worker is ended and the comment says the report
 * was not recomputed in time.
 */
export const RECOMPUTE_TIME_BUDGET_MS = 60_000;

/**
 * RECOMPUTE_HEAP_MB is the worker's heap limit, 512 MiB: the largest input
 * the readers take (two 32 MiB sample files of 450,000 one-value series)
 * recomputed in a 400 MiB heap. A worker past it is stopped, not the app.
 */
export const RECOMPUTE_HEAP_MB = 512;

/** RecomputeLimits override the series cap, the time budget and the heap limit (tests use small ones). */
export interface RecomputeLimits {
  maxSeries?: number;
  timeBudgetMs?: number;
  heapMb?: number;
}

/**
 * RecomputeTask is one `/bench` report to recompute: the report artifact's
 * zip archive as downloaded (read in the worker), the dispatched inputs, and
 * what the comment says around the report.
 */
export interface RecomputeTask {
  zip: Uint8Array;
  args: Readonly<Record<string, string>>;
  meta: BenchMeta;
}

/** RecomputeBudgetError says a recompute passed its time budget or its heap limit (and was stopped). */
export class RecomputeBudgetError extends Error {
  override name = 'RecomputeBudgetError';
}

/**
 * WorkerReply is what the worker posts back: the rendered report (null when
 * the archive lacks a sample file), or why there is none: `unreadable` for a
 * malformed archive or sample file (ZipError, ReportShapeError), `failed`
 * for anything else.
 */
export type WorkerReply = ({ ok: true; result: RecomputedBench | null } | { ok: false; kind: 'unreadable' | 'failed'; message: string }) & { levels?: KnownLevels };

/**
 * WORKER_URL is the worker's entry file: the TypeScript source beside this
 * one when Node runs the sources, and dist/bench-recompute-worker.js when
 * this code runs bundled in dist/benchbot.js (scripts/build.ts bundles the
 * worker as its own entry; esbuild leaves `new URL(…, import.meta.url)` as
 * written, and in the bundle import.meta.url is dist/benchbot.js).
 */
const WORKER_URL = new URL(import.meta.url.endsWith('.ts') ? './bench-recompute-worker.ts' : './bench-recompute-worker.js', import.meta.url);

/**
 * workerFile is the worker's entry as a path, or undefined where there is no
 * such file (a packaging that left it out, an executable with the bundle
 * inside): then the recompute runs on the app's thread, still capped, and
 * createRecomputer's caller is told once (onFallback).
 */
function workerFile(): string | undefined {
  if (WORKER_URL.protocol !== 'file:') return undefined;
  const path = fileURLToPath(WORKER_URL);
  return existsSync(path) ? path : undefined;
}

/**
 * createRecomputer returns recompute(task): the rendered report, computed in
 * a worker thread, one at a time, within the time budget; null when the
 * archive lacks base.json or head.json. It rejects with ReportShapeError
 * when the archive or a sample file is malformed, RecomputeBudgetError when
 * the budget ran out, and an Error when the worker failed otherwise.
 */
export function createRecomputer(limits: RecomputeLimits = {}, onFallback: (missing: string) => void = () => undefined): (task: RecomputeTask) => Promise<RecomputedBench | null> {
  const maxSeries = limits.maxSeries ?? MAX_RECOMPUTED_SERIES;
  const budget = { ms: limits.timeBudgetMs ?? RECOMPUTE_TIME_BUDGET_MS, heapMb: limits.heapMb ?? RECOMPUTE_HEAP_MB };
  const file = workerFile();
  if (file === undefined) onFallback(WORKER_URL.href);
  const worker = file === undefined ? undefined : warmWorker(file, budget);
  let turn: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = turn.then(() => (worker === undefined ? inThread({ ...task, maxSeries }) : worker.run({ ...task, maxSeries })));
    turn = run.catch(() => undefined);
    return run;
  };
}

/**
 * RECOMPUTE_WORKER_IDLE_MS is how long the worker is kept once idle, 60 s:
 * starting one costs 0.5-0.9 s with the TypeScript sources (type stripping
 * every module again), which a report of two benchmarks should not wait for
 * when another came just before; an idle app holds no worker.
 */
const RECOMPUTE_WORKER_IDLE_MS = 60_000;

/**
 * warmWorker keeps one worker for task after task: started on the first,
 * ended after RECOMPUTE_WORKER_IDLE_MS without one, and replaced after a
 * task that passed the time budget (terminated), the heap limit, or crashed
 * it. It never keeps the process alive (unref). Tasks come one at a time.
 */
function warmWorker(file: string, budget: { ms: number; heapMb: number }): { run(task: RecomputeTask & { maxSeries: number }): Promise<RecomputedBench | null> } {
  let worker: Worker | undefined;
  let started: Promise<Error | null> | undefined;
  let idle: NodeJS.Timeout | undefined;
  const retire = (w: Worker) => {
    if (worker === w) worker = started = undefined;
    void w.terminate();
  };
  const start = (w: Worker) => new Promise<Error | null>((resolve) => {
    // The entry posts READY once its modules are loaded; a worker that dies first says why.
    const onReady = (m: unknown) => m === READY && finish(null);
    const onError = (error: Error) => finish(error);
    const onExit = (code: number) => finish(new Error(`the /bench recompute worker exited with code ${code} while starting`));
    const finish = (error: Error | null) => {
      w.off('message', onReady).off('error', onError).off('exit', onExit);
      if (error !== null) retire(w);
      resolve(error);
    };
    w.on('message', onReady).on('error', onError).on('exit', onExit);
  });
  return {
    run: async (task) => {
      clearTimeout(idle);
      if (worker === undefined) {
        worker = new Worker(file, { resourceLimits: { maxOldGenerationSizeMb: budget.heapMb } });
        worker.unref();
        started = start(worker);
      }
      const w = worker;
      // The budget is the recompute's: starting a worker (0.5-0.9 s with the TypeScript sources) is not counted.
      const failed = await started;
      if (failed) throw failed;
      return new Promise((resolve, reject) => {
        const settle = (fn: () => void, keep: boolean) => {
          clearTimeout(timer);
          w.off('message', onMessage).off('error', onError).off('exit', onExit);
          if (keep) idle = setTimeout(() => retire(w), RECOMPUTE_WORKER_IDLE_MS).unref();
          else retire(w);
          fn();
        };
        const timer = setTimeout(() => settle(() => reject(new RecomputeBudgetError(`the report was not recomputed within the app's ${budget.ms / 1000} s budget`)), false), budget.ms);
        const onMessage = (reply: WorkerReply) => settle(() => {
          rememberGroupSequentialLevels(reply.levels);
          if (reply.ok) resolve(reply.result);
          else reject(replyError(reply));
        }, true);
        const onError = (error: Error & { code?: string }) => settle(() => reject(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? new RecomputeBudgetError(`the report needed more than the app's ${budget.heapMb} MiB of memory to recompute`) : error), false);
        const onExit = (code: number) => settle(() => reject(new Error(`the /bench recompute worker exited with code ${code} before answering`)), false);
        w.on('message', onMessage).on('error', onError).on('exit', onExit);
        // The archive's bytes move to the worker rather than being copied (up to 96 MiB).
        const whole = task.zip.byteOffset === 0 && task.zip.byteLength === task.zip.buffer.byteLength && task.zip.buffer instanceof ArrayBuffer;
        const zip = whole ? task.zip : task.zip.slice();
        // The group-sequential levels memo goes in and comes back: computing them is 100-500 ms of a fresh worker's CPU per report.
        w.postMessage({ ...task, zip, levels: knownGroupSequentialLevels() }, [zip.buffer as ArrayBuffer]);
      });
    },
  };
}

/** READY is what the worker entry posts once its modules are loaded. */
export const READY = 'benchbot-recompute-worker-ready';

async function inThread(task: RecomputeTask & { maxSeries: number }): Promise<RecomputedBench | null> {
  const reply = runRecomputeTask(task);
  if (reply.ok) return reply.result;
  throw replyError(reply);
}

function replyError(reply: Extract<WorkerReply, { ok: false }>): Error {
  return reply.kind === 'unreadable' ? new ReportShapeError(reply.message) : new Error(`recomputing the /bench report failed: ${reply.message}`);
}

/**
 * runRecomputeTask is the worker's whole job: read the sample files from the
 * archive and recomputeAndRender them, with a malformed artifact as a reply,
 * not a crash.
 */
export function runRecomputeTask(task: RecomputeTask & { maxSeries: number; levels?: KnownLevels }): WorkerReply {
  rememberGroupSequentialLevels(task.levels);
  return { ...recomputeReply(task), levels: knownGroupSequentialLevels() };
}

function recomputeReply(task: RecomputeTask & { maxSeries: number }): WorkerReply {
  try {
    const profileFiles = Array.from({ length: MAX_ARTIFACT_PROFILES }, (_, i) => [profileFileName(i, 'base'), profileFileName(i, 'head')]).flat();
    const files = readZipTexts(task.zip, [RESULTS_FILES.base, RESULTS_FILES.head, PROFILES_MANIFEST, ...profileFiles]);
    const base = files[RESULTS_FILES.base];
    const head = files[RESULTS_FILES.head];
    if (base === null || head === null) return { ok: true, result: null };
    // The profiles' callgrind files, if the measuring job made any: diffed again for what this recomputation finds regressed.
    const profiles = { manifest: files[PROFILES_MANIFEST], file: (name: string) => files[name] ?? null };
    return { ok: true, result: recomputeAndRender({ base, head, profiles }, task.args, task.meta, task.maxSeries) };
  } catch (error) {
    const unreadable = error instanceof ReportShapeError || error instanceof ZipError;
    return { ok: false, kind: unreadable ? 'unreadable' : 'failed', message: (error as Error)?.message ?? String(error) };
  }
}
