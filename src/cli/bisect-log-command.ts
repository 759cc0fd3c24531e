import { openSync, closeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatChange } from '../report/format-numbers.ts';
import { inertCode, inertText } from '../report/inert-markdown.ts';
import { renderBisectLog, type BisectLog } from '../report/regression-issue.ts';
import { readBoundedText } from '../runner/read-bounded-text.ts';
import { FormatError } from '../formats/format-error.ts';
import { UsageError } from './usage-error.ts';

export const BISECT_LOG_USAGE = `usage: benchbot bisect-log FILE

Reads the bisect.json a bisection wrote (benchbot bisect --output json, the
benchbot-bisect artifact of the bisect workflow) as untrusted data, checks
its shape and prints it as markdown: the outcome and the bisect log. The
bisect workflow's report job writes this to its job summary; it runs no
repository code.

exit status: 0 printed, 2 the file is missing or not a bisect log (the message says which field)`;

const HEX = /^[0-9a-f]{7,64}$/i;

function fail(file: string, path: string, expected: string): never {
  throw new FormatError(file, undefined, `${path}: expected ${expected}`);
}

const finiteOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));
const pairOrNull = (v: unknown) => v === null || (Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number' && Number.isFinite(x)));

/**
 * parseBisectLogText checks a bisect.json field by field (the fields the
 * report reads) and returns it; anything else is a FormatError naming the
 * field. Text fields stay text: the renderers escape them.
 */
export function parseBisectLogText(text: string, file: string): BisectLog {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw new FormatError(file, undefined, `not JSON (${(error as Error).message})`);
  }
  if (root === null || typeof root !== 'object' || Array.isArray(root)) fail(file, '$', 'an object');
  const log = root as Record<string, unknown>;
  if (!['running', 'found', 'range', 'not-reproducible'].includes(log.status as string)) fail(file, '$.status', 'running, found, range or not-reproducible');
  const commit = (v: unknown, path: string) => {
    const c = v as Record<string, unknown> | null;
    if (c === null || typeof c !== 'object' || typeof c.sha !== 'string' || !HEX.test(c.sha) || typeof c.subject !== 'string' || !(c.pr === null || c.pr === undefined || (Number.isInteger(c.pr) && (c.pr as number) > 0))) fail(file, path, '{ sha (hex), subject, pr (a number or null) }');
  };
  if (log.culprit !== null) commit(log.culprit, '$.culprit');
  if (!Array.isArray(log.culprits)) fail(file, '$.culprits', 'an array');
  (log.culprits as unknown[]).forEach((c, i) => commit(c, `$.culprits[${i}]`));
  if (log.range !== undefined) {
    if (!Array.isArray(log.range)) fail(file, '$.range', 'an array');
    (log.range as unknown[]).forEach((c, i) => commit(c, `$.range[${i}]`));
  }
  if (!Array.isArray(log.steps)) fail(file, '$.steps', 'an array');
  (log.steps as unknown[]).forEach((s, i) => {
    const step = s as Record<string, unknown> | null;
    if (step === null || typeof step !== 'object' || typeof step.sha !== 'string' || !HEX.test(step.sha)) fail(file, `$.steps[${i}].sha`, 'a commit SHA');
    if (typeof step.verdict !== 'string' || typeof step.n !== 'number' || !finiteOrNull(step.ratio) || !pairOrNull(step.ratio_ci)) fail(file, `$.steps[${i}]`, '{ verdict, n, ratio, ratio_ci } with finite numbers');
  });
  if (typeof log.sessions !== 'number' || !Number.isFinite(log.sessions)) fail(file, '$.sessions', 'a number');
  const ref = log.reference as Record<string, unknown> | null;
  if (ref === null || typeof ref !== 'object' || !finiteOrNull(ref.ratio) || !pairOrNull(ref.ratio_ci) || typeof ref.reproducible !== 'boolean') fail(file, '$.reference', '{ ratio, ratio_ci, p, reproducible }');
  for (const key of ['benchmark', 'metric', 'good', 'bad'] as const) if (log[key] !== undefined && typeof log[key] !== 'string') fail(file, `$.${key}`, 'a string');
  return log as unknown as BisectLog;
}

/** renderBisectSummary is a bisect log as markdown for a job summary; every text from the log goes through the escaping path. */
export function renderBisectSummary(log: BisectLog): string {
  const what = log.benchmark ? `${inertText(log.benchmark)} (${inertText(log.metric ?? '')})` : 'the benchmark that moved most';
  const lines = [`### benchbot bisect: ${what}`, ''];
  const c = log.culprit;
  const name = (x: { sha: string; subject: string; pr: number | null }) => `${x.pr !== null && x.pr !== undefined ? `#${x.pr} ` : ''}${inertCode(x.sha.slice(0, 12))} ${inertText(x.subject)}`;
  if (log.status === 'not-reproducible') {
    lines.push(`**Not reproducible:** good and bad differ by ${log.reference.ratio === null ? 'nothing measurable' : formatChange(log.reference.ratio)} on this machine, which is not a significant change beyond the threshold.`);
  } else if (c) {
    lines.push(`**Culprit:** ${name(c)}`);
  } else if (log.range && log.range.length > 0) {
    lines.push(`**Culprit range:** ${log.range.length} merges that could not be told apart: ${log.range.map(name).join(', ')}`);
  } else {
    lines.push(`**Unfinished** (${inertText(log.status)}).`);
  }
  lines.push('', renderBisectLog(log));
  return lines.join('\n');
}

/** runBisectLog implements `benchbot bisect-log FILE`. */
export function runBisectLog(args: string[], out: (text: string) => void): number {
  let positionals: string[];
  try {
    positionals = parseArgs({ args, options: {}, allowPositionals: true }).positionals;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (positionals.length !== 1) throw new UsageError('bisect-log needs exactly one FILE (a bisect.json)');
  const file = positionals[0];
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new FormatError(file, undefined, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let text: string;
  try {
    text = readBoundedText(fd, file);
  } finally {
    closeSync(fd);
  }
  out(renderBisectSummary(parseBisectLogText(text, file)));
  return 0;
}
