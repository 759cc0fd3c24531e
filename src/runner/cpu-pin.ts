import type { Fingerprint } from '../model/fingerprint.ts';
import type { Executor } from './executor.ts';
import { RunnerError } from './git-checkout.ts';
import { shellQuote } from './local-executor.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

/**
 * cpu-pin: running the benchmark process on fixed CPUs with `taskset`.
 *
 * `--pin-cpu auto` (the default) pins to the CPUs the kernel isolated
 * (isolcpus=, /sys/devices/system/cpu/isolated) when there are any and
 * taskset exists: the machine set them aside for exactly this. Without
 * isolated CPUs it does not pin, because on a shared machine pinning to a
 * CPU that other work also uses forbids the scheduler to move the benchmark
 * away from it (bench/results/round-design-*.txt has the measurement that
 * decided this default). `--pin-cpu 1` or `2-3` pins to those CPUs;
 * `off` never pins.
 */

/** PIN_PATTERN is a taskset CPU list: numbers and ranges, comma-separated. */
const PIN_PATTERN = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

/** parsePinSetting validates `--pin-cpu`: `auto`, `off` or a CPU list. Returns undefined for anything else. */
export function parsePinSetting(text: string): string | undefined {
  const t = text.trim();
  if (t === 'auto' || t === 'off' || PIN_PATTERN.test(t)) return t;
  return undefined;
}

/**
 * resolvePin turns the setting into the CPU list to pin to, or undefined
 * for no pinning, asking the executor whether taskset exists there. An
 * explicit list without taskset is an error that says what to install.
 */
export async function resolvePin(setting: string | undefined, fingerprint: Fingerprint, executor: Executor, cwd: string, name: NameSetting = cliSetting): Promise<string | undefined> {
  if (setting === undefined || setting === 'off') return undefined;
  const isolated = fingerprint.isolatedCpus;
  const wanted = setting === 'auto' ? (isolated && PIN_PATTERN.test(isolated) ? isolated : undefined) : setting;
  if (wanted === undefined) return undefined;
  const probe = await executor.run(`taskset -c ${wanted} true`, { cwd, timeoutMs: 10_000 });
  if (probe.exitCode === 0) return wanted;
  if (setting === 'auto') return undefined;
  const why = probe.exitCode === 127 ? 'taskset is not installed (util-linux)' : (probe.stderr || probe.stdout).trim().split('\n')[0];
  throw new RunnerError(`${name('pin-cpu')} ${setting}: cannot pin there: ${why}; pick CPUs this machine has, or ${name('pin-cpu')} off`);
}

/** pinnedCommand runs a shell command under taskset so that every process it starts inherits the CPU list. */
export function pinnedCommand(command: string, cpus: string | undefined): string {
  return cpus === undefined ? command : `taskset -c ${cpus} sh -c ${shellQuote(command)}`;
}
