/**
 * UsageError is a mistake in how benchbot was called (unknown flag, missing
 * argument, bad value). Its message names the flag to change; the CLI prints
 * it with the command's usage and exits 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
