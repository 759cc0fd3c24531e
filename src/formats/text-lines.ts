import { FormatError } from './format-error.ts';
import { checkText } from './json-document.ts';
import type { SourceFile } from './reader.ts';

/** TextLine is one line of a text input with its 1-based number. */
export interface TextLine {
  number: number;
  text: string;
}

/**
 * splitLines checks a text input and yields its numbered lines (CRLF
 * tolerated), one at a time: an input of 100 M short lines would need
 * gigabytes as an array of line objects, and V8 aborts on arrays that long.
 */
export function* splitLines(file: SourceFile): Generator<TextLine> {
  checkText(file);
  if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
  const text = file.text;
  let number = 0;
  let start = 0;
  for (;;) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    number += 1;
    yield { number, text: text.slice(start, end > start && text.charCodeAt(end - 1) === 13 && newline >= 0 ? end - 1 : end) };
    if (newline < 0) return;
    start = newline + 1;
  }
}

// One branch per shape and no quantifier that can trade characters with its
// neighbour (`\d+\.?\d*` can split a run of digits n ways: quadratic on a
// long token that fails at its end).
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** parseFiniteNumber parses a decimal as printed by harnesses (commas as thousands separators allowed) or returns undefined. */
export function parseFiniteNumber(text: string): number | undefined {
  // The usual number (`1234`, `-0.6075`, `1,234,567.5`) is read from its
  // characters: a comma counts as a separator where the replace below
  // removes it (three digits, then a non-digit or the end, follow), and an
  // integer of at most 15 digits over an exact power of ten is correctly
  // rounded, as Number() is. Anything else takes the general path.
  const length = text.length;
  let i = 0;
  let c = text.charCodeAt(0);
  const negative = c === 45;
  if (negative || c === 43) i = 1;
  let mantissa = 0;
  let digits = 0;
  let decimals = 0;
  let dot = false;
  for (; i < length; i++) {
    c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits += 1;
      if (dot) decimals += 1;
    } else if (c === 46 && !dot) {
      dot = true;
    } else if (c === 44 && isDigit(text.charCodeAt(i + 1)) && isDigit(text.charCodeAt(i + 2)) && isDigit(text.charCodeAt(i + 3)) && !isDigit(text.charCodeAt(i + 4))) {
      // a thousands separator: skipped
    } else {
      return parseGeneral(text);
    }
  }
  if (digits === 0 || digits > 15) return parseGeneral(text);
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
  return (
    c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
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
    let p = this.starts[i];
    const end = this.ends[i];
    let c = text.charCodeAt(p);
    const negative = c === 45;
    if (negative || c === 43) p += 1;
    let mantissa = 0;
    let digits = 0;
    let decimals = 0;
    let dot = false;
    for (; p < end; p++) {
      c = text.charCodeAt(p);
      if (c >= 48 && c <= 57) {
        mantissa = mantissa * 10 + (c - 48);
        digits += 1;
        if (dot) decimals += 1;
      } else if (c === 46 && !dot) {
        dot = true;
      } else {
        return parseFiniteNumber(this.text(text, i));
      }
    }
    if (digits === 0 || digits > 15 || decimals > 22) return parseFiniteNumber(this.text(text, i));
    const value = decimals === 0 ? mantissa : mantissa / POWERS_OF_TEN[decimals];
    return negative ? -value : value;
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
