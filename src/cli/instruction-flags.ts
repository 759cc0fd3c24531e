import { compileNameFilter, NameFilterError, type NameFilter } from '../compare/name-filter.ts';
import { DEFAULT_COUNT_REPEATS, LAYOUT_SAMPLED_REPEATS, type InstructionSettings } from '../runner/valgrind-count.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';
import { UsageError, wholeFlag } from './usage-error.ts';

/** INSTRUCTION_FLAG_OPTIONS are the parseArgs options of instruction counting, shared by run, nightly and bisect. */
export const INSTRUCTION_FLAG_OPTIONS = {
  instructions: { type: 'boolean' }, 'instructions-filter': { type: 'string' }, 'instructions-repeats': { type: 'string' }, 'instructions-iterations': { type: 'string' },
} as const;

/** INSTRUCTION_FLAGS_USAGE documents {@link INSTRUCTION_FLAG_OPTIONS}; `repeats` is the command's own number of counts per side, when it has one (else the harness's). */
export function instructionFlagsUsage(repeats?: number): string {
  return `  --instructions          also count each benchmark's work under valgrind (instructions and estimated_cycles per
                          iteration, a fixed iteration schedule) after the wall-time rounds; docs/instructions.md
  --instructions-filter P only count the benchmarks whose name matches P (RE2 regular expression; default all)
  --instructions-repeats N
                          counts per side (default ${repeats ?? `${DEFAULT_COUNT_REPEATS}; ${LAYOUT_SAMPLED_REPEATS} for pytest-benchmark, each
                          in another memory layout`})
  --instructions-iterations N
                          iterations of the fixed schedule (default: Go 1000, Google Benchmark 100 from 1.8,
                          pytest-benchmark 10, else 1)`;
}

type InstructionValues = { instructions?: boolean; counters?: boolean } & Partial<Record<'instructions-filter' | 'instructions-repeats' | 'instructions-iterations', string>>;

/**
 * parseInstructionFlags reads --instructions and its companions; the
 * companions alone are refused (they would silently count nothing), and so
 * is --counters beside --instructions: perf's whole-process `instructions`
 * and the per-benchmark count would share a metric name and mean different
 * things (model/work-metrics.ts), and where the machine has a PMU the
 * counted run is the better measurement of the two anyway.
 */
export function parseInstructionFlags(v: InstructionValues, repeats?: number, name: NameSetting = cliSetting): InstructionSettings | undefined {
  const companions = (['instructions-filter', 'instructions-repeats', 'instructions-iterations'] as const).filter((f) => v[f] !== undefined);
  if (v.instructions !== true) {
    if (companions.length > 0) throw new UsageError(`${name(companions[0])} needs ${name('instructions')}`);
    return undefined;
  }
  if (v.counters === true) throw new UsageError(`${name('counters')} and ${name('instructions')}: choose one; ${name('instructions')} counts each benchmark's work under valgrind on any machine, ${name('counters')} reads perf stat for the whole command where the machine has a PMU`);
  let filter: NameFilter | undefined;
  const pattern = v['instructions-filter'];
  if (pattern !== undefined) {
    try {
      filter = compileNameFilter(pattern);
    } catch (error) {
      if (!(error instanceof NameFilterError)) throw error;
      throw new UsageError(`${name('instructions-filter')} ${JSON.stringify(pattern)}: ${error.message}`);
    }
  }
  const iterations = v['instructions-iterations'] === undefined ? undefined : wholeFlag(v['instructions-iterations'], name('instructions-iterations'), 1);
  // Without the flag and a command's own default, the count resolves it by harness (valgrind-count.ts defaultCountRepeats).
  const given = v['instructions-repeats'] === undefined ? repeats : wholeFlag(v['instructions-repeats'], name('instructions-repeats'), 1);
  return { ...(filter ? { filter } : {}), ...(given !== undefined ? { repeats: given } : {}), ...(iterations !== undefined ? { iterations } : {}) };
}
