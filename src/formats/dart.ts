import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { checkJsonElementCount, ReadBudget } from './input-limits.ts';
import { Finder, LineCursor, NameCodes, NameOrder, parseFiniteNumber, POWERS_OF_TEN, TextWindow, type NamedEntry } from './text-lines.ts';
import { conversionFactor, directionOf } from '../model/units.ts';

/** An Android logcat prefix, `I/flutter (12463): `, as `flutter run` prints app output. */
const LOGCAT_PREFIX = /^[VDIWEF]\/[^(\s]*\s*\(\s*\d+\):\s?/;
/** iOS and desktop Flutter print app output behind `flutter: `. */
const FLUTTER_PREFIX = /^flutter: /;
// `\d+(?:\.\d*)?`, not `\d+\.?\d*`: the latter splits a run of digits n ways (quadratic on a long token).
const NUMBER = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`;
const RUN_TIME = new RegExp(String.raw`^(.+?)\(RunTime\): (${NUMBER}) us\.?\s*$`);
const EVENT_MARK = 'benchmark_harness[';
const RESULTS_FOR = /^Results for \S/;
const REPORT_LINE = new RegExp(String.raw`^(\S+): (${NUMBER}) (?:\(±(${NUMBER})\) )?(ns|us|ms|s)/iteration\b`);

/**
 * dartReader reads Dart `benchmark_harness` output:
 *
 * - `Name(RunTime): 123.4 us.` lines of `BenchmarkBase.report()`: metric
 *   `time` in `us` per run; a name printed again adds a value.
 * - `benchmark_harness[{"event":"benchmark.result","params":{...}}]` event
 *   lines of the experimental CLI harness (mraleph/benchmark_harness):
 *   params `{name, elapsed, iterations}` give `elapsed / iterations` in `ms`
 *   per iteration; params with a `values` array give one value each.
 * - that CLI's report after `Results for <file>`: `name: X ms/iteration`,
 *   also `name: X (±E) ns/iteration` (a mean with error: `summary-only`).
 *
 * Android logcat (`I/flutter (pid): `) and `flutter: ` prefixes are removed
 * first; every other line is ignored.
 */
export const dartReader: Reader = {
  format: 'dart',
  description: 'Dart benchmark_harness output: Name(RunTime): X us., benchmark_harness[...] events, Results for ... reports',
  sniff(head: string): boolean {
    return /\(RunTime\): [0-9.eE+-]+ us/.test(head) || /benchmark_harness\[\{/.test(head) || /^Results for \S+\.dart\s*$/m.test(head);
  },
  read(file: SourceFile): ReadResult {
    const order: string[] = [];
    const byName = new Map<string, Measurement>();
    let summaryOnly = false;
    let inReport = false;
    const budget = new ReadBudget(file.path);
    const add = (line: number, name: string, unit: string, value: number) => {
      budget.value(line);
      const existing = byName.get(name);
      if (!existing) {
        budget.series(line);
        const m: Measurement = { benchmark: name, metric: 'time', unit, better: directionOf('time', unit), values: [value] };
        byName.set(name, m);
        order.push(name);
        const entry = entries.get(name);
        if (entry !== undefined) {
          entry.measurement = m;
          entry.factor = conversionFactor('us', unit);
        }
        return;
      }
      const factor = conversionFactor(unit, existing.unit);
      if (factor === undefined) throw new FormatError(file.path, line, `benchmark "${name}" is reported in ${unit} and in ${existing.unit}`);
      existing.values.push(value * factor);
    };

    // The usual `Name(RunTime): X us.` line is read in place (fastRunTime)
    // and its name compared with the names expected next; a line without
    // any keyword is skipped on sight; every other line, and every error,
    // takes the general path below.
    const input = file.text;
    const cursor = new LineCursor(file);
    const runTimeMark = new Finder(input, '(RunTime): ');
    const eventMark = new Finder(input, EVENT_MARK);
    const entries = new Map<string, Entry>();
    const names = new NameOrder<Entry>();
    const window = new TextWindow(input);
    const nameCodes = new NameCodes();
    for (;;) {
      // The line after the current one, when it is the RunTime line of the
      // name expected next: read forwards to its end from the window, so that
      // it costs no search for its `\n` or its `(RunTime): ` (the cursor skips it).
      const after = cursor.newline + 1;
      if (after > 0 && after < input.length) {
        window.cover(after);
        const line = expectedRunTime(window, nameCodes.codes, after, names.candidate(0)) ?? expectedRunTime(window, nameCodes.codes, after, names.candidate(1));
        if (line !== undefined) {
          cursor.skip(line.newline);
          budget.value(cursor.number);
          (line.entry.measurement as Measurement).values.push(line.value * (line.entry.factor as number));
          names.record(line.entry);
          continue;
        }
      }
      if (!cursor.next()) break;
      const { number, start, end } = cursor;
      const isPrefixed = (start + 1 < end && input.charCodeAt(start + 1) === 47) || (input.charCodeAt(start) === 102 && input.startsWith('flutter: ', start));
      if (!isPrefixed) {
        const mark = runTimeMark.next(start);
        if (mark < end) {
          const value = fastRunTime(input, start, mark, end);
          if (value === value) {
            let entry = names.find(input, start, mark);
            if (entry === undefined) {
              const name = input.slice(start, mark);
              entry = entries.get(name);
              if (entry === undefined) {
                const existing = byName.get(name);
                const factor = existing === undefined ? 1 : conversionFactor('us', existing.unit);
                entry = { name, at: start, next: undefined, measurement: existing, factor, plain: !LINE_BREAK.test(name), codes: nameCodes.add(name), unprefixed: !(name.charCodeAt(1) === 47 || name.startsWith('flutter: ')) };
                entries.set(name, entry);
              }
            }
            // A name from an event may hold what `.` does not match; and units that do not convert are the general path's error.
            if (entry.plain && entry.factor !== undefined) {
              budget.value(number);
              if (entry.measurement === undefined) {
                budget.series(number);
                const m: Measurement = { benchmark: entry.name, metric: 'time', unit: 'us', better: directionOf('time', 'us'), values: [value] };
                byName.set(entry.name, m);
                order.push(entry.name);
                entry.measurement = m;
              } else {
                entry.measurement.values.push(value * entry.factor);
              }
              names.record(entry);
              continue;
            }
          }
        } else if (!inReport && eventMark.next(start) >= end && !input.startsWith('Results for ', start)) {
          continue;
        }
      }
      const raw = cursor.line();
      // Each pattern runs only on lines holding its keyword, so junk lines cost a few indexOf.
      const prefixed = raw.charCodeAt(1) === 47 || raw.startsWith('flutter: ');
      const text = prefixed ? raw.replace(LOGCAT_PREFIX, '').replace(FLUTTER_PREFIX, '') : raw;
      const runTime = text.includes('(RunTime): ') ? RUN_TIME.exec(text) : null;
      if (runTime) {
        const value = parseFiniteNumber(runTime[2]);
        const name = runTime[1].trim();
        if (value === undefined) throw new FormatError(file.path, number, `RunTime of "${name}" is not a finite number`);
        if (value < 0) throw new FormatError(file.path, number, `RunTime of "${name}" is negative (${runTime[2]} us); a time cannot be below zero`);
        if (name === '') throw new FormatError(file.path, number, 'benchmark name is empty');
        add(number, name, 'us', value);
        continue;
      }
      const event = eventPayload(text);
      if (event !== undefined) {
        const payload = event.trimEnd();
        if (!payload.endsWith(']')) throw new FormatError(file.path, number, 'benchmark_harness event is cut off: no closing "]"');
        for (const [name, unit, value] of readEvent(file, number, payload.slice(0, -1))) add(number, name, unit, value);
        continue;
      }
      if (text.startsWith('Results for ') && RESULTS_FOR.test(text)) {
        inReport = true;
        continue;
      }
      const report = inReport ? REPORT_LINE.exec(text) : null;
      if (report) {
        const value = parseFiniteNumber(report[2]);
        if (value === undefined) throw new FormatError(file.path, number, `time of "${report[1]}" is not a finite number`);
        if (value < 0) throw new FormatError(file.path, number, `time of "${report[1]}" is negative (${report[2]}); a time cannot be below zero`);
        if (report[3] !== undefined) summaryOnly = true;
        add(number, report[1], report[4], value);
      }
    }
    if (order.length === 0) {
      throw new FormatError(file.path, undefined, 'no benchmark_harness results found (expected "Name(RunTime): X us." lines or benchmark_harness[...] events)');
    }
    const warnings: ReadWarning[] = summaryOnly
      ? [{ kind: 'summary-only', message: 'the report gives a mean with an error bar (±) per benchmark, not its samples: each contributes one value' }]
      : [];
    return { measurements: order.map((n) => byName.get(n) as Measurement), warnings, hints: {} };
  },
};

/** Entry is a name's series, once it has one, with the factor from `us` to its unit. */
interface Entry extends NamedEntry {
  measurement: Measurement | undefined;
  factor: number | undefined;
  /** plain says the name holds no line break (`\r`, U+2028, U+2029), which RUN_TIME's `.` would not match. */
  plain: boolean;
  /** codes is where the name's code units start in the reader's NameCodes. */
  codes: number;
  /** unprefixed says a line that starts with the name does not look like a logcat or `flutter: ` line. */
  unprefixed: boolean;
}

/** ExpectedLine is what expectedRunTime read: the entry, the value, and where the line's `\n` is. */
interface ExpectedLine {
  entry: Entry;
  value: number;
  newline: number;
}

const EXPECTED: ExpectedLine = { entry: undefined as unknown as Entry, value: 0, newline: 0 };

/** MARK_CODES are the units of `(RunTime): `. */
const MARK_CODES = Array.from('(RunTime): ', (c) => c.charCodeAt(0));

/**
 * expectedRunTime reads the line at `start` forwards as the RunTime line of
 * the known name of `entry`, as fastRunTime would read it: the name, then
 * `(RunTime): ` (the first on the line: a name cannot end in its middle and
 * leave another whole one after it), a plain decimal, ` us`, maybe `.`, and
 * spaces or tabs to the end of the line (a `\n`, `\r\n` or the end of the
 * text). The line is read from `window` (which covers `start`) and the name
 * compared with its units in `names`; a line that runs past the window (to
 * its 0) is not read here. Returns the value and the line's end in a shared
 * object, or undefined for any other line.
 */
function expectedRunTime(window: TextWindow, names: Uint16Array, start: number, entry: Entry | undefined): ExpectedLine | undefined {
  if (entry === undefined || !entry.plain || !entry.unprefixed || entry.factor === undefined || entry.measurement === undefined) return undefined;
  const codes = window.codes;
  const base = window.base;
  const s = start - base;
  const length = entry.name.length;
  // Past the window's end (its 0) its array holds units of an earlier window.
  if (start + length + 11 >= window.limit) return undefined;
  const at = entry.codes;
  for (let i = length - 1; i >= 0; i--) if (codes[s + i] !== names[at + i]) return undefined;
  let p = s + length;
  for (let i = 0; i < 11; i++) if (codes[p + i] !== MARK_CODES[i]) return undefined;
  // A plain decimal, read once: digits with at most one dot.
  const from = p + 11;
  p = from;
  let mantissa = 0;
  let dot = -1;
  let c = codes[p];
  for (;;) {
    if (c >= 48 && c <= 57) mantissa = mantissa * 10 + (c - 48);
    else if (c === 46 && dot < 0) dot = p;
    else break;
    c = codes[++p];
  }
  // `5.` and `.5` are numbers to RUN_TIME; `.` is not.
  const digits = p - from - (dot < 0 ? 0 : 1);
  if (digits === 0 || c !== 32 || codes[p + 1] !== 117 || codes[p + 2] !== 115) return undefined;
  let q = p + 3;
  c = codes[q];
  if (c === 46) c = codes[++q];
  while (c === 32 || c === 9) c = codes[++q];
  // The end of the line: `\n`, `\r\n` (a `\r` alone is part of the line), or the end of the text (the window's 0 there).
  if (c === 13) {
    c = codes[++q];
    if (c !== 10) return undefined;
  } else if (c !== 10 && !(c === 0 && q + base === window.text.length)) return undefined;
  let value: number;
  // As fastRunTime.
  if (digits <= 15) value = dot < 0 ? mantissa : mantissa / POWERS_OF_TEN[p - dot - 1];
  else {
    value = Number(window.text.slice(from + base, p + base));
    if (!Number.isFinite(value)) return undefined;
  }
  EXPECTED.entry = entry;
  EXPECTED.value = value;
  EXPECTED.newline = q + base;
  return EXPECTED;
}

const LINE_BREAK = /[\r\u2028\u2029]/;

/**
 * fastRunTime reads the usual `Name(RunTime): 123.45 us.` line in place, as
 * RUN_TIME would: the `(RunTime): ` at `mark` (the first on the line) is
 * followed by a plain decimal, ` us`, maybe `.`, and spaces or tabs to the end;
 * the name before it is not empty and neither starts nor ends with white
 * space. Returns the value, or NaN for any other line.
 */
function fastRunTime(text: string, start: number, mark: number, end: number): number {
  if (mark === start || isSpaceOrBreak(text.charCodeAt(start)) || isSpaceOrBreak(text.charCodeAt(mark - 1))) return NaN;
  // A plain decimal, read once: digits with at most one dot.
  const from = mark + 11;
  let p = from;
  let mantissa = 0;
  let dot = -1;
  let c = text.charCodeAt(p);
  for (;;) {
    if (c >= 48 && c <= 57) mantissa = mantissa * 10 + (c - 48);
    else if (c === 46 && dot < 0) dot = p;
    else break;
    c = text.charCodeAt(++p);
  }
  // `5.` and `.5` are numbers to RUN_TIME; `.` is not.
  const digits = p - from - (dot < 0 ? 0 : 1);
  if (digits === 0 || p + 3 > end || c !== 32 || text.charCodeAt(p + 1) !== 117 || text.charCodeAt(p + 2) !== 115) return NaN;
  let q = p + 3;
  if (q < end && text.charCodeAt(q) === 46) q += 1;
  while (q < end && ((c = text.charCodeAt(q)) === 32 || c === 9)) q += 1;
  if (q !== end) return NaN;
  // As readDecimal: up to 15 digits the mantissa is exact and an exact power of ten divides it with one rounding, as Number() rounds.
  if (digits <= 15) return dot < 0 ? mantissa : mantissa / POWERS_OF_TEN[p - dot - 1];
  const value = Number(text.slice(from, p));
  return Number.isFinite(value) ? value : NaN;
}

/** isSpaceOrBreak says whether trim() would remove the character: a name that starts or ends with one goes the general way. */
function isSpaceOrBreak(c: number): boolean {
  return c <= 32 || c >= 0x7f;
}

/**
 * eventPayload finds `benchmark_harness[{...` and returns the text from the
 * `{` to the end of the line: the first marker with no line break (`\r`,
 * U+2028, U+2029) after it, as `/benchmark_harness\[(\{.*)$/` did, but
 * looking only after the last line break instead of rescanning to the end
 * from every marker (quadratic).
 */
function eventPayload(text: string): string | undefined {
  const lastBreak = Math.max(text.lastIndexOf('\r'), text.lastIndexOf('\u2028'), text.lastIndexOf('\u2029'));
  // The payload starts at the `{`, one past the marker, and must begin after the last break.
  const from = Math.max(0, lastBreak - EVENT_MARK.length + 1);
  for (let at = text.indexOf(EVENT_MARK, from); at >= 0; at = text.indexOf(EVENT_MARK, at + 1)) {
    const open = at + EVENT_MARK.length;
    if (open > lastBreak && text.charCodeAt(open) === 0x7b) return text.slice(open);
  }
  return undefined;
}

/** readEvent returns the [name, unit, value] results of one event line; events other than benchmark.result give none. */
function readEvent(file: SourceFile, line: number, payload: string): [string, string, number][] {
  let event: unknown;
  checkJsonElementCount(file.path, payload, line);
  try {
    event = JSON.parse(payload);
  } catch (error) {
    throw new FormatError(file.path, line, `benchmark_harness event is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const fail = (message: string): never => {
    throw new FormatError(file.path, line, `benchmark_harness event: ${message}`);
  };
  if (event === null || typeof event !== 'object' || Array.isArray(event)) fail('expected a JSON object');
  const { event: kind, params } = event as Record<string, unknown>;
  if (typeof kind !== 'string') fail('"event" is not a string');
  if (kind !== 'benchmark.result') return [];
  if (params === null || typeof params !== 'object' || Array.isArray(params)) fail('"params" of benchmark.result is not an object');
  const p = params as Record<string, unknown>;
  if (typeof p.name !== 'string' || p.name.trim() === '') fail('params.name is not a non-empty string');
  const name = (p.name as string).trim();
  const iterations = p.iterations;
  if (typeof iterations !== 'number' || !Number.isFinite(iterations) || iterations <= 0) fail('params.iterations is not a positive number');
  const perIteration = (elapsed: unknown, at: string): number => {
    if (typeof elapsed !== 'number' || !Number.isFinite(elapsed) || elapsed < 0) fail(`${at} is not a finite, non-negative number of milliseconds`);
    return (elapsed as number) / (iterations as number);
  };
  if (p.elapsed !== undefined) return [[name, 'ms', perIteration(p.elapsed, 'params.elapsed')]];
  if (Array.isArray(p.values) && p.values.length > 0) {
    return p.values.map((v, i): [string, string, number] => [name, 'ms', perIteration(v, `params.values[${i}]`)]);
  }
  return fail('benchmark.result has neither params.elapsed nor a non-empty params.values');
}
