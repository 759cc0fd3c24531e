import type { Measurement } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { parseFiniteNumber, splitLines } from './text-lines.ts';
import { conversionFactor, normalizeTimeUnit } from './units.ts';

/** A result line: `name: 47.8 µs`; the name runs to the last colon. */
const RESULT_LINE = /^\s*(.*\S)\s*:\s+(\d+(?:\.\d+)?|\.\d+)\s*(ns|us|µs|μs|ms|s)\s*$/;

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
    const results = lines.filter((l) => RESULT_LINE.test(l)).length;
    return results >= 2 && results * 3 >= lines.length;
  },
  read(file: SourceFile): ReadResult {
    const order: string[] = [];
    const byName = new Map<string, Measurement>();
    for (const { number, text } of splitLines(file)) {
      const m = RESULT_LINE.exec(text);
      if (!m) continue;
      const name = m[1];
      const value = parseFiniteNumber(m[2]);
      const unit = normalizeTimeUnit(m[3]);
      if (value === undefined || unit === undefined) throw new FormatError(file.path, number, `cannot read "${m[2]} ${m[3]}" as a time`);
      const existing = byName.get(name);
      if (!existing) {
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
