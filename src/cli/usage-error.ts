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

/**
 * wholeFlag reads a flag's whole number of at least `min` (default 1), or
 * `fallback` when the flag was not given; anything else is a UsageError
 * naming the flag.
 */
export function wholeFlag(value: unknown, flag: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`${flag} ${String(value)}: give a whole number of at least ${min}`);
  return n;
}

/**
 * secondsFlag reads a flag's positive number of seconds (a trailing `s` is
 * allowed: 600 or 600s) and returns it in milliseconds, or `fallbackMs` when
 * the flag was not given.
 */
export function secondsFlag(value: unknown, flag: string, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  const n = Number(String(value).replace(/s$/, ''));
  if (!(n > 0)) throw new UsageError(`${flag} ${String(value)}: give a number of seconds, e.g. 600`);
  return n * 1000;
}
