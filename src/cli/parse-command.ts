import { readInput } from '../jobs/read-sides.ts';
import { parseFlags, UsageError } from './usage-error.ts';

export const PARSE_USAGE = `usage: benchbot parse FILE... [--format F]

Prints what benchbot reads from benchmark output, as JSON:
{"format", "measurements": [{"benchmark","metric","unit","better","values"}], "warnings": [...]}.
With several files, prints one such object per file in an array.`;

/** runParse implements `benchbot parse`; returns the process exit code. */
export function runParse(args: string[], out: (text: string) => void): number {
  const { values, positionals } = parseOrUsage(args);
  if (positionals.length === 0) throw new UsageError('parse needs at least one FILE');
  const outcomes = positionals.map((path) => {
    const outcome = readInput(path, values.format);
    return { file: path, format: outcome.format, measurements: outcome.measurements, warnings: outcome.warnings, hints: outcome.hints };
  });
  out(JSON.stringify(outcomes.length === 1 ? outcomes[0] : outcomes, null, 2));
  return 0;
}

function parseOrUsage(args: string[]) {
  return parseFlags(args, { format: { type: 'string', short: 'f' } }, true);
}
