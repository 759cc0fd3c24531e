import { RE2JS } from 're2js';

/**
 * MAX_NAME_FILTER_LENGTH is the longest benchmark-name pattern accepted, in
 * characters. Patterns come from `/bench REGEX` comments and action inputs;
 * nothing legitimate needs more.
 */
export const MAX_NAME_FILTER_LENGTH = 200;

/** NameFilterError says why a benchmark-name pattern was refused, in words a user can act on. */
export class NameFilterError extends Error {
  override name = 'NameFilterError';
}

/** NameFilter tests a benchmark name against a pattern in time linear in the name's length. */
export type NameFilter = {
  readonly pattern: string;
  test(name: string): boolean;
};

/**
 * compileNameFilter compiles a benchmark-name pattern with RE2 semantics
 * (re2js, a port of RE2): matching is linear in the name, so a hostile
 * pattern such as `(a+)+$` cannot hang the engine or the app, which refuse
 * the same patterns because both call this. RE2 has no backreferences or
 * lookaround; a pattern that uses them is refused with RE2's reason. The
 * pattern matches anywhere in the name, as `RegExp.test` does.
 */
export function compileNameFilter(pattern: string): NameFilter {
  if (pattern.length > MAX_NAME_FILTER_LENGTH) {
    throw new NameFilterError(`the pattern is ${pattern.length} characters long; the limit is ${MAX_NAME_FILTER_LENGTH}`);
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new NameFilterError(`not a valid regular expression (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`);
  }
  return { pattern, test: (name: string) => compiled.matcher(name).find() };
}
