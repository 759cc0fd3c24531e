import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { sampleTimes, summaryTime, UniqueNames } from './js-bench-common.ts';

/**
 * mitataReader reads mitata's (1.x) json format, what `run({ format: 'json' })`
 * prints (suites conventionally switch to it on a `--json` flag):
 * `{"layout":[{"name"}...],"benchmarks":[{"group","runs":[{"name","stats"|"error"}]}],"context":{...}}`.
 *
 * Each run (one per argument combination: `Array.from(10)`) is one
 * benchmark, named `<group> > <name>` when its group (`layout[group].name`)
 * has a name, else just its name; a name that occurs twice gets ` #2`. It is
 * metric `time` in `ns`, one value per sample from `stats.samples` (mitata
 * keeps them sorted and drops the two lowest and highest, so their order says
 * nothing about warm-up). With `samples: false` in the format options the
 * samples are null, and each run gives its `p50` (else `avg`) as one value,
 * with one `summary-only` warning per file. A run that threw (`error`) is an
 * error warning. `context.noop`, mitata's calibration of an empty function,
 * is not a benchmark and is not read; `context` gives the hints runtime
 * (`node 24.21.0`), arch and cpu. Heap and hardware counter statistics are
 * summaries and are not read.
 */
export const mitataReader: Reader = {
  format: 'mitata',
  description: "mitata's json format (run({ format: 'json' }))",

  sniff(head: string): boolean {
    return /^\s*\{\s*"layout"\s*:\s*\[/.test(head) && /"benchmarks"\s*:\s*\[/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.object(doc, '$');
    const layout = j.array(root.layout, 'layout');
    const benchmarks = j.array(root.benchmarks, 'benchmarks');
    const budget = new ReadBudget(file.path);
    const names = new UniqueNames();
    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    let summaryOnly = false;

    benchmarks.forEach((rawBench, b) => {
      const bpath = `benchmarks[${b}]`;
      const bench = j.object(rawBench, bpath);
      const group = groupName(j, layout, bench.group, `${bpath}.group`);
      j.array(bench.runs, `${bpath}.runs`).forEach((rawRun, r) => {
        const path = `${bpath}.runs[${r}]`;
        const run = j.object(rawRun, path);
        const given = j.string(run.name, `${path}.name`);
        if (given === '') j.fail(`${path}.name`, 'empty benchmark name');
        const name = names.name(group === undefined ? given : `${group} > ${given}`);
        budget.series();
        if (run.error !== undefined && run.error !== null) {
          const message = typeof run.error === 'object' ? (run.error as Record<string, unknown>).message : run.error;
          warnings.push({ benchmark: name, kind: 'error', message: `${name} failed${typeof message === 'string' && message !== '' ? `: ${message}` : ''}` });
          return;
        }
        const stats = j.object(run.stats, `${path}.stats`);
        const samples = sampleTimes(j, budget, stats.samples, `${path}.stats.samples`);
        if (samples !== undefined) {
          measurements.push({ benchmark: name, metric: 'time', unit: 'ns', better: 'lower', values: samples });
          return;
        }
        const statistic = stats.p50 !== undefined && stats.p50 !== null ? 'p50' : 'avg';
        measurements.push({ benchmark: name, metric: 'time', unit: 'ns', better: 'lower', values: [summaryTime(j, budget, stats[statistic], `${path}.stats.${statistic}`)] });
        summaryOnly = true;
      });
    });

    if (measurements.length === 0 && warnings.length === 0) j.fail('benchmarks', 'no benchmark runs (did the filter match none?)');
    if (summaryOnly) {
      warnings.push({
        kind: 'summary-only',
        message: `${file.path}: mitata printed no samples (format json with samples: false), so each benchmark contributes its median as one value; keep the samples for per-sample values`,
      });
    }
    return { measurements, warnings, hints: contextHints(root.context) };
  },
};

/** groupName is the name of the layout entry a benchmark points to, or undefined for an unnamed group. */
function groupName(j: JsonReader, layout: unknown[], index: unknown, path: string): string | undefined {
  if (index === undefined || index === null) return undefined;
  const i = j.number(index, path);
  if (!Number.isInteger(i) || i < 0 || i >= layout.length) j.fail(path, `${i} is not an index into layout (${layout.length} entries)`);
  const entry = j.object(layout[i], `layout[${i}]`);
  const name = j.optionalString(entry.name, `layout[${i}].name`);
  return name === undefined || name === '' ? undefined : name;
}

/** contextHints takes the runtime, arch and cpu from mitata's context; values of another type are ignored. */
function contextHints(context: unknown): FingerprintHints {
  const hints: FingerprintHints = {};
  if (context === null || typeof context !== 'object' || Array.isArray(context)) return hints;
  const c = context as Record<string, unknown>;
  if (typeof c.runtime === 'string') hints.runtime = typeof c.version === 'string' && c.version !== '' ? `${c.runtime} ${c.version}` : c.runtime;
  if (typeof c.arch === 'string') hints.arch = c.arch;
  const cpu = c.cpu;
  if (cpu !== null && typeof cpu === 'object' && typeof (cpu as Record<string, unknown>).name === 'string') hints.cpu = (cpu as Record<string, unknown>).name as string;
  return hints;
}
