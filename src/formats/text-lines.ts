import { FormatError } from './format-error.ts';
import { checkText } from './json-document.ts';
import type { SourceFile } from './reader.ts';

/** TextLine is one line of a text input with its 1-based number. */
export interface TextLine {
  number: number;
  text: string;
}

/** splitLines checks a text input and splits it into numbered lines (CRLF tolerated). */
export function splitLines(file: SourceFile): TextLine[] {
  checkText(file);
  if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
  return file.text.split(/\r?\n/).map((text, i) => ({ number: i + 1, text }));
}

/** parseFiniteNumber parses a decimal as printed by harnesses (commas as thousands separators allowed) or returns undefined. */
export function parseFiniteNumber(text: string): number | undefined {
  const cleaned = text.replace(/,(?=\d{3}(\D|$))/g, '');
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(cleaned)) return undefined;
  const value = Number(cleaned);
  return Number.isFinite(value) ? value : undefined;
}
