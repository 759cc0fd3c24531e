import { FormatError } from './format-error.ts';
import type { SourceFile } from './reader.ts';
import { jsonErrorOffset } from './json-error-offset.ts';
import { checkJsonElementCount, MAX_INPUT_BYTES, MAX_INPUT_VALUES } from './input-limits.ts';

export { MAX_INPUT_BYTES } from './input-limits.ts';

/** lineAt returns the 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  let i = text.indexOf('\n');
  while (i >= 0 && i < offset) {
    line += 1;
    i = text.indexOf('\n', i + 1);
  }
  return line;
}

/**
 * checkText refuses absurdly large inputs and binary content. Files are
 * measured by stat before they are read (a string near V8's limit cannot
 * even be created); this catches text that arrived another way.
 */
export function checkText(file: SourceFile): void {
  if (file.text.length > MAX_INPUT_BYTES) {
    throw new FormatError(file.path, undefined, `input is ${file.text.length} characters; benchbot reads inputs of at most ${MAX_INPUT_BYTES} bytes`);
  }
  const nul = file.text.indexOf('\u0000');
  if (nul >= 0) {
    throw new FormatError(file.path, lineAt(file.text, nul), 'input contains NUL bytes; is this a binary file?');
  }
}

/**
 * parseJsonDocument parses a JSON file, turning syntax errors into a
 * FormatError with the line of the problem.
 */
export function parseJsonDocument(file: SourceFile): unknown {
  checkJsonText(file);
  checkJsonElements(file.path, file.text);
  return parseCheckedJson(file);
}

/** checkJsonText is parseJsonDocument's checks before its element count: checkText, and a file that is not empty. */
export function checkJsonText(file: SourceFile): void {
  checkText(file);
  if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
}

/**
 * checkJsonElements is checkJsonElementCount (same errors) behind a cheaper
 * bound: the `,`, `[` and `{` it counts outside strings are at most those
 * anywhere in the text, which indexOf counts natively several times faster
 * than the string-aware scan; only a text whose bound is over the limit is
 * scanned exactly.
 */
export function checkJsonElements(path: string, text: string): void {
  if (text.length <= MAX_INPUT_VALUES) return;
  let bound = 0;
  for (const c of ',[{') {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) bound += 1;
    if (bound > MAX_INPUT_VALUES) break;
  }
  if (bound > MAX_INPUT_VALUES) checkJsonElementCount(path, text);
}

/**
 * parseCheckedJson is the JSON.parse of parseJsonDocument, for a text that
 * has passed its checks: syntax errors become a FormatError with the line.
 */
export function parseCheckedJson(file: SourceFile): unknown {
  try {
    return JSON.parse(file.text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const offset = jsonErrorOffset(file.text);
    const line = lineAt(file.text, offset < 0 ? file.text.length : offset);
    const reason = offset >= file.text.length ? 'the file ends early (truncated?)' : message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
    throw new FormatError(file.path, line, `invalid JSON: ${reason}`);
  }
}

/**
 * JsonReader tracks where in a document a value came from, so type errors say
 * `benchmarks[3].real_time` instead of "expected a number".
 */
export class JsonReader {
  readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  fail(path: string, message: string): never {
    throw new FormatError(this.file, undefined, `${path}: ${message}`);
  }

  object(value: unknown, path: string): Record<string, unknown> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) this.fail(path, `expected an object, got ${describe(value)}`);
    return value as Record<string, unknown>;
  }

  array(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) this.fail(path, `expected an array, got ${describe(value)}`);
    return value;
  }

  string(value: unknown, path: string): string {
    if (typeof value !== 'string') this.fail(path, `expected a string, got ${describe(value)}`);
    return value;
  }

  /** number accepts finite numbers only: NaN and Infinity are refused. */
  number(value: unknown, path: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(path, `expected a finite number, got ${describe(value)}`);
    return value;
  }

  numbers(value: unknown, path: string): number[] {
    return this.array(value, path).map((v, i) => this.number(v, `${path}[${i}]`));
  }

  optionalString(value: unknown, path: string): string | undefined {
    return value === undefined || value === null ? undefined : this.string(value, path);
  }

  optionalNumber(value: unknown, path: string): number | undefined {
    return value === undefined || value === null ? undefined : this.number(value, path);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}
