import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';

/**
 * benchmarkDotNetReader reads BenchmarkDotNet's JSON exporters
 * (`*-report-full.json`, `*-report-full-compressed.json`, `*-report-brief.json`).
 *
 * Per benchmark it emits metric `time` in `ns` per operation, one value per
 * workload iteration: `Nanoseconds / Operations` of every `Measurements[]`
 * entry with IterationMode `Workload` and IterationStage `Result` (overhead
 * already subtracted by BenchmarkDotNet), in launch order; the brief exporter
 * has no measurements, so there `Statistics.OriginalValues` (the same numbers)
 * is used. A benchmark with statistics but neither (the brief exporter of
 * BenchmarkDotNet versions that leave OriginalValues out, or measurements
 * without a Workload Result entry) contributes its `Statistics.Median` (else
 * `Mean`) as a single value, with a `summary-only` warning that says so.
 * With MemoryDiagnoser it also emits metric `allocated` in `B` per
 * operation as a single value. GC collection counts are not emitted: they are
 * one number per benchmark, derived from allocations already reported.
 * A benchmark without results (it failed) is skipped with an `error` warning.
 * When several jobs share a FullName, the job is appended: `Name [job]`.
 */
export const benchmarkDotNetReader: Reader = {
  format: 'benchmarkdotnet',
  description: 'BenchmarkDotNet JSON exporter (*-report-full.json, *-report-brief.json)',
  sniff(head: string): boolean {
    return /^\s*\{/.test(head) && /"Benchmarks"\s*:\s*\[/.test(head) && /"(HostEnvironmentInfo|BenchmarkDotNetCaption|FullName|DisplayInfo)"\s*:/.test(head);
  },
  read(file: SourceFile): ReadResult {
    const json = new JsonReader(file.path);
    const root = json.object(parseJsonDocument(file), '$');
    const hints = readHints(json, root.HostEnvironmentInfo);
    const entries = json.array(root.Benchmarks, 'Benchmarks');
    if (entries.length === 0) throw new FormatError(file.path, undefined, 'Benchmarks: no benchmarks in the report');

    const cases = entries.map((entry, i) => readCase(json, entry, `Benchmarks[${i}]`));
    const fullNameCount = new Map<string, number>();
    for (const c of cases) fullNameCount.set(c.fullName, (fullNameCount.get(c.fullName) ?? 0) + 1);

    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    const budget = new ReadBudget(file.path);
    const seen = new Set<string>();
    for (const c of cases) {
      budget.series();
      const name = (fullNameCount.get(c.fullName) ?? 0) > 1 && c.job ? `${c.fullName} [${c.job}]` : c.fullName;
      if (seen.has(name)) {
        warnings.push({ benchmark: name, kind: 'note', message: `${c.path}: "${name}" appears twice in the report; the later entry is ignored` });
        continue;
      }
      seen.add(name);
      if (c.times.length === 0) {
        warnings.push({ benchmark: name, kind: 'error', message: `${c.path}: benchmark "${name}" has no results; did it fail?` });
        continue;
      }
      if (c.summary !== undefined) {
        warnings.push({
          benchmark: name,
          kind: 'summary-only',
          message: `${c.path}: benchmark "${name}" has statistics but no per-iteration values (${c.summary}); its ${c.statistic} is used as a single value: export with JsonExporter.Full ([JsonExporterAttribute.Full]) for samples`,
        });
      }
      measurements.push({ benchmark: name, metric: 'time', unit: 'ns', better: 'lower', values: c.times });
      if (c.allocated !== undefined) measurements.push({ benchmark: name, metric: 'allocated', unit: 'B', better: 'lower', values: [c.allocated] });
    }
    return { measurements, warnings, hints };
  },
};

interface BenchmarkCase {
  path: string;
  fullName: string;
  job: string | undefined;
  times: number[];
  /** Why only a summary statistic was read (undefined when times are samples). */
  summary?: string;
  /** Which statistic stands in for the samples: median or mean. */
  statistic?: string;
  allocated: number | undefined;
}

function readCase(json: JsonReader, value: unknown, path: string): BenchmarkCase {
  const entry = json.object(value, path);
  const type = json.optionalString(entry.Type, `${path}.Type`);
  const method = json.optionalString(entry.Method, `${path}.Method`);
  const parameters = json.optionalString(entry.Parameters, `${path}.Parameters`) ?? '';
  let fullName = json.optionalString(entry.FullName, `${path}.FullName`);
  if (!fullName) {
    if (!type || !method) json.fail(path, 'has neither FullName nor Type and Method');
    fullName = `${type}.${method}${parameters ? `(${parameters})` : ''}`;
  }
  const displayInfo = json.optionalString(entry.DisplayInfo, `${path}.DisplayInfo`);
  const methodTitle = json.optionalString(entry.MethodTitle, `${path}.MethodTitle`) ?? method;
  return {
    path,
    fullName,
    job: displayInfo === undefined ? undefined : jobOf(displayInfo, `${type}.${methodTitle}: `, parameters),
    ...readTimes(json, entry, path),
    allocated: readAllocated(json, entry.Memory, `${path}.Memory`),
  };
}

/** jobOf cuts the job out of DisplayInfo, `Type.Method: Job [Parameters]`. */
function jobOf(displayInfo: string, prefix: string, parameters: string): string | undefined {
  let job = displayInfo.startsWith(prefix) ? displayInfo.slice(prefix.length) : displayInfo.slice(displayInfo.indexOf(': ') + 2);
  const suffix = ` [${parameters}]`;
  if (parameters && job.endsWith(suffix)) job = job.slice(0, -suffix.length);
  job = job.trim();
  return job === '' ? undefined : job;
}

function readTimes(json: JsonReader, entry: Record<string, unknown>, path: string): Pick<BenchmarkCase, 'times' | 'summary' | 'statistic'> {
  let missing = 'no Measurements';
  if (entry.Measurements !== undefined && entry.Measurements !== null) {
    const times: number[] = [];
    json.array(entry.Measurements, `${path}.Measurements`).forEach((value, i) => {
      const at = `${path}.Measurements[${i}]`;
      const m = json.object(value, at);
      if (json.string(m.IterationMode, `${at}.IterationMode`) !== 'Workload') return;
      if (json.string(m.IterationStage, `${at}.IterationStage`) !== 'Result') return;
      const operations = json.number(m.Operations, `${at}.Operations`);
      if (operations <= 0) json.fail(`${at}.Operations`, `expected a positive count, got ${operations}`);
      const perOp = json.number(m.Nanoseconds, `${at}.Nanoseconds`) / operations;
      if (!Number.isFinite(perOp)) json.fail(`${at}.Nanoseconds`, 'time per operation is out of range');
      times.push(perOp);
    });
    if (times.length > 0) return { times };
    missing = 'no Workload Result entry in Measurements';
  }
  if (entry.Statistics === undefined || entry.Statistics === null) return { times: [] };
  const statistics = json.object(entry.Statistics, `${path}.Statistics`);
  const original = statistics.OriginalValues === undefined || statistics.OriginalValues === null ? [] : json.numbers(statistics.OriginalValues, `${path}.Statistics.OriginalValues`);
  if (original.length > 0) return { times: original };
  for (const statistic of ['Median', 'Mean'] as const) {
    const value = json.optionalNumber(statistics[statistic], `${path}.Statistics.${statistic}`);
    if (value === undefined) continue;
    if (value < 0) json.fail(`${path}.Statistics.${statistic}`, `expected a non-negative time, got ${value}`);
    return { times: [value], summary: `${missing}, no Statistics.OriginalValues`, statistic: statistic.toLowerCase() };
  }
  json.fail(`${path}.Statistics`, 'has no OriginalValues, Median or Mean; export with JsonExporter.Full or JsonExporter.Brief');
}

function readAllocated(json: JsonReader, value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const memory = json.object(value, path);
  return json.optionalNumber(memory.BytesAllocatedPerOperation, `${path}.BytesAllocatedPerOperation`);
}

function readHints(json: JsonReader, value: unknown): FingerprintHints {
  const hints: FingerprintHints = {};
  if (value === undefined || value === null) return hints;
  const host = json.object(value, 'HostEnvironmentInfo');
  const text = (key: string, hint: string) => {
    const v = json.optionalString(host[key], `HostEnvironmentInfo.${key}`);
    if (v !== undefined) hints[hint] = v;
  };
  // BenchmarkDotNet before 0.11 serialized the processor name as a Lazy<string>: {"IsValueCreated": true, "Value": "..."}.
  const processor = host.ProcessorName;
  if (processor !== null && typeof processor === 'object' && !Array.isArray(processor)) {
    const name = json.optionalString((processor as Record<string, unknown>).Value, 'HostEnvironmentInfo.ProcessorName.Value');
    if (name !== undefined) hints.cpu = name;
  } else {
    text('ProcessorName', 'cpu');
  }
  const cores = json.optionalNumber(host.LogicalCoreCount, 'HostEnvironmentInfo.LogicalCoreCount');
  if (cores !== undefined) hints.cores = cores;
  text('OsVersion', 'os');
  text('RuntimeVersion', 'runtime');
  text('BenchmarkDotNetVersion', 'benchmarkdotnet_version');
  const configuration = json.optionalString(host.Configuration, 'HostEnvironmentInfo.Configuration');
  if (configuration !== undefined) hints.debug_build = configuration.toUpperCase() !== 'RELEASE';
  return hints;
}
