import { RunnerError } from './git-checkout.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/** DEFAULT_LOAD_WAIT_MS is how long waitForQuietMachine waits for the load to drop by default (5 minutes, `--load-wait`). */
export const DEFAULT_LOAD_WAIT_MS = 5 * 60_000;
/** DEFAULT_LOAD_POLL_MS is how often the load is read while waiting (5 s; 1 s when the guard looks for a decaying tail). */
export const DEFAULT_LOAD_POLL_MS = 5000;

/** KERNEL_UPDATE_MS is how often Linux recomputes its load averages (LOAD_FREQ, 5 s). */
export const KERNEL_UPDATE_MS = 5000;
/** DECAY_1MIN is the factor the 1-minute average keeps at each update: e^(-5 s / 60 s). */
const DECAY_1MIN = Math.exp(-KERNEL_UPDATE_MS / 60_000);
/** TAIL_UPDATES is how many kernel updates the guard reads before it calls a high load a tail (about 15 s). */
export const TAIL_UPDATES = 3;

/**
 * activityFromDecay is the number of tasks running (or in uninterruptible
 * sleep) at one kernel update, recovered from the 1-minute average before
 * and after it: after = before·e^(-5/60) + active·(1 − e^(-5/60)). A machine
 * that went idle shows about 0 while its average is still high.
 */
export function activityFromDecay(before: number, after: number): number {
  return Math.max(0, (after - before * DECAY_1MIN) / (1 - DECAY_1MIN));
}

/**
 * defaultMaxLoad is the `--max-load` default for a machine with this many
 * cores: 0.5 + 0.1 per core (0.7 on 2 cores, 1.3 on 8, 6.9 on 64), or 1 when
 * the core count is unknown. An idle machine sits well below 0.5; one other
 * busy process pushes the 1-minute average towards 1, which matters on a
 * small machine and less on a big one. The 1-minute average decays with a
 * one-minute time constant, so right after a build (or the previous job) it
 * takes about a minute to fall from 2 to 0.7; the guard does not wait for
 * that when it can tell the load is only the tail of work that has ended
 * (QuietMachineOptions.tail).
 */
export function defaultMaxLoad(cores: number | undefined): number {
  if (cores === undefined || !(cores > 0)) return 1;
  return Math.round((0.5 + 0.1 * cores) * 100) / 100;
}

/** QuietMachineOptions configures waitForQuietMachine; readLoad and sleep are injected so tests need no clock. */
export interface QuietMachineOptions {
  /** nameSetting spells `max-load` and `load-wait` in the error (default: the CLI's flags). */
  nameSetting?: NameSetting;
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
  /**
   * tail lets the guard go while the average is still above maxLoad when it
   * is only the decaying tail of work that ended (a build, the previous
   * job): it reads the load at least every second, takes each change of the
   * reading as one kernel update, and when the activity behind the last
   * TAIL_UPDATES updates (activityFromDecay) averages at most maxLoad, the
   * machine is quiet now. A reading that does not move for two update
   * intervals is a steady load: that is the activity.
   */
  tail?: boolean;
}

/**
 * QuietMachine is what the guard saw when it let the run go: the last load
 * reading (undefined when unknown) and the time it waited; `activity` is
 * set when it went on a decaying tail, the estimated number of busy tasks.
 */
export interface QuietMachine {
  load: number | undefined;
  waitedMs: number;
  activity?: number;
}

/**
 * waitForQuietMachine returns as soon as the load average is at most maxLoad
 * (or cannot be read: a machine without a load average is not refused).
 * Otherwise it polls until timeoutMs of waiting has passed and then throws a
 * RunnerError that says the load, the threshold, how long it waited and which
 * flags change it. The time waited is the sum of the sleeps, not the clock.
 */
export async function waitForQuietMachine(options: QuietMachineOptions): Promise<QuietMachine> {
  const tail = options.tail === true;
  const pollMs = Math.max(1, options.pollMs ?? (tail ? 1000 : DEFAULT_LOAD_POLL_MS));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((done) => setTimeout(done, ms)));
  let waitedMs = 0;
  if (options.maxLoad === Infinity) return { load: undefined, waitedMs };
  // The tail: the last reading, when it last changed, and the activity behind each kernel update seen since.
  let last: { load: number; at: number } | undefined;
  const activity: number[] = [];
  for (;;) {
    const load = await options.readLoad();
    if (load === undefined || !Number.isFinite(load) || load <= options.maxLoad) return { load, waitedMs };
    // Two updates between readings (a slow read) would make one change look like one update: such pairs are not used.
    if (tail && pollMs < KERNEL_UPDATE_MS) {
      if (last === undefined) last = { load, at: waitedMs };
      else if (load !== last.load) {
        if (waitedMs - last.at <= KERNEL_UPDATE_MS + pollMs) activity.push(activityFromDecay(last.load, load));
        last = { load, at: waitedMs };
      } else if (waitedMs - last.at >= 2 * KERNEL_UPDATE_MS) {
        activity.push(load);
        last = { load, at: waitedMs };
      }
      const recent = activity.slice(-TAIL_UPDATES);
      const busy = recent.reduce((a, b) => a + b, 0) / recent.length;
      if (recent.length === TAIL_UPDATES && busy <= options.maxLoad) return { load, waitedMs, activity: Math.round(busy * 100) / 100 };
    }
    if (waitedMs >= options.timeoutMs) {
      const name = options.nameSetting ?? cliSetting;
      throw new RunnerError(
        `the machine is busy: its 1-minute load average is ${load.toFixed(2)}, above ${name('max-load')} ${options.maxLoad}, ` +
          `and stayed there for the ${formatSeconds(waitedMs)} benchbot waited (${name('load-wait')} ${formatSeconds(options.timeoutMs)}). ` +
          `Timings on a loaded machine are noisy: stop the other work, or raise ${name('max-load')} or ${name('load-wait')}.`,
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
