import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';

/** MAX_GROUP_DEPTH bounds how deep BenchmarkGroups may nest, so a hostile file cannot recurse the stack away. */
const MAX_GROUP_DEPTH = 64;

/** TYPES_NOT_READ are BenchmarkTools types a saved file may hold that are not measurements of one run. */
const TYPES_NOT_READ = new Set(['Parameters', 'TagFilter', 'TrialRatio', 'TrialJudgement']);

/**
 * juliaBenchmarkToolsReader reads what Julia's `BenchmarkTools.save(path,
 * results...)` writes: `[{"Julia": v, "BenchmarkTools": v}, [value...]]`,
 * every value tagged with its type as `["TypeName", {fields}]`
 * (`"BenchmarkTools.TypeName"` before BenchmarkTools 0.5).
 *
 * A `BenchmarkGroup` names its members by the keys of `data`, nested groups
 * joined by `/` (`fib/20`), as github-action-benchmark's `julia` tool names
 * them. A `Trial` gives its raw `times` (one per sample, nanoseconds per
 * evaluation) as metric `time` in `ns`, and its `memory` (bytes) and
 * `allocs` (BenchmarkTools keeps the minimum over the samples, so one value)
 * as metrics `memory` in `B` and `allocs` in `count`, all lower-is-better.
 * A `TrialEstimate` (what `median(results)` saves, and what the action
 * requires) gives its `time` as a single value with a `summary-only`
 * warning. Parameters, tag filters, ratios and judgements are not
 * measurements and are skipped; a Trial or estimate saved outside any group
 * is named by its position, `#1`, `#2`... The versions object becomes the
 * hints `julia` and `benchmarktools`.
 */
export const juliaBenchmarkToolsReader: Reader = {
  format: 'julia',
  description: 'Julia BenchmarkTools.save JSON',

  sniff(head: string): boolean {
    const versions = /^\uFEFF?\s*\[\s*\{([^{}]*)\}/.exec(head);
    return versions !== null && /"BenchmarkTools"\s*:/.test(versions[1]) && /"Julia"\s*:/.test(versions[1]);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.array(doc, '$');
    if (root.length !== 2) j.fail('$', `expected [versions, values] as BenchmarkTools.save writes it, got an array of ${root.length}`);
    const versions = j.object(root[0], '[0]');
    const hints: Record<string, string> = {};
    const julia = j.optionalString(versions.Julia, '[0].Julia');
    const tools = j.optionalString(versions.BenchmarkTools, '[0].BenchmarkTools');
    if (julia !== undefined) hints.julia = julia.slice(0, 64);
    if (tools !== undefined) hints.benchmarktools = tools.slice(0, 64);
    const values = j.array(root[1], '[1]');

    const budget = new ReadBudget(file.path);
    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    const seen = new Set<string>();
    let unnamed = 0;

    const visit = (raw: unknown, path: string, name: string | undefined, depth: number): void => {
      const tagged = j.array(raw, path);
      if (tagged.length !== 2) j.fail(path, `expected ["TypeName", {fields}], got an array of ${tagged.length}`);
      const type = j.string(tagged[0], `${path}[0]`).replace(/^BenchmarkTools\./, '');
      const fields = j.object(tagged[1], `${path}[1]`);
      if (type === 'BenchmarkGroup') {
        if (depth >= MAX_GROUP_DEPTH) j.fail(path, `BenchmarkGroups nested more than ${MAX_GROUP_DEPTH} deep`);
        const data = j.object(fields.data, `${path}[1].data`);
        for (const key of Object.keys(data)) visit(data[key], `${path}[1].data[${JSON.stringify(key)}]`, name === undefined ? key : `${name}/${key}`, depth + 1);
        return;
      }
      if (TYPES_NOT_READ.has(type)) return;
      if (type !== 'Trial' && type !== 'TrialEstimate') j.fail(`${path}[0]`, `unknown BenchmarkTools type ${JSON.stringify(type.slice(0, 40))}; expected BenchmarkGroup, Trial or TrialEstimate`);
      unnamed += name === undefined ? 1 : 0;
      const benchmark = name ?? `#${unnamed}`;
      if (benchmark.trim() === '') j.fail(path, 'a benchmark key is empty');
      if (seen.has(benchmark)) j.fail(path, `two results are named ${JSON.stringify(benchmark)}`);
      seen.add(benchmark);
      let times: number[];
      if (type === 'Trial') {
        times = j.numbers(fields.times, `${path}[1].times`);
        if (times.length === 0) j.fail(`${path}[1].times`, 'no samples; did the benchmark run?');
      } else {
        times = [j.number(fields.time, `${path}[1].time`)];
        budget.series();
        warnings.push({ benchmark, kind: 'summary-only', message: `${benchmark}: a TrialEstimate holds one estimate, no samples; save the Trial (run(suite), before median/minimum) for per-sample times` });
      }
      if (times.some((t) => t < 0)) j.fail(`${path}[1].${type === 'Trial' ? 'times' : 'time'}`, 'negative time');
      budget.series();
      budget.value(undefined, times.length);
      measurements.push({ benchmark, metric: 'time', unit: 'ns', better: 'lower', values: times });
      for (const [field, metric, unit] of [['memory', 'memory', 'B'], ['allocs', 'allocs', 'count']] as const) {
        const value = j.optionalNumber(fields[field], `${path}[1].${field}`);
        if (value === undefined) continue;
        if (value < 0) j.fail(`${path}[1].${field}`, `is ${value}; it cannot be below zero`);
        budget.series();
        budget.value();
        measurements.push({ benchmark, metric, unit, better: 'lower', values: [value] });
      }
    };

    values.forEach((v, i) => visit(v, `[1][${i}]`, undefined, 0));
    if (measurements.length === 0) j.fail('[1]', 'no Trial or TrialEstimate: save the results of run(suite), e.g. BenchmarkTools.save("out.json", results)');
    return { measurements, warnings, hints };
  },
};
