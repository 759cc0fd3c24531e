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
