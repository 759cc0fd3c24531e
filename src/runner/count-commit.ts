import { join } from 'node:path';
import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { builtDirectory, type MeasureDeps, type MeasureSettings } from './measure-commit.ts';
import { measureRound } from './measure-round.ts';
import { countInstructions, type InstructionSettings } from './valgrind-count.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * count-commit: the work of one commit, counted under valgrind in its own
 * worktree (checked out and built as a bisect session's arms are), for the
 * bisections that follow counted work. A count does not see the machine,
 * so a commit is counted on its own, never interleaved with others.
 */

/**
 * CountTarget says what to count: the harness `format` the wall-time
 * rounds read (`go`, `google-benchmark`, `command`) and the benchmark
 * `names` as they named them, the instruction settings, how many
 * `repeats`, and `keepDir` for the callgrind files.
 */
export interface CountTarget {
  format: string;
  names: readonly string[];
  instructions: InstructionSettings;
  repeats: number;
  keepDir: string;
}

/** CountedCommit is a commit's counts (every benchmark counted, its metrics `instructions` and `estimated_cycles`) and the reasons for those that could not be, or `skip` when it cannot be built. */
export type CountedCommit = { skip?: undefined; measurements: Measurement[]; reasons: ReadWarning[]; durationMs: number } | { skip: string };

/**
 * harnessOf runs one wall-time round of `sha` (no warm-up) to learn what
 * the counting needs and the wall-time rounds know: the harness format
 * (detected unless `settings.format` names it) and the benchmark names.
 */
export async function harnessOf(repo: string, sha: string, stateDir: string, settings: MeasureSettings, deps: MeasureDeps): Promise<{ format: string; names: string[] } | { skip: string }> {
  if (settings.format === 'command') return { format: 'command', names: ['command'] };
  const built = await builtDirectory(repo, sha, stateDir, settings, deps);
  if ('skip' in built) return built;
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-harness-'));
  try {
    const round = await measureRound(settings, deps.executor, built.dir, scratch, `${sha.slice(0, 12)} harness round`);
    if ('failure' in round) return { skip: `a round failed: ${round.failure.message}` };
    return { format: round.format, names: [...new Set(round.measurements.map((m) => m.benchmark))] };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** countCommit counts the work of `target.names` at `sha`, `target.repeats` times each (countInstructions). */
export async function countCommit(repo: string, sha: string, stateDir: string, settings: MeasureSettings, target: CountTarget, deps: MeasureDeps): Promise<CountedCommit> {
  const built = await builtDirectory(repo, sha, stateDir, settings, deps);
  if ('skip' in built) return built;
  const counted = await countInstructions({
    bench: settings.bench, format: target.format, names: target.names, repeats: target.repeats, filter: target.instructions.filter,
    ...(target.instructions.iterations !== undefined ? { iterations: target.instructions.iterations } : {}),
    timeoutMs: settings.roundTimeoutMs, env: settings.env, keepDir: target.keepDir,
  }, deps.executor, built.dir, sha.slice(0, 12));
  return { measurements: counted.measurements, reasons: counted.reasons, durationMs: counted.durationMs };
}
