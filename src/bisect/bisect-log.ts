/**
 * bisect-log: bisect.json, the one shape a bisection's outcome travels in.
 * toBisectJson (create-bisect.ts) writes the state machine's part, the
 * bisect job (src/jobs/bisect-session.ts) adds what it bisected, and the
 * readers (`benchbot bisect-log`, the app's regression loop) rebuild it
 * from an artifact with readBisectLog, field by field, because an artifact
 * is hostile data. Text fields stay text: the renderers escape them.
 */

import type { BisectStatus, Commit } from './create-bisect.ts';

/** BisectLogCommit is a merge as the log names it: `pr` null when unknown. */
export interface BisectLogCommit {
  sha: string;
  subject: string;
  pr: number | null;
}

/** BisectLogConfirmation is a culprit's check against its first parent: ratio culprit/parent with its CI. */
export interface BisectLogConfirmation {
  parent: string;
  verdict: string;
  ratio: number | null;
  ratio_ci: [number, number] | null;
  sessions: number;
}

/**
 * BisectLogCulprit is one contributing merge: `share` of the good-to-bad
 * shift (null unless confirmed), `ratio` over good, `range` the SHAs it may
 * be. `confirmation` is written by the bisection; a log read back leaves it
 * out (no report shows it).
 */
export interface BisectLogCulprit extends BisectLogCommit {
  share: number | null;
  ratio: number | null;
  range: string[];
  confirmation?: BisectLogConfirmation | null;
}

/**
 * BisectLogStep is one recorded session: the verdict after pooling (text:
 * good, bad, unknown, skip, confirmed, ...), `n` the probe's samples, the
 * ratio vs good (vs the parent for confirm steps) with its CI. `kind` and
 * `sessions` are written by the bisection; a log read back leaves them out.
 */
export interface BisectLogStep {
  sha: string;
  verdict: string;
  n: number;
  ratio: number | null;
  ratio_ci: [number, number] | null;
  kind?: 'reference' | 'probe' | 'confirm';
  sessions?: number;
  partial?: boolean;
  reason?: string;
}

/** BisectLogReference is the good-vs-bad check: ratio bad/good with its CI and p; `sessions` and `tau` as for steps. */
export interface BisectLogReference {
  ratio: number | null;
  ratio_ci: [number, number] | null;
  p: number | null;
  reproducible: boolean;
  sessions?: number;
  tau?: number | null;
}

/**
 * BisectLog is bisect.json: the state machine's part (toBisectJson) and
 * what the bisect job adds, the benchmark and metric followed, the two
 * ends, the candidates with their authors and the probing steps taken.
 */
export interface BisectLog {
  status: BisectStatus;
  culprit: BisectLogCommit | null;
  culprits: BisectLogCulprit[];
  range?: BisectLogCommit[];
  steps: BisectLogStep[];
  sessions: number;
  reference: BisectLogReference;
  benchmark?: string;
  metric?: string;
  good?: string;
  bad?: string;
  candidates?: (Commit & { author?: string })[];
  probe_steps?: number;
}

/** BisectLogFail reports a field that is wrong: its JSON path (`$.steps[2].sha`) and what it should be. Never returns. */
export type BisectLogFail = (path: string, expected: string) => never;

const HEX = /^[0-9a-f]{7,64}$/i;
const STATUSES: readonly BisectStatus[] = ['running', 'found', 'range', 'not-reproducible'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isFinite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isFiniteOrNull = (v: unknown): v is number | null => v === null || isFinite(v);
const isPairOrNull = (v: unknown): v is [number, number] | null => v === null || (Array.isArray(v) && v.length === 2 && v.every(isFinite));
const isPr = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const isStatus = (v: unknown): v is BisectStatus => STATUSES.some((s) => s === v);

function commitOf(v: unknown, path: string, fail: BisectLogFail): BisectLogCommit {
  if (!isObject(v) || typeof v.sha !== 'string' || !HEX.test(v.sha) || typeof v.subject !== 'string' || !(v.pr === null || v.pr === undefined || isPr(v.pr))) fail(path, '{ sha (hex), subject, pr (a number or null) }');
  return { sha: v.sha, subject: v.subject, pr: v.pr ?? null };
}

function culpritOf(v: unknown, path: string, fail: BisectLogFail): BisectLogCulprit {
  const commit = commitOf(v, path, fail);
  const c = v as Json;
  if (!isFiniteOrNull(c.share) || !isFiniteOrNull(c.ratio)) fail(path, '{ share, ratio } finite numbers or null');
  const range = Array.isArray(c.range) ? c.range : [];
  return { ...commit, share: c.share, ratio: c.ratio, range: range.filter((x): x is string => typeof x === 'string') };
}

/** REFERENCE_STEP is the `sha` of a reference session's step (good and bad measured together): toBisectJson writes it so. */
export const REFERENCE_STEP = 'good..bad';

function stepOf(v: unknown, path: string, fail: BisectLogFail): BisectLogStep {
  if (!isObject(v) || typeof v.sha !== 'string' || !(HEX.test(v.sha) || v.sha === REFERENCE_STEP)) fail(`${path}.sha`, `a commit SHA or ${REFERENCE_STEP}`);
  if (typeof v.verdict !== 'string' || typeof v.n !== 'number' || !isFiniteOrNull(v.ratio) || !isPairOrNull(v.ratio_ci)) fail(path, '{ verdict, n, ratio, ratio_ci } with finite numbers');
  return {
    sha: v.sha, verdict: v.verdict, n: v.n, ratio: v.ratio, ratio_ci: v.ratio_ci,
    ...(v.partial === true ? { partial: true } : {}), ...(typeof v.reason === 'string' ? { reason: v.reason } : {}),
  };
}

function candidateOf(v: unknown, path: string, fail: BisectLogFail): Commit & { author?: string } {
  const { sha, subject, pr } = commitOf(v, path, fail);
  const author = (v as Json).author;
  if (author !== undefined && typeof author !== 'string') fail(`${path}.author`, 'a string');
  return { sha, subject, ...(pr !== null ? { pr } : {}), ...(author !== undefined ? { author } : {}) };
}

function listOf<T>(v: unknown, path: string, fail: BisectLogFail, item: (x: unknown, path: string, fail: BisectLogFail) => T): T[] {
  if (!Array.isArray(v)) fail(path, 'an array');
  return v.map((x, i) => item(x, `${path}[${i}]`, fail));
}

/**
 * readBisectLog rebuilds a BisectLog from parsed bisect.json, checking
 * every field a report reads; a wrong one goes to `fail` with its path.
 * Fields no report reads (a culprit's confirmation, a step's kind) are
 * left out.
 */
export function readBisectLog(root: unknown, fail: BisectLogFail): BisectLog {
  if (!isObject(root)) fail('$', 'an object');
  if (!isStatus(root.status)) fail('$.status', 'running, found, range or not-reproducible');
  const culprit = root.culprit === null ? null : commitOf(root.culprit, '$.culprit', fail);
  const culprits = listOf(root.culprits, '$.culprits', fail, culpritOf);
  const range = root.range === undefined ? undefined : listOf(root.range, '$.range', fail, commitOf);
  const steps = listOf(root.steps, '$.steps', fail, stepOf);
  if (!isFinite(root.sessions)) fail('$.sessions', 'a number');
  const ref = root.reference;
  if (!isObject(ref) || !isFiniteOrNull(ref.ratio) || !isPairOrNull(ref.ratio_ci) || !isFiniteOrNull(ref.p) || typeof ref.reproducible !== 'boolean') fail('$.reference', '{ ratio, ratio_ci, p, reproducible }');
  const text: Partial<Record<'benchmark' | 'metric' | 'good' | 'bad', string>> = {};
  for (const key of ['benchmark', 'metric', 'good', 'bad'] as const) {
    const value = root[key];
    if (value === undefined) continue;
    if (typeof value !== 'string') fail(`$.${key}`, 'a string');
    text[key] = value;
  }
  const candidates = root.candidates === undefined ? undefined : listOf(root.candidates, '$.candidates', fail, candidateOf);
  if (root.probe_steps !== undefined && !isFinite(root.probe_steps)) fail('$.probe_steps', 'a number');
  return {
    status: root.status, culprit, culprits, ...(range !== undefined ? { range } : {}), steps, sessions: root.sessions,
    reference: { ratio: ref.ratio, ratio_ci: ref.ratio_ci, p: ref.p, reproducible: ref.reproducible },
    ...text, ...(candidates !== undefined ? { candidates } : {}), ...(root.probe_steps !== undefined ? { probe_steps: root.probe_steps } : {}),
  };
}
