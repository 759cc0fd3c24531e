import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { closestName, didYouMean } from '../model/closest-name.ts';

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

/**
 * InputError is input that cannot be used as given, although every flag is
 * right (two files without a benchmark in common, an output path that is a
 * file). The CLI prints its message without the usage and exits 2.
 */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/**
 * parseFlags is node:util's parseArgs (strict) with its errors as UsageError,
 * so the CLI prints them with the command's usage; an unknown flag is named
 * with the known one it most likely meant (`--treshold`: did you mean
 * `--threshold`?).
 */
export function parseFlags<T extends ParseArgsOptionsConfig, P extends boolean>(args: string[], options: T, allowPositionals: P) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    throw new UsageError(flagProblem(error as Error & { code?: string }, args, options));
  }
}

function flagProblem(error: Error & { code?: string }, args: string[], options: ParseArgsOptionsConfig): string {
  if (error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return error.message;
  // parseArgs quotes the option as typed: '--treshold' (or '-x'), and for --name=value only the name.
  const typed = /^Unknown option '([^']+)'/.exec(error.message)?.[1] ?? args.find((a) => a.startsWith('-')) ?? '';
  const known = Object.keys(options).map((name) => `--${name}`);
  const near = typed.startsWith('--') ? closestName(typed, known) : undefined;
  return near ? `unknown option ${typed}; did you mean ${near}?` : `unknown option ${typed} (a value that starts with '-' goes after '--'; ${known.join(' ')} are the options)`;
}

/** choose returns value when it is one of choices, else throws naming the flag, the choices and the one most likely meant. */
export function choose<C extends string>(flag: string, value: string, choices: readonly C[]): C {
  if ((choices as readonly string[]).includes(value)) return value as C;
  throw new UsageError(`${flag} ${value}: use ${choices.length === 2 ? choices.join(' or ') : `one of ${choices.join(', ')}`}${didYouMean(value, choices)}`);
}
