// The reader as it was before its fast path (commit 112d2b6), kept verbatim
// as the reference that test/formats/fast-*.test.ts compare it with.
import type { Measurement } from '../../../src/model/measurement.ts';
import { FormatError } from '../../../src/formats/format-error.ts';
import type { Reader, ReadResult, SourceFile } from '../../../src/formats/reader.ts';
import { ReadBudget } from '../../../src/formats/input-limits.ts';
import { isSpace, parseFiniteNumber, splitLines } from './text-lines.ts';
import { conversionFactor, normalizeTimeUnit } from '../../../src/model/units.ts';

const UNITS = ['ns', 'us', 'µs', 'μs', 'ms', 's'];
const VALUE = /^(?:\d+(?:\.\d+)?|\.\d+)$/;
const LINE_BREAK = /[\r\u2028\u2029]/;

/**
 * resultLine reads `name: 47.8 µs` (white space around the colon and the
 * unit optional, at least one space after the colon). It works back from the
 * end of the line, whose shape is fixed, instead of matching
 * `^\s*(.*\S)\s*:\s+...`, which backtracks quadratically on a long line.
 */
function resultLine(line: string): { name: string; value: string; unit: string } | undefined {
  let end = line.length;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end -= 1;
  const unit = UNITS.find((u) => u.length > 1 && line.endsWith(u, end)) ?? (line.endsWith('s', end) ? 's' : undefined);
  if (unit === undefined) return undefined;
  end -= unit.length;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end -= 1;
  let start = end;
  while (start > 0 && isDigitOrDot(line.charCodeAt(start - 1))) start -= 1;
  const value = line.slice(start, end);
  if (!VALUE.test(value) || start === 0 || !isSpace(line.charCodeAt(start - 1))) return undefined;
  let colon = start;
  while (colon > 0 && isSpace(line.charCodeAt(colon - 1))) colon -= 1;
  if (colon === 0 || line[colon - 1] !== ':') return undefined;
  const name = line.slice(0, colon - 1).trim();
  if (name === '' || LINE_BREAK.test(name)) return undefined;
  return { name, value, unit };
}

/**
 * plainLinesReader reads the simplest thing a hand-rolled benchmark prints:
 * one `name: value unit` line per result, unit one of ns, us, µs, μs, ms, s
 * (µs and μs become `us`). The metric is `time`, lower is better. A name
 * printed again adds a value, converted to the unit of its first line; all
 * other lines (headings such as `## before ##`, logs) are ignored.
 *
 * It is the fallback format, so its sniff is conservative: at least two
 * result lines and at least a third of the non-blank lines.
 */
export const plainLinesReader: Reader = {
  format: 'plain',
  description: 'plain "name: value unit" lines (ns, us, µs, ms, s), e.g. Flutter platform-channel benchmarks',
  sniff(head: string): boolean {
    const lines = head.split(/\r?\n/).filter((l) => l.trim() !== '');
    if (/^\s*[[{<]/.test(head)) return false;
    const results = lines.filter((l) => resultLine(l) !== undefined).length;
    return results >= 2 && results * 3 >= lines.length;
  },
  read(file: SourceFile): ReadResult {
    const order: string[] = [];
    const byName = new Map<string, Measurement>();
    const budget = new ReadBudget(file.path);
    for (const { number, text } of splitLines(file)) {
      const m = resultLine(text);
      if (!m) continue;
      const name = m.name;
      const value = parseFiniteNumber(m.value);
      const unit = normalizeTimeUnit(m.unit);
      if (value === undefined || unit === undefined) throw new FormatError(file.path, number, `cannot read "${m.value} ${m.unit}" as a time`);
      budget.value(number);
      const existing = byName.get(name);
      if (!existing) {
        budget.series(number);
        byName.set(name, { benchmark: name, metric: 'time', unit, better: 'lower', values: [value] });
        order.push(name);
        continue;
      }
      const factor = conversionFactor(unit, existing.unit);
      if (factor === undefined) throw new FormatError(file.path, number, `"${name}" is in ${unit} here but in ${existing.unit} before`);
      existing.values.push(value * factor);
    }
    if (order.length === 0) throw new FormatError(file.path, undefined, 'no "name: value unit" lines found (units: ns, us, µs, ms, s)');
    return { measurements: order.map((n) => byName.get(n) as Measurement), warnings: [], hints: {} };
  },
};

function isDigitOrDot(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46;
}
