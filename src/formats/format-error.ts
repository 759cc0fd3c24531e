/**
 * FormatError is the only error a reader may throw. It names the file and,
 * when known, the 1-based line, so the message tells the user where to look.
 */
export class FormatError extends Error {
  readonly file: string;
  readonly line: number | undefined;

  constructor(file: string, line: number | undefined, message: string) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${message}`);
    this.name = 'FormatError';
    this.file = file;
    this.line = line;
  }
}
