import type { Executor } from './executor.ts';
import { defaultMaxLoad, waitForQuietMachine } from './load-guard.ts';
import { acquireMachineLock, type MachineLock } from './machine-lock.ts';
import type { Progress } from './progress.ts';

/** lockMachine takes the machine lock, saying in the log whom it waits for. */
export function lockMachine(progress: Progress, timeoutMs?: number): Promise<MachineLock> {
  return acquireMachineLock(undefined, {
    timeoutMs,
    onWait: (holder) => progress.note(`waiting for the machine lock held by ${holder ? `pid ${holder.pid}` : 'another job'}`),
  });
}

/**
 * HoldOptions: `maxLoad` undefined means 0.5 + 10% of the cores;
 * `settingHint` names the flags or inputs that change the guard, for the log.
 */
export interface HoldOptions {
  maxLoad: number | undefined;
  loadWaitMs: number;
  lockTimeoutMs?: number;
  settingHint: string;
}

/**
 * holdMachine is RunAbDeps.holdMachine for an executor: take the machine lock,
 * then wait (bounded) for a quiet machine; the lock is released again when
 * the machine stays busy.
 */
export function holdMachine(executor: Executor, progress: Progress, options: HoldOptions): (cores: number | undefined) => Promise<() => void> {
  return async (cores) => {
    const lock = await lockMachine(progress, options.lockTimeoutMs);
    try {
      await waitForQuietMachine({
        maxLoad: options.maxLoad ?? defaultMaxLoad(cores),
        timeoutMs: options.loadWaitMs,
        readLoad: () => executor.loadAverage(),
        onWait: (load) => progress.note(`load average ${load} is above the limit; waiting (${options.settingHint})`),
      });
    } catch (error) {
      lock.release();
      throw error;
    }
    return () => lock.release();
  };
}
