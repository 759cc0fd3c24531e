import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { sampleTimes, summaryTime, UniqueNames } from './js-bench-common.ts';
import { parseFiniteNumber } from './text-lines.ts';
import { normalizeTimeUnit } from '../model/units.ts';

/** States of a tinybench task that carry statistics. */
const WITH_STATISTICS = new Set(['completed', 'aborted-with-statistics']);
/** bench.table()'s latency columns: `Latency med (ns)` (tinybench 4+), `Latency median (ns)` (3), then the averages (`Average Time (ns)`: 2). */
const TABLE_COLUMNS = [/^Latency med(?:ian)? \(([^()]+)\)$/, /^Latency (?:avg|average) \(([^()]+)\)$/, /^Average Time \(([^()]+)\)$/];
/** bench.table()'s name column: `Task name` (3+), `Task Name` (2). */
const NAME_COLUMNS = ['Task name', 'Task Name'];

/**
 * tinybenchReader reads tinybench results serialized as JSON.
 * tinybench prints nothing itself, so this is what a script writes with
 * `JSON.stringify`:
 *
 * - the tasks, `bench.tasks.map(({ name, result }) => ({ name, result }))`:
 *   each task is metric `time` in `ms` (tinybench's unit), one value per
 *   sample from `result.latency.samples` when the bench kept them
 *   (`retainSamples: true`; tinybench keeps them sorted, so their order says
 *   nothing about warm-up), else `latency.p50` (the median, else `mean`) as a
 *   single value with one `summary-only` warning per file. A task that
 *   errored, was aborted or never ran is a warning; one aborted with
 *   statistics is read, with a warning. tinybench 2 (the line vitest 1-4
 *   bundle) has no `state` and no `latency`: `result.samples` (always kept),
 *   else `mean`, and `result.error` for a task that threw.
 * - `bench.table()`: the `Latency med (ns)` column's number (`421.00 ± 10.00`
 *   gives 421; tinybench 2's `Average Time (ns)`), in the column's unit,
 *   summary-only; a row with `Error` is an error warning.
 *
 * `bench.results` holds no task names, so it is refused with the line to
 * write instead. A name that occurs twice gets ` #2`.
 */
export const tinybenchReader: Reader = {
  format: 'tinybench',
  description: 'tinybench results as JSON: bench.tasks (name and result) or bench.table()',

  sniff(head: string): boolean {
    return /^\s*\[/.test(head) && (/"latency"\s*:\s*\{/.test(head) || /"result"\s*:\s*\{\s*"totalTime"\s*:/.test(head) || /^\s*\[\s*\{\s*"Task [nN]ame"\s*:/.test(head));
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const rows = j.array(doc, '$');
    const budget = new ReadBudget(file.path);
    const names = new UniqueNames();
    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    let summaryOnly = false;
    let table = false;

    rows.forEach((raw, i) => {
      const path = `[${i}]`;
      if (raw === null) return; // bench.table() gives null for a task without a result
      const row = j.object(raw, path);
      if (NAME_COLUMNS.some((column) => column in row)) {
        table = true;
        summaryOnly = readTableRow(j, budget, names, row, path, measurements, warnings) || summaryOnly;
        return;
      }
      if (row.name === undefined && (row.state !== undefined || row.latency !== undefined || row.totalTime !== undefined)) {
        j.fail(path, 'a tinybench result without a task name (bench.results has none); write JSON.stringify(bench.tasks.map(({ name, result }) => ({ name, result }))) instead');
      }
      const given = j.string(row.name, `${path}.name`);
      if (given === '') j.fail(`${path}.name`, 'empty task name');
      const name = names.name(given);
      budget.series();
      const result = j.object(row.result, `${path}.result`);
      if (result.state === undefined) {
        // tinybench 2: no state, no latency object; an error replaces the statistics.
        if (result.error !== undefined) {
          warnings.push({ benchmark: name, kind: 'error', message: `${name} failed${errorText(result.error)}` });
          return;
        }
        const samples = sampleTimes(j, budget, result.samples, `${path}.result.samples`);
        if (samples === undefined) summaryOnly = true;
        measurements.push({ benchmark: name, metric: 'time', unit: 'ms', better: 'lower', values: samples ?? [summaryTime(j, budget, result.mean, `${path}.result.mean`)] });
        return;
      }
      const state = j.string(result.state, `${path}.result.state`);
      if (!WITH_STATISTICS.has(state)) {
        warnings.push(
          state === 'errored'
            ? { benchmark: name, kind: 'error', message: `${name} failed${errorText(result.error)}` }
            : { benchmark: name, kind: 'skipped', message: `${name} has no result (state ${JSON.stringify(state)})` },
        );
        return;
      }
      if (state !== 'completed') warnings.push({ benchmark: name, kind: 'note', message: `${name} was aborted; its statistics cover the samples taken before` });
      const latency = j.object(result.latency, `${path}.result.latency`);
      const samples = sampleTimes(j, budget, latency.samples, `${path}.result.latency.samples`);
      if (samples !== undefined) {
        measurements.push({ benchmark: name, metric: 'time', unit: 'ms', better: 'lower', values: samples });
        return;
      }
      const statistic = latency.p50 !== undefined && latency.p50 !== null ? 'p50' : 'mean';
      const value = summaryTime(j, budget, latency[statistic], `${path}.result.latency.${statistic}`);
      measurements.push({ benchmark: name, metric: 'time', unit: 'ms', better: 'lower', values: [value] });
      summaryOnly = true;
    });

    if (measurements.length === 0 && warnings.length === 0) j.fail('$', 'no tinybench tasks');
    if (summaryOnly) {
      warnings.push({
        kind: 'summary-only',
        message: table
          ? `${file.path}: bench.table() holds summaries, so each task contributes its median latency as one value; write bench.tasks from a Bench created with retainSamples: true for per-sample values`
          : `${file.path}: tinybench kept no samples, so each task contributes its median latency as one value; create the Bench with retainSamples: true for per-sample values`,
      });
    }
    return { measurements, warnings, hints: {} };
  },
};

/** readTableRow reads one row of bench.table(); true when it gave a (summary) value. */
function readTableRow(
  j: JsonReader,
  budget: ReadBudget,
  names: UniqueNames,
  row: Record<string, unknown>,
  path: string,
  measurements: Measurement[],
  warnings: ReadWarning[],
): boolean {
  const column = NAME_COLUMNS.find((c) => c in row) as string;
  const given = j.string(row[column], `${path}[${JSON.stringify(column)}]`);
  if (given === '') j.fail(`${path}[${JSON.stringify(column)}]`, 'empty task name');
  const name = names.name(given);
  budget.series();
  if (row.Error !== undefined) {
    const message = typeof row.Error === 'string' && row.Error !== '' ? `: ${row.Error}` : '';
    warnings.push({ benchmark: name, kind: 'error', message: `${name} failed${message}` });
    return false;
  }
  for (const column of TABLE_COLUMNS) {
    for (const key of Object.keys(row)) {
      const m = column.exec(key);
      if (!m) continue;
      const unit = normalizeTimeUnit(m[1]);
      if (unit === undefined) j.fail(`${path}[${JSON.stringify(key)}]`, `unknown time unit "${m[1]}"`);
      const cell = row[key];
      const value = typeof cell === 'string' ? parseFiniteNumber(cell.split('\u00b1')[0].trim()) : j.number(cell, `${path}[${JSON.stringify(key)}]`);
      if (value === undefined) j.fail(`${path}[${JSON.stringify(key)}]`, `expected a time such as "421.00 ± 10.00", got ${JSON.stringify(String(cell).slice(0, 40))}`);
      if (value < 0) j.fail(`${path}[${JSON.stringify(key)}]`, `negative time ${value}`);
      budget.value();
      measurements.push({ benchmark: name, metric: 'time', unit, better: 'lower', values: [value] });
      return true;
    }
  }
  return j.fail(path, 'a bench.table() row without a "Latency med (ns)", "Latency avg (ns)" or "Average Time (ns)" column');
}

/** errorText is `: message` for a serialized error (an Error serializes as {}, so often there is none). */
function errorText(error: unknown): string {
  const message = error !== null && typeof error === 'object' ? (error as Record<string, unknown>).message : error;
  return typeof message === 'string' && message !== '' ? `: ${message.slice(0, 200)}` : '';
}
