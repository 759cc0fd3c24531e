import { DEFAULT_LOAD_WAIT_MS } from '../runner/load-guard.ts';
import { DEFAULT_LOCK_WAIT_MS } from '../runner/machine-lock.ts';
import type { HoldOptions } from '../runner/hold-machine.ts';
import { secondsFlag, UsageError } from './usage-error.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/**
 * machine-flags: the flags that say how a measuring command shares the
 * machine (the machine lock and the load guard), parsed and documented once
 * for every command that measures: run, calibrate, bisect and bisect-oracle.
 * Their defaults are the runner's (load-guard.ts, machine-lock.ts), which
 * the action uses too.
 */

/** MACHINE_FLAG_OPTIONS are the parseArgs options of the machine flags. */
export const MACHINE_FLAG_OPTIONS = {
  'max-load': { type: 'string' },
  'load-wait': { type: 'string' },
  'lock-timeout': { type: 'string' },
} as const;

/** MACHINE_FLAGS_USAGE is the machine flags' part of a command's --help. */
export const MACHINE_FLAGS_USAGE = `  --max-load L            wait until the 1-minute load average is at most L (default: 0.5 + 10% of cores);
                          a load that is only the decaying tail of finished work (a build, the previous
                          job) does not count: the guard reads it for about 15 s and goes
  --load-wait S           how long to wait for a quiet machine, in seconds, then fail (default ${DEFAULT_LOAD_WAIT_MS / 1000})
  --lock-timeout S        how long to wait for another benchbot job's machine lock, in seconds (default ${DEFAULT_LOCK_WAIT_MS / 1000})`;

/** MachineFlags are the parsed machine flags; `maxLoad` undefined means the default for the machine's core count. */
export interface MachineFlags {
  maxLoad?: number;
  loadWaitMs: number;
  lockTimeoutMs: number;
}


/** parseMachineFlags validates the machine flags of parsed parseArgs values; errors name the flag. */
export function parseMachineFlags(values: Record<string, unknown>): MachineFlags {
  const text = values['max-load'];
  const maxLoad = text === undefined ? undefined : Number(text);
  if (maxLoad !== undefined && !(maxLoad > 0)) throw new UsageError(`--max-load ${String(text)}: give a positive load average, e.g. 1.5`);
  return {
    ...(maxLoad !== undefined ? { maxLoad } : {}),
    loadWaitMs: secondsFlag(values['load-wait'], '--load-wait', DEFAULT_LOAD_WAIT_MS),
    lockTimeoutMs: secondsFlag(values['lock-timeout'], '--lock-timeout', DEFAULT_LOCK_WAIT_MS),
  };
}

/** holdOptions turns machine flags into hold-machine.ts's options, which name them as the CLI's flags. */
export function holdOptions(flags: MachineFlags, nameSetting: NameSetting = cliSetting): HoldOptions {
  return { maxLoad: flags.maxLoad, loadWaitMs: flags.loadWaitMs, lockTimeoutMs: flags.lockTimeoutMs, nameSetting };
}
