// splitLines and parseFiniteNumber as they were before the fast readers
// (commit 4d577bc), so the reference readers beside this file keep their
// original behaviour whatever happens to src/formats/text-lines.ts.
import { FormatError } from '../../../src/formats/format-error.ts';
import { checkText } from '../../../src/formats/json-document.ts';
import type { SourceFile } from '../../../src/formats/reader.ts';

export { isSpace, trailingFields } from '../../../src/formats/text-lines.ts';

export interface TextLine {
  number: number;
  text: string;
}

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

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

export function parseFiniteNumber(text: string): number | undefined {
  const cleaned = text.replace(/,(?=\d{3}(\D|$))/g, '');
  if (!DECIMAL.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}
