import { FormatError } from './format-error.ts';

// Inputs are written by the code under test, so their size is the attacker's
// choice. Every limit here sits far below what V8 can hold (a string of at
// most 0x1fffffe8 characters, an array of at most ~134 M elements, a 4 GiB
// heap by default) and far above any real suite, and each is checked before
// the work it bounds: file sizes by stat before the file becomes a string,
// JSON element counts before JSON.parse, series and values as they are read.

const MiB = 1024 * 1024;

/** MAX_INPUT_BYTES is the largest input file read, in bytes (256 MiB); checked by stat before reading. */
export const MAX_INPUT_BYTES = 256 * MiB;

/** MAX_DIRECTORY_BYTES is the most a criterion directory's result files may hold together, in bytes (256 MiB). */
export const MAX_DIRECTORY_BYTES = 256 * MiB;

/** MAX_DIRECTORY_FILES is the most result files read from one criterion directory (a benchmark has two). */
export const MAX_DIRECTORY_FILES = 100_000;

/** MAX_DIRECTORY_ENTRIES is the most directory entries walked looking for criterion results (reports included). */
export const MAX_DIRECTORY_ENTRIES = 1_000_000;

/** MAX_INPUT_VALUES is the most measured values one input may give, and the most elements a JSON input may hold. */
export const MAX_INPUT_VALUES = 10_000_000;

/**
 * MAX_INPUT_SERIES is the most series (benchmark x metric) plus warnings one
 * input may give (Google Benchmark also counts each benchmark): about 0.6 GB
 * of heap at the limit, where 3 M series took 2.6 GB.
 */
export const MAX_INPUT_SERIES = 1_000_000;

/** formatCount prints a limit with thousands separators, as users read it. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** tooLarge is the error for an input file above the limit; `bytes` undefined means more than the limit, size unknown (a pipe). */
export function tooLarge(path: string, bytes: number | undefined, limit = MAX_INPUT_BYTES): FormatError {
  const size = bytes === undefined ? `holds more than ${formatCount(limit)} bytes` : `is ${formatCount(bytes)} bytes`;
  return new FormatError(path, undefined, `${size}; benchbot reads inputs of at most ${formatCount(limit)} bytes (${limit / MiB} MiB): write fewer or shorter results per file`);
}

/**
 * ReadBudget counts what a reader keeps from one input and throws FormatError
 * (naming the file and the line) once the input gives more values than
 * MAX_INPUT_VALUES or more series and warnings than MAX_INPUT_SERIES, so a
 * hostile output runs out of budget long before the process runs out of
 * memory. Readers call `value` per number kept and `series` per new series or
 * warning.
 */
export class ReadBudget {
  readonly path: string;
  private readonly maxValues: number;
  private readonly maxSeries: number;
  private valueCount = 0;
  private seriesCount = 0;

  constructor(path: string, limits: { maxValues?: number; maxSeries?: number } = {}) {
    this.path = path;
    this.maxValues = limits.maxValues ?? MAX_INPUT_VALUES;
    this.maxSeries = limits.maxSeries ?? MAX_INPUT_SERIES;
  }

  value(line?: number, count = 1): void {
    this.valueCount += count;
    if (this.valueCount > this.maxValues) {
      throw new FormatError(this.path, line, `holds more than ${formatCount(this.maxValues)} measured values; benchbot reads at most that many from one input: split the output or run fewer repetitions per round`);
    }
  }

  series(line?: number): void {
    this.seriesCount += 1;
    if (this.seriesCount > this.maxSeries) {
      throw new FormatError(this.path, line, `holds more than ${formatCount(this.maxSeries)} benchmarks, series and warnings; benchbot reads at most that many from one input: split the suite`);
    }
  }
}

/**
 * checkJsonElementCount refuses JSON text holding more than MAX_INPUT_VALUES
 * array elements and object members, before JSON.parse builds them: a
 * 300 MB array of 157 M numbers aborts V8 itself (`invalid size error`),
 * which no try/catch survives. Counts `[`, `{` and `,` outside strings, an
 * upper bound on the elements; one pass, linear, and cheap next to parsing.
 */
export function checkJsonElementCount(path: string, text: string, line?: number): void {
  let count = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: find its closing quote, one not escaped by an odd run of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end > 0) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes += 1;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return; // unterminated: JSON.parse refuses it without building much
      i = end;
    } else if (c === 0x2c || c === 0x5b || c === 0x7b) {
      count += 1;
      if (count > MAX_INPUT_VALUES) {
        throw new FormatError(path, line, `holds more than ${formatCount(MAX_INPUT_VALUES)} JSON values; benchbot reads at most that many from one input: split the output or run fewer repetitions`);
      }
    }
  }
}
