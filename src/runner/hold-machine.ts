import type { Executor } from './executor.ts';
import { defaultMaxLoad, waitForQuietMachine } from './load-guard.ts';
import { acquireMachineLock, type MachineLock } from './machine-lock.ts';
import type { Progress } from './progress.ts';
import type { NameSetting } from '../jobs/setting-names.ts';

/** lockMachine takes the machine lock, saying in the log whom it waits for. */
export function lockMachine(progress: Progress, timeoutMs?: number, nameSetting?: NameSetting): Promise<MachineLock> {
  return acquireMachineLock(undefined, {
    timeoutMs,
    nameSetting,
    onWait: (holder) => progress.note(`waiting for the machine lock held by ${holder ? `pid ${holder.pid}` : 'another job'}`),
  });
}

/**
 * HoldOptions: `maxLoad` undefined means 0.5 + 10% of the cores (defaultMaxLoad);
 * `nameSetting` spells the settings that change the guard (`max-load`,
 * `load-wait`, `lock-timeout`) in the log and the errors, as the adapter does.
 * The defaults of `loadWaitMs` and `lockTimeoutMs` are DEFAULT_LOAD_WAIT_MS
 * and DEFAULT_LOCK_WAIT_MS, which every measuring command and the action use.
 */
export interface HoldOptions {
  maxLoad: number | undefined;
  loadWaitMs: number;
  lockTimeoutMs?: number;
  nameSetting: NameSetting;
}

/**
 * holdMachine is RunAbDeps.holdMachine for an executor: take the machine lock,
 * then wait (bounded) for a quiet machine; the lock is released again when
 * the machine stays busy.
 */
export function holdMachine(executor: Executor, progress: Progress, options: HoldOptions): (cores: number | undefined) => Promise<() => void> {
  return async (cores) => {
    const lock = await lockMachine(progress, options.lockTimeoutMs, options.nameSetting);
    const maxLoad = options.maxLoad ?? defaultMaxLoad(cores);
    try {
      let told = -Infinity;
      const quiet = await waitForQuietMachine({
        maxLoad,
        timeoutMs: options.loadWaitMs,
        readLoad: () => executor.loadAverage(),
        tail: true,
        nameSetting: options.nameSetting,
        // The load is read every second: say so when the wait starts and every 30 s, not at every reading.
        onWait: (load, waitedMs) => {
          if (waitedMs - told < 30_000) return;
          told = waitedMs;
          progress.note(`load average ${load} is above ${maxLoad}; waiting up to ${Math.round(options.loadWaitMs / 1000)} s for a quiet machine (${options.nameSetting('max-load')}, ${options.nameSetting('load-wait')})`);
        },
      });
      if (quiet.activity !== undefined) {
        progress.note(`load average ${quiet.load} is the tail of work that has ended (about ${quiet.activity} task(s) busy now); measuring without waiting for it to fall below ${maxLoad}`);
      }
    } catch (error) {
      lock.release();
      throw error;
    }
    return () => lock.release();
  };
}
