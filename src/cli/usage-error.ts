import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';

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

/** parseFlags is node:util's parseArgs with its errors as UsageError, so the CLI prints them with the command's usage. */
export function parseFlags(args: string[], options: ParseArgsOptionsConfig, allowPositionals: boolean) {
  try {
    return parseArgs({ args, options, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
