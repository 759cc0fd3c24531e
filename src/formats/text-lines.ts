import { Buffer } from 'node:buffer';
import { FormatError } from './format-error.ts';
import { checkText } from './json-document.ts';
import type { SourceFile } from './reader.ts';

/**
 * LineCursor walks the lines of a text input in place (`\n` ends a line,
 * the `\r` of a CRLF is not part of it, the text after the last `\n` is a
 * line too) with no object or string per line: `start` and `end` delimit
 * the current line in `text`, and a reader makes a string of it only when
 * it needs one (`line()`). An array of line objects would need gigabytes for
 * an input of 100 M short lines (and V8 aborts on arrays that long). The
 * input is checked (checkText, not empty) on the first call of next().
 */
export class LineCursor {
  readonly text: string;
  /** number is the 1-based number of the current line. */
  number = 0;
  /** start is where the current line begins in text. */
  start = 0;
  /** end is where its text ends: at its `\n`, or at the `\r` before it, or at the end of the text. */
  end = 0;
  /** newline is the position of the current line's `\n`, text.length for the last line. */
  newline = -1;
  private readonly file: SourceFile;

  constructor(file: SourceFile) {
    this.file = file;
    this.text = file.text;
  }

  /** next moves to the next line and says whether there is one. */
  next(): boolean {
    const text = this.text;
    const start = this.newline + 1;
    if (start === 0) {
      checkText(this.file);
      if (text.trim() === '') throw new FormatError(this.file.path, undefined, 'file is empty');
    } else if (start > text.length) {
      return false;
    }
    let newline = text.indexOf('\n', start);
    let end = newline;
    if (newline < 0) end = newline = text.length;
    else if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
    this.number += 1;
    this.start = start;
    this.end = end;
    this.newline = newline;
    return true;
  }

  /**
   * skip moves past the line after the current one, whose `\n` the caller
   * found at `newline` (text.length for the last line) as it read the line
   * forwards: it becomes the current line, with no search for its end.
   */
  skip(newline: number): void {
    const start = this.newline + 1;
    this.number += 1;
    this.start = start;
    this.end = newline > start && newline < this.text.length && this.text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    this.newline = newline;
  }

  /** line returns the current line as a string. */
  line(): string {
    return this.text.slice(this.start, this.end);
  }
}

/** NOWHERE is a position past the end of any string (V8's longest has under 2^29 characters), kept a small integer so that positions stay small integers. */
export const NOWHERE = 2 ** 30 - 1;

/**
 * Finder finds a string (a keyword, a rare character) in a text from
 * positions that only move forward, as a reader's lines do: each occurrence
 * is searched for once with indexOf, however many lines ask, so asking on
 * every line costs one pass over the text in all (indexOf bounded by hand
 * to the line would rescan, and an unbounded one per line is quadratic).
 */
export class Finder {
  private readonly text: string;
  private readonly needle: string;
  /** found is the last position found, NOWHERE when there is none further. */
  private found = -1;

  constructor(text: string, needle: string) {
    this.text = text;
    this.needle = needle;
  }

  /** next is the first position at or after `from` where the needle starts, or NOWHERE; `from` must not decrease between calls. */
  next(from: number): number {
    if (this.found < from) {
      const at = this.text.indexOf(this.needle, from);
      this.found = at < 0 ? NOWHERE : at;
    }
    return this.found;
  }
}

/** NamedEntry is what a reader keeps per result name; `next` is the entry whose line followed this one's last time. */
export interface NamedEntry {
  name: string;
  /**
   * at is where the name stands in the text, -1 when it does not: names are
   * compared there, in the text itself, which is read faster than the name
   * (a slice of the text, read through its parent).
   */
  at: number;
  next: NamedEntry | undefined;
}

/** moved notes that entry's name stands at `start` (when it is compared in the text): the line just read is in cache, its first one may not be. */
function moved<E extends NamedEntry>(entry: E, start: number): E {
  if (entry.at >= 0) entry.at = start;
  return entry;
}

/** sameName says whether text[start, end) is entry's name. */
export function sameName(text: string, start: number, end: number, entry: NamedEntry): boolean {
  const at = entry.at;
  if (at < 0) return sameText(text, start, end, entry.name);
  let i = entry.name.length;
  if (end - start !== i) return false;
  while (i > 0) {
    i -= 1;
    if (text.charCodeAt(start + i) !== text.charCodeAt(at + i)) return false;
  }
  return true;
}

/**
 * NameOrder predicts the name of the next result line: results come back in
 * the order they came before (the same name again under `-count N`, or the
 * name that followed it last time when rounds of a suite are concatenated),
 * so a line's name is compared in place with one or two known names instead
 * of becoming a string and a map lookup.
 */
export class NameOrder<E extends NamedEntry> {
  private last: E | undefined;
  private followed = false;

  /** find returns the predicted entry whose name is text[start, end), if it is one of them. */
  find(text: string, start: number, end: number): E | undefined {
    const last = this.last;
    if (last === undefined) return undefined;
    const next = last.next as E | undefined;
    const likely = this.followed ? next : last;
    if (likely !== undefined && sameName(text, start, end, likely)) return moved(likely, start);
    const other = this.followed ? last : next;
    if (other !== undefined && sameName(text, start, end, other)) return moved(other, start);
    return undefined;
  }

  /** candidate returns the entry most likely next (0) or the other one (1), to compare in place where a line's name does not end in a known place. */
  candidate(which: 0 | 1): E | undefined {
    const last = this.last;
    if (last === undefined) return undefined;
    return (this.followed === (which === 0) ? last.next : last) as E | undefined;
  }

  /** record notes that the current line is entry's. */
  record(entry: E): void {
    const last = this.last;
    if (last !== undefined) {
      this.followed = last.next === entry && last !== entry;
      last.next = entry;
    }
    this.last = entry;
  }
}

/** sameText says whether text[start, end) is `name`, compared backwards (names of one suite tend to differ at their end). */
export function sameText(text: string, start: number, end: number, name: string): boolean {
  let i = name.length;
  if (end - start !== i) return false;
  while (i > 0) {
    i -= 1;
    if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false;
  }
  return true;
}

// One branch per shape and no quantifier that can trade characters with its
// neighbour (`\d+\.?\d*` can split a run of digits n ways: quadratic on a
// long token that fails at its end).
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** parseFiniteNumber parses a decimal as printed by harnesses (commas as thousands separators allowed) or returns undefined. */
export function parseFiniteNumber(text: string): number | undefined {
  const value = readDecimal(text, 0, text.length);
  return value === value ? value : parseGeneral(text);
}

/**
 * readDecimal reads text[start, end) as parseFiniteNumber would, from its
 * characters, when it is the usual number: `1234`, `-0.6075`, `1,234,567.5`
 * (a comma counts as a separator where parseFiniteNumber's general path
 * removes it: three digits, then a non-digit or the end, follow). An integer
 * of at most 15 digits (or 16, up to 2^53) over an exact power of ten is
 * correctly rounded, as Number() is; a longer plain decimal without commas
 * goes to Number() as it is. NaN for anything else: the caller then takes
 * its general path.
 */
export function readDecimal(text: string, start: number, end: number): number {
  let i = start;
  let c = text.charCodeAt(i);
  const negative = c === 45;
  if (negative || c === 43) i += 1;
  let mantissa = 0;
  let digits = 0;
  let decimals = 0;
  let dot = false;
  let commas = false;
  for (; i < end; i++) {
    c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits += 1;
      if (dot) decimals += 1;
    } else if (c === 46 && !dot) {
      dot = true;
    } else if (c === 44 && i + 3 < end && isDigit(text.charCodeAt(i + 1)) && isDigit(text.charCodeAt(i + 2)) && isDigit(text.charCodeAt(i + 3)) && (i + 4 >= end || !isDigit(text.charCodeAt(i + 4)))) {
      // a thousands separator: skipped
      commas = true;
    } else {
      return NaN;
    }
  }
  if (digits === 0) return NaN;
  // Up to 2^53 the mantissa is exact (as are all its prefixes), so a 16-digit one below it is read here too.
  if (digits > 15 && !(digits === 16 && mantissa <= 9007199254740992)) {
    if (commas) return NaN;
    const value = Number(text.slice(start, end));
    return Number.isFinite(value) ? value : NaN;
  }
  const value = decimals === 0 ? mantissa : mantissa / POWERS_OF_TEN[decimals];
  return negative ? -value : value;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function parseGeneral(text: string): number | undefined {
  const cleaned = text.replace(/,(?=\d{3}(\D|$))/g, '');
  if (!DECIMAL.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}

/** isSpace says whether a UTF-16 code unit is white space as a regular expression's `\s` sees it. */
export function isSpace(c: number): boolean {
  // Printable ASCII, the usual character, is decided by the first two tests.
  if (c < 0xa0) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** TrailingFields is a line cut into its last whitespace-separated fields and what precedes them. */
export interface TrailingFields {
  /** rest is the text before the first field, without the white space that separates them. */
  rest: string;
  /** fields are the last fields, in order. */
  fields: string[];
  /** gaps[i] is the white space before fields[i] (gaps[0] follows rest; empty when rest is empty). */
  gaps: string[];
}

/**
 * trailingFields cuts the last `count` whitespace-separated fields off a
 * line (trailing white space ignored), scanning backwards once: the shape
 * of result lines is fixed at their end (`... 100 1 1.2 ms`) while the name
 * in front may hold anything, and matching that with a lazy `^(.*?)\s+...`
 * regular expression is quadratic on long lines. Undefined when the line has
 * fewer fields.
 */
export function trailingFields(line: string, count: number): TrailingFields | undefined {
  let end = line.length;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end -= 1;
  const fields: string[] = [];
  const gaps: string[] = [];
  for (let k = 0; k < count; k++) {
    let start = end;
    while (start > 0 && !isSpace(line.charCodeAt(start - 1))) start -= 1;
    if (start === end) return undefined;
    fields.push(line.slice(start, end));
    let gapStart = start;
    while (gapStart > 0 && isSpace(line.charCodeAt(gapStart - 1))) gapStart -= 1;
    gaps.push(line.slice(gapStart, start));
    end = gapStart;
  }
  fields.reverse();
  gaps.reverse();
  return { rest: line.slice(0, end), fields, gaps };
}

/** POWERS_OF_TEN[k] is 10^k exactly (as literals: `10 ** k` is not always exact). */
export const POWERS_OF_TEN = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/** LINEAR_UNIT_CHECK is how many units of one line are compared pairwise before a Set takes over (a hostile line may hold millions). */
const LINEAR_UNIT_CHECK = 16;

/**
 * LineFields cuts one line of a large text into its white-space-separated
 * fields in place, as `line.trim().split(/\s+/)` would, but as offsets into
 * the whole text: a result line costs no string per field. Numbers are read
 * from the characters, units are kept as strings only when they differ from
 * the line before (results repeat their units), and fields become strings
 * only on demand. One instance is reused for every line of an input.
 */
export class LineFields {
  /** count is the number of fields of the last line split. */
  count = 0;
  /** values is scratch space for a reader's numbers of the current line. */
  readonly values: number[] = [];
  /** units[k] is the unit read by unit(…, k) on the current line. */
  readonly units: string[] = [];
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);
  private lastUnits: string[] = [];
  private unitSet = new Set<string>();

  /** split cuts text[start, end) into fields and returns how many there are. */
  split(text: string, start: number, end: number): number {
    let starts = this.starts;
    let ends = this.ends;
    let count = 0;
    let i = start;
    for (;;) {
      while (i < end) {
        const c = text.charCodeAt(i);
        if (c === 32 || c === 9 || (c < 128 ? ASCII_SPACE[c] === 1 : isSpace(c))) i += 1;
        else break;
      }
      if (i >= end) break;
      if (count === starts.length) {
        this.starts = starts = grow(starts);
        this.ends = ends = grow(ends);
      }
      starts[count] = i;
      while (i < end) {
        const c = text.charCodeAt(i);
        if (c === 32 || c === 9 || (c < 128 ? ASCII_SPACE[c] === 1 : isSpace(c))) break;
        i += 1;
      }
      ends[count] = i;
      count += 1;
    }
    this.count = count;
    return count;
  }

  /** text returns field i as a string. */
  text(text: string, i: number): string {
    return text.slice(this.starts[i], this.ends[i]);
  }

  /** isCount says whether field i is all ASCII digits (`/^\d+$/`). */
  isCount(text: string, i: number): boolean {
    const end = this.ends[i];
    for (let p = this.starts[i]; p < end; p++) {
      const c = text.charCodeAt(p);
      if (c < 48 || c > 57) return false;
    }
    return true;
  }

  /**
   * number reads field i as parseFiniteNumber would, with the same result:
   * plain decimals of at most 15 digits and 22 decimals are computed from
   * their characters (an integer over an exact power of ten is correctly
   * rounded, as Number() is); anything else goes through parseFiniteNumber.
   */
  number(text: string, i: number): number | undefined {
    const value = readDecimal(text, this.starts[i], this.ends[i]);
    return value === value ? value : parseFiniteNumber(this.text(text, i));
  }

  /** unit returns field i as the k-th unit of the line: the same string as the line before's k-th unit when the characters match. */
  unit(text: string, i: number, k: number): string {
    const start = this.starts[i];
    const length = this.ends[i] - start;
    const known = this.lastUnits[k];
    let unit: string;
    if (known !== undefined && known.length === length && text.startsWith(known, start)) unit = known;
    else this.lastUnits[k] = unit = text.slice(start, start + length);
    this.units[k] = unit;
    return unit;
  }

  /** repeatsUnit says whether the k-th unit of the line equals an earlier one (call for k = 0, 1, 2 … in order). */
  repeatsUnit(k: number): boolean {
    const units = this.units;
    const unit = units[k];
    if (k < LINEAR_UNIT_CHECK) {
      for (let j = 0; j < k; j++) if (units[j] === unit) return true;
      return false;
    }
    const set = this.unitSet;
    if (k === LINEAR_UNIT_CHECK) {
      set.clear();
      for (let j = 0; j < k; j++) set.add(units[j]);
    }
    if (set.has(unit)) return true;
    set.add(unit);
    return false;
  }
}

/** ASCII_SPACE[c] is 1 for the ASCII characters that are white space (`\t`, `\n`, `\v`, `\f`, `\r`, space). */
const ASCII_SPACE = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII_SPACE[c] = 1;

/** grow doubles an offset array, keeping its contents. */
function grow(offsets: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(offsets.length * 2);
  bigger.set(offsets);
  return bigger;
}

/** WINDOW is how many code units a TextWindow holds; WINDOW_MARGIN is how many it holds at least past the position asked for (unless the text ends first). */
const WINDOW = 1 << 16;
const WINDOW_MARGIN = 1 << 12;

/**
 * TextWindow holds a window of a text's UTF-16 code units in a typed array,
 * for a reader's fast path to read: an element of a Uint16Array is read
 * faster than charCodeAt, which dispatches on the string's representation
 * at every call. The window moves forwards with the reader (a copy of
 * WINDOW units each time, natively, so a pass costs a copy of the text
 * in all) and memory stays bounded whatever the input's size.
 * codes[p - base] is text.charCodeAt(p) for base <= p < limit, and
 * codes[limit - base] is 0: no text holds a NUL (checkText refuses it), so
 * every scan stops there, and the caller tells the end of the text
 * (limit === text.length) from the end of the window.
 */
export class TextWindow {
  readonly text: string;
  private readonly buffer = Buffer.alloc(2 * (WINDOW + 1));
  readonly codes = new Uint16Array(this.buffer.buffer, this.buffer.byteOffset, WINDOW + 1);
  base = 0;
  limit = 0;

  constructor(text: string) {
    this.text = text;
  }

  /** cover moves the window, if need be, so that it holds text[from, from + WINDOW_MARGIN) or up to the end of the text; positions asked for must not decrease. */
  cover(from: number): void {
    if (from + WINDOW_MARGIN <= this.limit || (this.limit === this.text.length && from >= this.base)) return;
    this.moveTo(from);
  }

  /**
   * retry moves the window to start at `from`, where something that ran
   * past the window's end (a line, a tag) starts, so it can be read again,
   * and says whether it did: false when the window already starts there or
   * holds the rest of the text (the thing is then malformed or longer than
   * the window).
   */
  retry(from: number): boolean {
    if (this.base === from || this.limit === this.text.length) return false;
    this.moveTo(from);
    return true;
  }

  private moveTo(from: number): void {
    const limit = Math.min(this.text.length, from + WINDOW);
    this.buffer.write(this.text.slice(from, limit), 0, 'utf16le');
    this.codes[limit - from] = 0;
    this.base = from;
    this.limit = limit;
  }
}

/**
 * NameCodes keeps the UTF-16 code units of a reader's known names in one
 * typed array, for a fast path to compare a line's name with from a
 * TextWindow: add() returns where a name's units start.
 */
export class NameCodes {
  codes = new Uint16Array(1024);
  private size = 0;

  add(name: string): number {
    const at = this.size;
    const length = name.length;
    if (at + length > this.codes.length) {
      const bigger = new Uint16Array(Math.max(2 * this.codes.length, at + length));
      bigger.set(this.codes.subarray(0, at));
      this.codes = bigger;
    }
    const codes = this.codes;
    for (let i = 0; i < length; i++) codes[at + i] = name.charCodeAt(i);
    this.size = at + length;
    return at;
  }
}
