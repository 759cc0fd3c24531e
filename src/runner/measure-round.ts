import { join } from 'node:path';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { readSource } from '../formats/detect.ts';
import { FormatError } from '../formats/format-error.ts';
import type { Executor } from './executor.ts';
import type { StrayProcess } from './stray-processes.ts';
import { shellQuote } from './local-executor.ts';
import { parsePerfStatCsv, perfStatPrefix } from './perf-counters.ts';
import { readBoundedFile, readBoundedFileBytes } from './read-bounded-text.ts';
import { pinnedCommand } from './cpu-pin.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { parseResultBundle, readResultDirectory, RESULT_BUNDLE, wrapForResultDirectory } from './result-directory.ts';

/**
 * RoundSettings say how one round runs: the bench command, its output
 * format (`command` times it through hyperfine), where its results are
 * (stdout or resultFile: a file, or criterion's result directory, of which
 * a round reads only what it wrote; see result-directory.ts), its timeout,
 * perf counters, extra environment.
 */
export interface RoundSettings {
  bench: string;
  format?: string;
  resultFile?: string;
  roundTimeoutMs: number;
  counters?: boolean;
  env?: Record<string, string>;
  /** pin is the CPU list the round runs on (taskset), resolved by cpu-pin.ts; undefined does not pin. */
  pin?: string;
  /** nameSetting spells the settings messages name (`round-timeout`, `counters`, `result-file`); default the CLI's flags. */
  nameSetting?: NameSetting;
}

/**
 * strayWarning says that the bench command left processes running after its
 * round (which benchbot killed), by their names, the same every round so
 * that a daemon started each round is one warning. Names are the command's
 * text, shown as inert as every warning.
 */
function strayWarning(strays: readonly StrayProcess[] | undefined): ReadWarning | undefined {
  if (strays === undefined || strays.length === 0) return undefined;
  const names = [...new Set(strays.map((s) => s.name))].sort();
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
  return { message: `the bench command left processes running after its round (${shown}), outside its process group; benchbot killed them. A process that outlives its round disturbs the next one, and on a persistent runner one that outlives the job can read later jobs' files and environment` };
}

/** NO_PERF is what the counters file says when perf is not installed. */
const NO_PERF = '# perf: not installed';

/** RoundFailureInfo is why a round produced no usable numbers. */
export interface RoundFailureInfo {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  message: string;
}

/** RoundOutcome is one round's numbers, or why there are none. */
export type RoundOutcome = { failure: RoundFailureInfo } | { format: string; measurements: Measurement[]; warnings: ReadWarning[]; hints: FingerprintHints; durationMs: number };

/**
 * measureRound runs the bench command once in dir (through the executor)
 * and reads its numbers; `tag` names the round in messages and scratch
 * files. A crash, a timeout or unreadable output is a failure, not an error.
 */
export async function measureRound(settings: RoundSettings, executor: Executor, dir: string, scratch: string, tag: string): Promise<RoundOutcome> {
  const timing = settings.format === 'command';
  const name = settings.nameSetting ?? cliSetting;
  const hyperfineFile = '.benchbot-hyperfine.json';
  const perfFile = '.benchbot-perf.csv';
  let command = timing
    ? `hyperfine --runs 1 --warmup 0 --style none --export-json ${hyperfineFile} -- ${shellQuote(settings.bench)}`
    : settings.bench;
  // Without perf the round still runs, and the file says why there are no counters.
  if (settings.counters) command = `if command -v perf >/dev/null 2>&1; then ${perfStatPrefix(perfFile)} sh -c ${shellQuote(command)}; else echo '${NO_PERF}' > ${perfFile}; sh -c ${shellQuote(command)}; fi`;
  command = pinnedCommand(command, settings.pin);
  // Whether resultFile is a directory is known only where the round runs, after it ran: the wrapper finds out there.
  const resultFile = timing || !settings.resultFile ? undefined : settings.resultFile;
  if (resultFile !== undefined) command = wrapForResultDirectory(command, resultFile);
  const result = await executor.run(command, { cwd: dir, timeoutMs: settings.roundTimeoutMs, env: settings.env });
  const strays = strayWarning(result.strays);
  const fail = (message: string): RoundOutcome => ({ failure: { exitCode: result.exitCode, signal: result.signal, timedOut: result.timedOut, message: strays === undefined ? message : `${message}; ${strays.message}` } });
  if (result.timedOut) return fail(`timed out after ${Math.round(settings.roundTimeoutMs / 1000)} s (${name('round-timeout')})`);
  if (result.exitCode !== 0) {
    const tail = (result.stderr || result.stdout).trimEnd().split('\n').slice(-5).join(' | ');
    const hint = result.exitCode === 127 ? ' (command not found: is the tool installed where the benchmark runs?)' : '';
    return fail(`exit code ${result.exitCode ?? result.signal}${hint}: ${tail}`);
  }
  const fetchLocal = async (remote: string): Promise<string> => {
    const local = join(scratch, `${tag}-${remote}`.replace(/[^\w.-]/g, '_'));
    await executor.fetch(remote.startsWith('/') ? remote : `${dir}/${remote}`, local);
    return local;
  };
  // Reading is bounded in bytes (stat first) and every reader is linear in
  // its input, so a hostile result file costs at most seconds after the
  // round, never a hang or a crash: stdout is capped by the executor
  // (64 MiB), files here by MAX_INPUT_BYTES (input-limits.ts).
  const fetchText = async (remote: string): Promise<string> => readBoundedFile(await fetchLocal(remote), `${remote} (${tag})`);
  try {
    let read;
    if (resultFile !== undefined) {
      const bundle = parseResultBundle(readBoundedFileBytes(await fetchLocal(RESULT_BUNDLE), `${RESULT_BUNDLE} (${tag})`), resultFile, name);
      read =
        bundle.kind === 'directory'
          ? readResultDirectory(bundle.files, resultFile, settings.format, name)
          : readSource({ path: `${tag} output`, text: await fetchText(resultFile) }, settings.format);
    } else {
      read = readSource({ path: `${tag} output`, text: timing ? await fetchText(hyperfineFile) : result.stdout }, timing ? 'hyperfine' : settings.format);
    }
    const measurements = timing ? read.measurements.map((m) => ({ ...m, benchmark: 'command' })) : read.measurements;
    const warnings = [...read.warnings];
    if (strays !== undefined) warnings.push(strays);
    if (settings.counters) {
      // Counters are where the machine has them (README): a machine without them measures times and says so.
      const csv = await fetchText(perfFile);
      const counters = parsePerfStatCsv(csv);
      if (csv.startsWith(NO_PERF)) warnings.push({ message: `${name('counters')}: perf is not installed where the benchmark runs (Debian: linux-perf); measured without counters` });
      else if (counters.unsupported.length > 0) warnings.push({ message: `${name('counters')}: perf stat cannot read ${counters.unsupported.join(', ')} on this machine (common in VMs and containers); measured without ${counters.measurements.length === 0 ? 'counters' : 'those'}` });
      measurements.push(...counters.measurements);
    }
    if (measurements.length === 0) return fail('the output has no measurements');
    return { format: read.format, measurements, warnings, hints: read.hints, durationMs: result.durationMs };
  } catch (error) {
    if (error instanceof FormatError) return fail(`printed nothing benchbot can read: ${error.message}`);
    throw error;
  }
}
