import { readBisectLog, type BisectLog } from '../bisect/bisect-log.ts';
import { renderBisectSummary } from '../report/bisect-report.ts';
import { readRegularFile } from '../jobs/read-regular-file.ts';
import { FormatError } from '../formats/format-error.ts';
import { parseFlags, UsageError } from './usage-error.ts';

export const BISECT_LOG_USAGE = `usage: benchbot bisect-log FILE

Reads the bisect.json a bisection wrote (benchbot bisect --output json, the
benchbot-bisect artifact of the bisect workflow) as untrusted data, checks
its shape and prints it as markdown: the outcome and the bisect log. The
bisect workflow's report job writes this to its job summary; it runs no
repository code.

exit status: 0 printed, 2 the file is missing or not a bisect log (the message says which field)`;

/**
 * parseBisectLogText reads a bisect.json (readBisectLog checks it field by
 * field); anything else is a FormatError naming the field.
 */
export function parseBisectLogText(text: string, file: string): BisectLog {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new FormatError(file, undefined, `not JSON (${(error as Error).message})`);
  }
  return readBisectLog(root, (path, expected) => {
    throw new FormatError(file, undefined, `${path}: expected ${expected}`);
  });
}

/** runBisectLog implements `benchbot bisect-log FILE`. */
export function runBisectLog(args: string[], out: (text: string) => void): number {
  const { positionals } = parseFlags(args, {}, true);
  if (positionals.length !== 1) throw new UsageError('bisect-log needs exactly one FILE (a bisect.json)');
  const file = positionals[0];
  // The bisect job ran the code under test, which may have left bisect.json as a link to a file of the runner's.
  const text = readRegularFile(file, file);
  out(renderBisectSummary(parseBisectLogText(text, file)));
  return 0;
}
