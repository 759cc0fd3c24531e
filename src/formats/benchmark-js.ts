import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { checkText, lineAt } from './json-document.ts';
import { isSpace } from './text-lines.ts';

/**
 * The shape `String(benchmark)` gives, found anywhere in the sniffed head. No
 * quantifier here can trade characters with its neighbour, so a long run of
 * digits costs one pass.
 */
const SNIFF = / x [0-9][0-9,]*(?:\.[0-9]+)? ops\/sec \u00c2?\u00b1[0-9]/;
const OPS_SEC = ' ops/sec ';
const RUN_SAMPLED = ' run';
const SAMPLED = ' sampled)';

/** ResultLine locates the parts of a line that has a result's shape. */
interface ResultLine {
  nameEnd: number;
  rateStart: number;
  rateEnd: number;
  rmeStart: number;
  rmeEnd: number;
}

/** Series is one benchmark's values, with its place in the order of first appearance. */
interface Series {
  name: string;
  index: number;
  values: number[];
}

/** nextMarker is the position of the next ` ops/sec ` followed by `±` (or `Â±`) at or after `from`, or -1. */
function nextMarker(text: string, from: number): number {
  for (let pm = text.indexOf('\u00b1', from + OPS_SEC.length); pm >= 0; pm = text.indexOf('\u00b1', pm + 1)) {
    const at = text.charCodeAt(pm - 1) === 0xc2 ? pm - 1 - OPS_SEC.length : pm - OPS_SEC.length;
    if (at >= from && text.startsWith(OPS_SEC, at)) return at;
  }
  return -1;
}

/** sameAt says whether text[start, end) is `name`, by character codes (startsWith cost more than the rest of a line). */
function sameAt(text: string, start: number, end: number, name: string): boolean {
  if (name.length !== end - start) return false;
  for (let i = 0; i < name.length; i++) if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false;
  return true;
}

/** lineProblem says what is wrong with a line of a result's shape. */
function lineProblem(text: string, nameStart: number, nameEnd: number, hz: number | undefined, r: ResultLine): string {
  const name = text.slice(nameStart, Math.min(nameEnd, nameStart + 200));
  if (nameStart === nameEnd) return 'a result line without a benchmark name before " x "';
  if (hz === undefined) return `${name}: rate "${text.slice(r.rateStart, Math.min(r.rateEnd, r.rateStart + 40))}" is not a number of operations per second`;
  return `${name}: "${text.slice(r.rmeStart, Math.min(r.rmeEnd, r.rmeStart + 40))}" is not a relative margin of error such as ±1.23%`;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * parseResultLine checks the shape `<name> x <rate> ops/sec <rme> (<n> runs
 * sampled)` around the line's last ` ops/sec ` at `marker`, by character
 * codes (a regular expression per line made the reader 40 MB/s), undefined
 * when the line has another shape. The rate and margin are returned
 * unchecked, so a line of the right shape with a broken number is an error,
 * not skipped.
 */
function parseResultLine(text: string, lineStart: number, marker: number, lineEnd: number): ResultLine | undefined {
  // The tail: `<rme> (<digits> run[s] sampled)`, then only white space.
  const rmeStart = marker + OPS_SEC.length;
  let end = lineEnd;
  while (end > rmeStart && isSpace(text.charCodeAt(end - 1))) end -= 1;
  if (!text.startsWith(SAMPLED, end - SAMPLED.length)) return undefined;
  let p = end - SAMPLED.length;
  if (text.charCodeAt(p - 1) === 115 /* s */) p -= 1;
  if (!text.startsWith(RUN_SAMPLED, p - RUN_SAMPLED.length)) return undefined;
  p -= RUN_SAMPLED.length;
  const digitsEnd = p;
  while (p > rmeStart && isDigit(text.charCodeAt(p - 1))) p -= 1;
  if (p === digitsEnd || text.charCodeAt(p - 1) !== 40 /* ( */ || text.charCodeAt(p - 2) !== 32) return undefined;
  const rmeEnd = p - 2;
  if (rmeEnd <= rmeStart || text.indexOf(' ', rmeStart) < rmeEnd) return undefined;
  // The head: `<name> x <rate>`.
  const space = text.lastIndexOf(' ', marker - 1);
  const rateStart = space + 1;
  if (space - 2 < lineStart || rateStart >= marker) return undefined;
  if (text.charCodeAt(space - 1) !== 120 /* x */ || text.charCodeAt(space - 2) !== 32) return undefined;
  return { nameEnd: space - 2, rateStart, rateEnd: marker, rmeStart, rmeEnd };
}

/** parseRate reads `1,234,567` or `62.48`; undefined for anything else. */
function parseRate(text: string, start: number, end: number): number | undefined {
  if (!isDigit(text.charCodeAt(start))) return undefined;
  // Whole rates (every rate of 100 ops/sec and more) are summed up digit by
  // digit, exactly while below 2^53; others go through Number.
  let value = 0;
  let whole = true;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (isDigit(c)) value = value * 10 + (c - 48);
    else if (c === 46) whole = false;
    else if (c !== 44) return undefined;
  }
  if (whole && value <= Number.MAX_SAFE_INTEGER) return value;
  const digits = text.slice(start, end).replaceAll(',', '');
  const parsed = Number(digits);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** isMargin says whether [start, end) is `±1.23%`. */
function isMargin(text: string, start: number, end: number): boolean {
  // `Â±` is the UTF-8 `±` of a log that went through Latin-1 on its way here.
  if (text.charCodeAt(start) === 0xc2) start += 1;
  if (text.charCodeAt(start) !== 0xb1 || text.charCodeAt(end - 1) !== 37 /* % */) return false;
  let i = start + 1;
  const digitsFrom = i;
  while (i < end - 1 && isDigit(text.charCodeAt(i))) i += 1;
  if (i === digitsFrom) return false;
  if (i < end - 1 && text.charCodeAt(i) === 46) {
    i += 1;
    const fractionFrom = i;
    while (i < end - 1 && isDigit(text.charCodeAt(i))) i += 1;
    if (i === fractionFrom) return false;
  }
  return i === end - 1;
}

/**
 * benchmarkJsReader reads the lines benchmark.js prints for each finished
 * benchmark, `String(event.target)` in a suite's `cycle` handler:
 *
 *     RegExp#test x 14,823,402 ops/sec ±6.45% (56 runs sampled)
 *
 * Each such line is one value of metric `throughput` in `ops/s`,
 * higher-is-better: the benchmark's mean rate (`hz`). The name is everything
 * before the last ` x <rate> ops/sec`, so names holding ` x ` themselves are
 * kept whole (a `±` mangled to `Â±` on the way is accepted). A name that occurs again (a log of several runs of the suite)
 * adds a value. Other lines (`Fastest is ...`, program output, a failed
 * benchmark's `name: error`, which cannot be told from program output) are
 * ignored. benchmark.js prints no samples, so one `summary-only` warning per
 * file says each line contributes one value.
 */
export const benchmarkJsReader: Reader = {
  format: 'benchmark-js',
  description: 'benchmark.js console lines (name x 1,234 ops/sec ±1.23% (90 runs sampled))',

  sniff(head: string): boolean {
    return SNIFF.test(head);
  },

  read(file: SourceFile): ReadResult {
    checkText(file);
    if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
    const text = file.text;
    const budget = new ReadBudget(file.path);
    const series = new Map<string, Series>();
    const order: Series[] = [];
    // A log repeats its suite in order: the series after the last one read is
    // compared in place first, so most lines cost no name string and no hash.
    let expect = 0;
    // Result lines are found by their `±`, one character that indexOf finds at
    // memchr speed, then checked for ` ops/sec ` before it; most of a CI log
    // is other output, skipped so. Line numbers are counted only for an error.
    let hit = nextMarker(text, 0);
    while (hit >= 0) {
      const newline = text.indexOf('\n', hit);
      const lineEnd = newline < 0 ? text.length : newline;
      const lineStart = text.lastIndexOf('\n', hit) + 1;
      // The next marker is found once: past this line it is the next line's hit.
      let next = nextMarker(text, hit + OPS_SEC.length);
      const marker = next >= 0 && next < lineEnd ? text.lastIndexOf(OPS_SEC, lineEnd - 1) : hit;
      if (next >= 0 && next < lineEnd) next = nextMarker(text, lineEnd);
      hit = next;
      const result = parseResultLine(text, lineStart, marker, lineEnd);
      if (result === undefined) continue;
      let nameStart = lineStart;
      let nameEnd = result.nameEnd;
      while (nameStart < nameEnd && isSpace(text.charCodeAt(nameStart))) nameStart += 1;
      while (nameEnd > nameStart && isSpace(text.charCodeAt(nameEnd - 1))) nameEnd -= 1;
      const hz = parseRate(text, result.rateStart, result.rateEnd);
      if (nameStart === nameEnd || hz === undefined || !isMargin(text, result.rmeStart, result.rmeEnd)) {
        throw new FormatError(file.path, lineAt(text, lineStart), lineProblem(text, nameStart, nameEnd, hz, result));
      }
      budget.value();
      let s = order.length > 0 ? order[expect] : undefined;
      if (s === undefined || !sameAt(text, nameStart, nameEnd, s.name)) {
        const name = text.slice(nameStart, nameEnd);
        s = series.get(name);
        if (!s) {
          budget.series();
          s = { name, index: order.length, values: [] };
          series.set(name, s);
          order.push(s);
        }
      }
      expect = s.index + 1 === order.length ? 0 : s.index + 1;
      s.values.push(hz);
    }
    if (series.size === 0) {
      throw new FormatError(file.path, undefined, 'no benchmark.js result lines (name x 1,234 ops/sec ±1.23% (90 runs sampled)) found; print String(event.target) in the suite\'s cycle handler');
    }
    const measurements: Measurement[] = order.map(({ name, values }) => ({ benchmark: name, metric: 'throughput', unit: 'ops/s', better: 'higher', values }));
    const warnings: ReadWarning[] = [{
      kind: 'summary-only',
      message: `${file.path}: benchmark.js prints each benchmark's mean rate, not its samples: each line contributes one value; run the suite several times for more`,
    }];
    return { measurements, warnings, hints: {} };
  },
};
