import type { Measurement } from '../model/measurement.ts';
import { conversionFactor, normalizeTimeUnit } from '../model/units.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { LineCursor, parseFiniteNumber } from './text-lines.ts';

const PREFIX = 'SUCCESS:';
const VALUE_WITH_UNIT = /^(\d+(?:\.\d+)?|\.\d+)(ns|us|µs|μs|ms|s)$/;
const PERCENT = /^\d+(?:\.\d+)?%$/;
const DRIVER = /^\S{1,200}$/;

/** LuauLine is one `SUCCESS:` line, read from its fixed end backwards. */
interface LuauLine {
  name: string;
  value: string;
  unit: string;
  driver: string;
}

/**
 * successLine reads `SUCCESS: NAME : 15.041ms +/-  0.636% on DRIVER`, the
 * line Luau's bench/bench.py prints per benchmark (the name padded to a
 * column). It works from the end, whose shape is fixed, with indexOf and
 * lastIndexOf only (linear on any line); undefined for any other line.
 */
function successLine(line: string): LuauLine | undefined {
  if (!line.startsWith(PREFIX)) return undefined;
  const on = line.lastIndexOf(' on ');
  const plusMinus = line.lastIndexOf('+/-', on);
  if (on < 0 || plusMinus < 0) return undefined;
  const driver = line.slice(on + 4).trim();
  if (!DRIVER.test(driver) || !PERCENT.test(line.slice(plusMinus + 3, on).trim())) return undefined;
  const colon = line.lastIndexOf(':', plusMinus);
  if (colon < PREFIX.length) return undefined;
  const measured = VALUE_WITH_UNIT.exec(line.slice(colon + 1, plusMinus).trim());
  const name = line.slice(PREFIX.length, colon).trim();
  if (!measured || name === '') return undefined;
  return { name, value: measured[1], unit: measured[2], driver };
}

/**
 * benchmarkLuauReader reads the console output of Luau's benchmark runner
 * (github-action-benchmark's `benchmarkluau` tool): one `SUCCESS:` line per
 * benchmark with its mean time and relative standard deviation over the
 * runner's own runs; the RESULTS table after them repeats the same numbers
 * and is ignored, as are FAILED and other lines; a SUCCESS line of another
 * shape is an error naming its line. Metric `time`, unit as
 * printed (ms), lower is better.
 *
 * Names are the column before ` : `, spaces included (github-action-benchmark
 * keeps only the first word). A file with one driver (`on luau`) gives bare
 * names, as github-action-benchmark does; with several (`on luau`, `on lua`)
 * every name gets its driver, `base64 (lua)`, since the same test on two VMs
 * is two series. A name printed again for the same driver adds a value (a
 * repeated run), converted to the unit it had first. The runner prints means only, so one `summary-only`
 * warning per file says each line is one value.
 */
export const benchmarkLuauReader: Reader = {
  format: 'benchmarkluau',
  description: 'Luau bench/bench.py console output ("SUCCESS: name : 15.041ms +/- 0.636% on luau"), github-action-benchmark\'s benchmarkluau',
  sniff(head: string): boolean {
    return head.split('\n', 50).some((line) => successLine(line.replace(/\r$/, '')) !== undefined);
  },
  read(file: SourceFile): ReadResult {
    const budget = new ReadBudget(file.path);
    const cursor = new LineCursor(file);
    const lines: (LuauLine & { line: number })[] = [];
    while (cursor.next()) {
      const text = cursor.line();
      if (!text.startsWith(PREFIX)) continue;
      const found = successLine(text);
      // The runner's own lines: one that does not read is a changed format, not something to drop.
      if (!found) throw new FormatError(file.path, cursor.number, `cannot read this SUCCESS line as "SUCCESS: name : 1.234ms +/- 0.5% on DRIVER"`);
      lines.push({ ...found, line: cursor.number });
    }
    if (lines.length === 0) throw new FormatError(file.path, undefined, 'no "SUCCESS: name : 1.234ms +/- 0.5% on luau" lines found (Luau bench/bench.py output)');
    const drivers = new Set(lines.map((l) => l.driver));
    const byName = new Map<string, Measurement>();
    for (const l of lines) {
      const benchmark = drivers.size > 1 ? `${l.name} (${l.driver})` : l.name;
      const value = parseFiniteNumber(l.value);
      const unit = normalizeTimeUnit(l.unit);
      if (value === undefined || unit === undefined) throw new FormatError(file.path, l.line, `cannot read "${l.value}${l.unit}" as a time`);
      budget.value(l.line);
      const existing = byName.get(benchmark);
      if (existing === undefined) {
        budget.series(l.line);
        byName.set(benchmark, { benchmark, metric: 'time', unit, better: 'lower', values: [value] });
        continue;
      }
      const factor = conversionFactor(unit, existing.unit);
      if (factor === undefined) throw new FormatError(file.path, l.line, `"${benchmark}" is in ${unit} here but in ${existing.unit} before`);
      existing.values.push(value * factor);
    }
    return {
      measurements: [...byName.values()],
      warnings: [{ kind: 'summary-only', message: 'Luau\'s bench runner prints a mean (± stddev %) per benchmark, not its runs: each SUCCESS line contributes one value' }],
      hints: {},
    };
  },
};
