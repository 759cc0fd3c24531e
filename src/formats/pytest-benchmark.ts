import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';

/**
 * pytestBenchmarkReader reads pytest-benchmark JSON: the `--benchmark-json`
 * report, or a file that `--benchmark-save`/`--benchmark-autosave` stored.
 *
 * Each entry of `benchmarks` is one benchmark named by its `fullname`, the
 * pytest node id (`tests/test_x.py::test_sort[100]`), which holds the file,
 * the test and its parameters and is unique in a session; `group` is not part
 * of the name. Metric `time`, unit `s`, one value per round from
 * `stats.data` (already divided by the round's iterations). Saved files
 * without `--benchmark-save-data` have no `stats.data`: such a benchmark
 * yields `stats.median` (else `stats.mean`) as its single value and a
 * `summary-only` warning, since a comparison on one number per side cannot
 * be tested. `stats.data` that is there but unusable (not an array, empty, a
 * value that is not a finite non-negative number) falls back the same way,
 * and the warning names what was wrong with it.
 *
 * Hints come from `machine_info`: python_implementation, python_version,
 * machine, system, release, cpu (brand) and cpu_count; values of an
 * unexpected type there are ignored, because plugins may rewrite that block.
 */
export const pytestBenchmarkReader: Reader = {
  format: 'pytest-benchmark',
  description: 'pytest-benchmark --benchmark-json (or a --benchmark-save file)',

  sniff(head: string): boolean {
    return /^\s*\{/.test(head) && /"machine_info"\s*:/.test(head) && /"(python_implementation|python_version|commit_info|benchmarks)"\s*:/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.object(doc, '$');
    const benchmarks = j.array(root.benchmarks, 'benchmarks');
    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    const budget = new ReadBudget(file.path);
    const seen = new Set<string>();

    benchmarks.forEach((raw, i) => {
      const path = `benchmarks[${i}]`;
      const b = j.object(raw, path);
      const name = j.optionalString(b.fullname, `${path}.fullname`) ?? j.string(b.name, `${path}.name`);
      if (name === '') j.fail(`${path}.fullname`, 'empty benchmark name');
      if (seen.has(name)) j.fail(`${path}.fullname`, `benchmark ${JSON.stringify(name)} appears twice`);
      budget.series();
      seen.add(name);
      const stats = j.object(b.stats, `${path}.stats`);
      const problem = dataProblem(stats.data);
      if (problem === undefined) {
        measurements.push({ benchmark: name, metric: 'time', unit: 's', better: 'lower', values: stats.data as number[] });
        return;
      }
      // One unusable benchmark must not cost the rest of the file: its summary stands in, and the warning says why.
      const statistic = stats.median !== undefined && stats.median !== null ? 'median' : 'mean';
      if (stats[statistic] === undefined || stats[statistic] === null) j.fail(`${path}.stats`, `has no usable data (${problem}) and no median or mean`);
      const value = j.number(stats[statistic], `${path}.stats.${statistic}`);
      if (value < 0) j.fail(`${path}.stats.${statistic}`, 'negative time');
      measurements.push({ benchmark: name, metric: 'time', unit: 's', better: 'lower', values: [value] });
      warnings.push({
        benchmark: name,
        kind: 'summary-only',
        message:
          problem === 'absent'
            ? `${name}: no per-round data (save with --benchmark-save-data or use --benchmark-json); using the ${statistic} as a single value`
            : `${name}: ${path}.stats.data is unusable (${problem}); using the ${statistic} as a single value`,
      });
    });

    if (measurements.length === 0) j.fail('benchmarks', 'no benchmarks (were they run with --benchmark-disable or --benchmark-skip?)');
    return { measurements, warnings, hints: machineHints(root.machine_info) };
  },
};

/** dataProblem says why `stats.data` cannot serve as samples: 'absent', or what is wrong with it; undefined when it can. */
function dataProblem(data: unknown): string | undefined {
  if (data === undefined || data === null) return 'absent';
  if (!Array.isArray(data)) return `expected an array of times, got ${data === null ? 'null' : typeof data}`;
  if (data.length === 0) return 'no rounds';
  for (let i = 0; i < data.length; i++) {
    const v: unknown = data[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return `data[${i}] is ${typeof v === 'number' ? String(v) : JSON.stringify(v) ?? typeof v}, not a time`;
    if (v < 0) return `data[${i}] is negative (${v})`;
  }
  return undefined;
}

function machineHints(value: unknown): FingerprintHints {
  const hints: FingerprintHints = {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return hints;
  const info = value as Record<string, unknown>;
  for (const key of ['python_implementation', 'python_version', 'machine', 'system', 'release']) {
    if (typeof info[key] === 'string' && info[key] !== '') hints[key] = info[key];
  }
  const cpu = info.cpu;
  if (cpu !== null && typeof cpu === 'object' && !Array.isArray(cpu)) {
    const c = cpu as Record<string, unknown>;
    if (typeof c.brand_raw === 'string' && c.brand_raw !== '') hints.cpu = c.brand_raw;
    if (typeof c.count === 'number' && Number.isInteger(c.count)) hints.cpu_count = c.count;
  }
  return hints;
}
