import type { Measurement } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { ReadBudget } from './input-limits.ts';
import { isSpace, LineCursor, NameCodes, NameOrder, parseFiniteNumber, POWERS_OF_TEN, readDecimal, TextWindow, type NamedEntry } from './text-lines.ts';
import { conversionFactor, normalizeTimeUnit } from '../model/units.ts';

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
    // The usual line is read in place (fastResult) and its name compared
    // with the names expected next; any other line, and every error, takes
    // the general path (resultLine).
    const text = file.text;
    const cursor = new LineCursor(file);
    const entries = new Map<string, Entry>();
    const names = new NameOrder<Entry>();
    const line: FastLine = { newline: 0, nameStart: 0, nameEnd: 0, value: 0, unit: 0 };
    const window = new TextWindow(text);
    const nameCodes = new NameCodes();
    for (;;) {
      // The line after the current one, when it is the result of the name
      // expected next: read forwards to its end, so that it costs no search
      // for its `\n` (the cursor skips it).
      const after = cursor.newline + 1;
      if (after > 0 && after < text.length) {
        window.cover(after);
        const expected = expectedLine(window, nameCodes.codes, text.length, after, names.candidate(0), line) ?? expectedLine(window, nameCodes.codes, text.length, after, names.candidate(1), line);
        if (expected !== undefined && expected.from === NORMALIZED[line.unit]) {
          cursor.skip(line.newline);
          budget.value(cursor.number);
          expected.measurement.values.push(line.value * expected.factor);
          names.record(expected);
          continue;
        }
      }
      if (!cursor.next()) break;
      const { number, start, end } = cursor;
      // The line read from its end.
      const fast = fastResult(text, start, end, line);
      if (fast === FAST_NONE) continue;
      if (fast === FAST_RESULT) {
        const unit = NORMALIZED[line.unit];
        let entry = names.find(text, line.nameStart, line.nameEnd);
        if (entry === undefined) {
          const name = text.slice(line.nameStart, line.nameEnd);
          // A name with a line break in it is no result (resultLine says so); known names have none.
          if (LINE_BREAK.test(name)) continue;
          entry = entries.get(name);
          if (entry === undefined && !byName.has(name)) {
            budget.value(number);
            budget.series(number);
            const measurement: Measurement = { benchmark: name, metric: 'time', unit, better: 'lower', values: [line.value] };
            byName.set(name, measurement);
            order.push(name);
            entry = { name, at: line.nameStart, next: undefined, measurement, from: unit, factor: 1, codes: nameCodes.add(name) };
            entries.set(name, entry);
            names.record(entry);
            continue;
          }
          if (entry === undefined) entry = { name, at: line.nameStart, next: undefined, measurement: byName.get(name) as Measurement, from: '', factor: 1, codes: nameCodes.add(name) };
          entries.set(name, entry);
        }
        if (entry.from !== unit) {
          const factor = conversionFactor(unit, entry.measurement.unit);
          // The general path raises the error (after the budget's own).
          if (factor !== undefined) {
            entry.from = unit;
            entry.factor = factor;
          }
        }
        if (entry.from === unit) {
          budget.value(number);
          entry.measurement.values.push(line.value * entry.factor);
          names.record(entry);
          continue;
        }
      }
      const m = resultLine(cursor.line());
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

/** Entry is a name's series with the factor from the unit its lines had last to the series' unit. */
interface Entry extends NamedEntry {
  measurement: Measurement;
  from: string;
  factor: number;
  /** codes is where the name's code units start in the reader's NameCodes. */
  codes: number;
}

/** FastLine is what fastResult read: the name's place, the value, and the unit as an index into UNITS. */
interface FastLine {
  /** newline is where expectedLine found the line's `\n` (the text's length for the last line). */
  newline: number;
  nameStart: number;
  nameEnd: number;
  value: number;
  unit: number;
}

/** NORMALIZED[i] is UNITS[i] as normalizeTimeUnit gives it. */
const NORMALIZED = UNITS.map((u) => normalizeTimeUnit(u) as string);

const FAST_RESULT = 0;
const FAST_NONE = 1;
const FAST_OTHER = 2;

/**
 * expectedLine reads the line at `start` forwards as `NAME: value unit` for
 * the known name of `entry`, into `line`: the name at the start, the colon
 * right after it, one or more spaces or tabs, a plain decimal of at most 15
 * digits, spaces or tabs, a unit, spaces or tabs to the end of the line (a
 * `\n`, `\r\n` or the end of the text), whose `\n` goes into line.newline.
 * resultLine, reading from the end, finds the same. Returns the entry, or
 * undefined for any other line. The line is read from `window` (which
 * covers `start`) and the name compared with its units in `names`; a line
 * that runs past the window (to its 0) is not read here. A known name
 * holds no `\n` and no NUL, so the name and every character after it are
 * on this line and in the window.
 */
function expectedLine(window: TextWindow, names: Uint16Array, length: number, start: number, entry: Entry | undefined, line: FastLine): Entry | undefined {
  if (entry === undefined) return undefined;
  const codes = window.codes;
  const base = window.base;
  const s = start - base;
  let i = entry.name.length;
  let p = s + i;
  // Past the window's end its array holds units of an earlier window.
  if (p + base >= window.limit || codes[p] !== 58) return undefined;
  const at = entry.codes;
  while (i > 0) {
    i -= 1;
    if (codes[s + i] !== names[at + i]) return undefined;
  }
  let c = codes[++p];
  if (c !== 32 && c !== 9) return undefined;
  while ((c = codes[++p]) === 32 || c === 9);
  let mantissa = 0;
  let dot = -1;
  const from = p;
  for (;; c = codes[++p]) {
    if (c >= 48 && c <= 57) mantissa = mantissa * 10 + (c - 48);
    else if (c === 46 && dot < 0) dot = p;
    else break;
  }
  const valueEnd = p;
  const digits = p - from - (dot < 0 ? 0 : 1);
  if (digits === 0 || digits > 15 || dot === from || dot === p - 1 || (c !== 32 && c !== 9)) return undefined;
  while ((c = codes[++p]) === 32 || c === 9);
  let unit = UNITS.length - 1;
  if (c !== 115) {
    unit = c === 110 ? 0 : c === 117 ? 1 : c === 0xb5 ? 2 : c === 0x3bc ? 3 : c === 109 ? 4 : -1;
    if (unit < 0 || codes[++p] !== 115) return undefined;
  }
  while ((c = codes[++p]) === 32 || c === 9);
  // The end of the line: `\n`, `\r\n` (a `\r` alone is part of the line), or the end of the text (the window's 0 there).
  if (c === 13) {
    c = codes[++p];
    if (c !== 10) return undefined;
  } else if (c !== 10 && !(c === 0 && p + base === length)) return undefined;
  line.newline = p + base;
  line.value = dot < 0 ? mantissa : mantissa / POWERS_OF_TEN[valueEnd - dot - 1];
  line.unit = unit;
  return entry;
}

/**
 * fastResult reads a line as resultLine would, in place: FAST_RESULT with the
 * result in `line` for the usual result line (name, colon, space, a plain
 * decimal that readDecimal reads, a unit); FAST_NONE when the line ends in
 * anything but `s` (no unit, so no result); FAST_OTHER for any other line,
 * which resultLine then reads. The name may still hold a line break.
 */
function fastResult(text: string, start: number, end: number, line: FastLine): number {
  let e = end;
  let c = text.charCodeAt(e - 1);
  while (e > start && (c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && isSpace(c)))) c = text.charCodeAt(--e - 1);
  if (e === start || c !== 115) return FAST_NONE;
  // The unit: `s`, or two characters ending in `s` (UNITS in that order).
  let unit = UNITS.length - 1;
  if (e - 2 >= start) {
    c = text.charCodeAt(e - 2);
    unit = c === 110 ? 0 : c === 117 ? 1 : c === 0xb5 ? 2 : c === 0x3bc ? 3 : c === 109 ? 4 : unit;
  }
  e -= unit === UNITS.length - 1 ? 1 : 2;
  c = text.charCodeAt(e - 1);
  while (e > start && (c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && isSpace(c)))) c = text.charCodeAt(--e - 1);
  // A plain decimal, read backwards: digits with at most one dot, which is neither first nor last.
  const valueEnd = e;
  let mantissa = 0;
  let scale = 1;
  let dot = -1;
  while (e > start) {
    if (c >= 48 && c <= 57) {
      mantissa += (c - 48) * scale;
      scale *= 10;
    } else if (c === 46 && dot < 0 && e !== valueEnd) {
      dot = e - 1;
    } else break;
    c = text.charCodeAt(--e - 1);
  }
  // c is now the character before the value.
  const digits = valueEnd - e - (dot < 0 ? 0 : 1);
  if (digits === 0 || dot === e || c === 46 || e === start || !(c === 32 || c === 9 || isSpace(c))) return FAST_OTHER;
  // As readDecimal: at most 15 digits are exact integers, over an exact power of ten.
  const value = digits > 15 ? readDecimal(text, e, valueEnd) : dot < 0 ? mantissa : mantissa / POWERS_OF_TEN[valueEnd - dot - 1];
  if (value !== value) return FAST_OTHER;
  while (e > start && isSpace(c)) c = text.charCodeAt(--e - 1);
  if (e === start || c !== 58) return FAST_OTHER;
  e -= 1;
  c = text.charCodeAt(e - 1);
  while (e > start && isSpace(c)) c = text.charCodeAt(--e - 1);
  let s = start;
  while (s < e && isSpace(text.charCodeAt(s))) s += 1;
  if (s === e) return FAST_OTHER;
  line.nameStart = s;
  line.nameEnd = e;
  line.value = value;
  line.unit = unit;
  return FAST_RESULT;
}

function isDigitOrDot(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 46;
}
