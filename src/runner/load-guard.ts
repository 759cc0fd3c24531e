import { RunnerError } from './git-checkout.ts';

/** DEFAULT_LOAD_WAIT_MS is how long waitForQuietMachine waits for the load to drop by default (5 minutes, `--load-wait`). */
export const DEFAULT_LOAD_WAIT_MS = 5 * 60_000;
/** DEFAULT_LOAD_POLL_MS is how often the load is read while waiting (5 s). */
export const DEFAULT_LOAD_POLL_MS = 5000;

/**
 * defaultMaxLoad is the `--max-load` default for a machine with this many
 * cores: 0.5 + 0.1 per core (0.7 on 2 cores, 1.3 on 8, 6.9 on 64), or 1 when
 * the core count is unknown. An idle machine sits well below 0.5; one other
 * busy process pushes the 1-minute average towards 1, which matters on a
 * small machine and less on a big one. The 1-minute average decays with a
 * one-minute time constant, so right after a build it takes about a minute
 * to fall from 2 to 0.7: check before building, or expect that wait.
 */
export function defaultMaxLoad(cores: number | undefined): number {
  if (cores === undefined || !(cores > 0)) return 1;
  return Math.round((0.5 + 0.1 * cores) * 100) / 100;
}

/** QuietMachineOptions configures waitForQuietMachine; readLoad and sleep are injected so tests need no clock. */
export interface QuietMachineOptions {
  /** Highest acceptable 1-minute load average; Infinity turns the guard off. */
  maxLoad: number;
  /** How long to wait for the load to drop before refusing, in ms. */
  timeoutMs: number;
  /** Time between readings, in ms; default DEFAULT_LOAD_POLL_MS. */
  pollMs?: number;
  /** readLoad returns the 1-minute load average where the benchmark runs (Executor.loadAverage), undefined when unknown. */
  readLoad: () => Promise<number | undefined> | number | undefined;
  /** sleep waits ms milliseconds; default setTimeout. */
  sleep?: (ms: number) => Promise<void>;
  /** onWait is told each time the load is too high and the guard is about to wait. */
  onWait?: (load: number, waitedMs: number) => void;
}

/** QuietMachine is what the guard saw when it let the run go: the last load reading (undefined when unknown) and the time it waited. */
export interface QuietMachine {
  load: number | undefined;
  waitedMs: number;
}

/**
 * waitForQuietMachine returns as soon as the load average is at most maxLoad
 * (or cannot be read: a machine without a load average is not refused).
 * Otherwise it polls until timeoutMs of waiting has passed and then throws a
 * RunnerError that says the load, the threshold, how long it waited and which
 * flags change it. The time waited is the sum of the sleeps, not the clock.
 */
export async function waitForQuietMachine(options: QuietMachineOptions): Promise<QuietMachine> {
  const pollMs = Math.max(1, options.pollMs ?? DEFAULT_LOAD_POLL_MS);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  let waitedMs = 0;
  if (options.maxLoad === Infinity) return { load: undefined, waitedMs };
  for (;;) {
    const load = await options.readLoad();
    if (load === undefined || !Number.isFinite(load) || load <= options.maxLoad) return { load, waitedMs };
    if (waitedMs >= options.timeoutMs) {
      throw new RunnerError(
        `the machine is busy: its 1-minute load average is ${load.toFixed(2)}, above --max-load ${options.maxLoad}, ` +
          `and stayed there for the ${formatSeconds(waitedMs)} benchbot waited (--load-wait ${formatSeconds(options.timeoutMs)}). ` +
          'Timings on a loaded machine are noisy: stop the other work, or raise --max-load or --load-wait.',
      );
    }
    options.onWait?.(load, waitedMs);
    const step = Math.min(pollMs, options.timeoutMs - waitedMs);
    await sleep(step);
    waitedMs += step;
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
