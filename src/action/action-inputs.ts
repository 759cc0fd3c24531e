import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseExecutorSpec, type ExecutorSpec } from '../runner/executor.ts';
import { checkFormat, type Shard } from '../jobs/pr-check.ts';
import { compileNameFilter, NameFilterError } from '../compare/name-filter.ts';
import type { InstructionSettings } from '../runner/valgrind-count.ts';
import { parseReportSettings, type ReportSettings } from '../jobs/report-settings.ts';
import { actionSetting, SettingError } from '../jobs/setting-names.ts';
import { parseCcUsers } from '../github/github-login.ts';

/**
 * ActionInputError is a bad action input; its message starts with the input's
 * name as written in the workflow's `with:`, so the user knows what to change.
 */
export class ActionInputError extends Error {
  override name = 'ActionInputError';
}

/** CommentMode says when the sticky PR comment is written. */
export type CommentMode = 'always' | 'on-change' | 'never';

/** FailOn says what fails the step. */
export type FailOn = 'regression' | 'never';

/** ActionMode: `pr` compares a pull request's base and head; `nightly` records the branch head as nightly history. */
export type ActionMode = 'pr' | 'nightly';

/**
 * ActionRole says which of the two jobs this step is. `measure` builds and
 * runs the repository's code on the bench machine and uploads the raw
 * results; it never holds a token. `report` (input `merge`) runs no
 * repository code: it recomputes everything from the downloaded results and
 * is the only one that writes to GitHub.
 */
export type ActionRole = 'measure' | 'report';

/**
 * TOKEN_ENV_NAMES are the environment variables through which a GitHub token
 * would reach the measuring step: the action's own input, and the names that
 * gh, Octokit and most tools read. The build and bench commands inherit the
 * step's environment and can read the parent's from /proc, so the measuring
 * step refuses to start with any of them set instead of scrubbing them.
 */
export const TOKEN_ENV_NAMES = ['BENCHBOT_INPUT_GITHUB_TOKEN', 'GITHUB_TOKEN', 'GH_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'] as const;

/**
 * ActionSettings are the action's inputs, parsed and validated once. Paths
 * are absolute. `base` and `head` are undefined when the workflow left them
 * to the event (the pull request's SHAs); `store` is undefined for "no store".
 * The report's settings (ReportSettings) come from the inputs `min-runs`,
 * `max-runs`, `threshold`, `thresholds`, `filter` and `alpha`.
 */
export interface ActionSettings extends ReportSettings {
  bench: string;
  build?: string;
  format?: string;
  resultFile?: string;
  base?: string;
  head?: string;
  executor: ExecutorSpec;
  /** SQLite path or postgres:// URL; undefined: do not store. */
  store?: string;
  counters: boolean;
  /** instructions counts each benchmark's work under valgrind (input `instructions`: true, a name pattern, or false: undefined). */
  instructions?: InstructionSettings;
  comment: CommentMode;
  failOn: FailOn;
  /** githubToken is empty in the measuring role, always. */
  githubToken: string;
  workingDirectory: string;
  mode: ActionMode;
  role: ActionRole;
  shard?: Shard;
  /** merge: directory of the measuring jobs' downloaded results (one artifact, or one per shard); set means the `report` role. */
  merge?: string;
  checkName: string;
  artifactName: string;
  /** maxLoad is the 1-minute load average to wait for before measuring; undefined: 0.5 + 10% of the cores. */
  maxLoad?: number;
  /** prNumber overrides the pull request taken from the event (a `/bench` dispatch names it this way). */
  prNumber?: number;
  /** ccUsers are the logins (without `@`) an alert mentions: the PR comment that reports a regression, the comment on a regressed commit. */
  ccUsers: string[];
  /** commentOnCommit: a nightly (or push) report comments on its commit when the scan confirms regressions that first showed there. */
  commentOnCommit: boolean;
  /** issueAuthors are the accounts whose regression issues a nightly report closes when they recover (always with github-actions[bot]). */
  issueAuthors: string[];
}

/** INPUT_ENV_PREFIX prefixes the environment variables the composite step sets, one per input. */
export const INPUT_ENV_PREFIX = 'BENCHBOT_INPUT_';

/** inputEnvName maps an input name to its environment variable: `min-runs` -> `BENCHBOT_INPUT_MIN_RUNS`. */
export function inputEnvName(input: string): string {
  return INPUT_ENV_PREFIX + input.toUpperCase().replace(/-/g, '_');
}

type Env = Record<string, string | undefined>;

function oneOf<T extends string>(env: Env, input: string, allowed: readonly T[], fallback: T): T {
  const value = text(env, input) ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ActionInputError(`${input}: "${value}" is not one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function text(env: Env, input: string): string | undefined {
  const value = env[inputEnvName(input)]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function wholeNumber(env: Env, input: string, fallback: number, min: number): number {
  const value = text(env, input);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ActionInputError(`${input}: "${value}" is not a whole number of at least ${min}`);
  return n;
}

function flag(env: Env, input: string): boolean {
  const value = (text(env, input) ?? 'false').toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ActionInputError(`${input}: "${value}" is not true or false`);
}

function ccUsers(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    return parseCcUsers(value);
  } catch (error) {
    throw new ActionInputError(`alert-comment-cc-users: ${(error as Error).message}`);
  }
}

/**
 * DEFAULT_ISSUE_AUTHORS: the benchbot app as `benchbot[bot]`; a workflow's
 * `benchbot nightly --issues` with GITHUB_TOKEN files as github-actions[bot],
 * which issueAuthors always adds.
 */
export const DEFAULT_ISSUE_AUTHORS = ['benchbot[bot]'];

const WORKFLOW_BOT = 'github-actions[bot]';

// A GitHub App's account: its slug (letters, digits, dashes) and `[bot]`; a person's login is never one.
const BOT_LOGIN = /^[a-z\d](?:[a-z\d-]{0,98})\[bot\]$/i;

function issueAuthors(value: string | undefined): string[] {
  const logins = value === undefined ? DEFAULT_ISSUE_AUTHORS : value.split(/[\s,]+/).filter((l) => l !== '');
  for (const login of logins) {
    if (!BOT_LOGIN.test(login)) throw new ActionInputError(`issue-authors: "${login}" is not a GitHub App's account (SLUG[bot], e.g. benchbot[bot]); regression issues filed by a person or another account are never closed by benchbot`);
  }
  return [...new Set([...logins, WORKFLOW_BOT])];
}

function parseShard(value: string | undefined): Shard | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*\/\s*(\d+)$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index < 1 || count < 1 || index > count) {
    throw new ActionInputError(`shard: "${value}" is not INDEX/COUNT with 1 <= INDEX <= COUNT, e.g. 2/4`);
  }
  return count === 1 ? undefined : { index, count };
}

/**
 * instructionsInput reads the `instructions` input: `true` counts every
 * benchmark, `false` (the default) none, anything else is a benchmark-name
 * pattern (RE2, as `filter`) of those to count. Not beside `counters` (see
 * cli/instruction-flags.ts for why).
 */
function instructionsInput(env: Env): { instructions?: InstructionSettings } {
  const value = text(env, 'instructions');
  if (value === undefined || value.toLowerCase() === 'false') return {};
  if (flag(env, 'counters')) throw new ActionInputError('instructions: not with counters; instructions counts each benchmark\'s work under valgrind on any machine, counters reads perf stat for the whole command where the machine has a PMU; set one of them to false');
  // Repeats follow the harness (valgrind-count.ts defaultCountRepeats).
  if (value.toLowerCase() === 'true') return { instructions: {} };
  try {
    return { instructions: { filter: compileNameFilter(value) } };
  } catch (error) {
    if (!(error instanceof NameFilterError)) throw error;
    throw new ActionInputError(`instructions: "${value}" is neither true, false nor a benchmark-name pattern benchbot accepts (${error.message})`);
  }
}

/**
 * defaultStorePath is where the action keeps history when `store` is empty:
 * on the runner's own disk, outside the workspace (which checkouts clean),
 * because a bare-metal runner's history belongs to that machine.
 */
export function defaultStorePath(env: Env): string {
  return join(env.HOME ?? homedir(), '.benchbot', 'benchbot.db');
}

/**
 * readActionInputs parses the inputs from the environment the composite step
 * sets (BENCHBOT_INPUT_<NAME>); every error names the input to change. The
 * token comes in as BENCHBOT_INPUT_GITHUB_TOKEN, and only in the report role:
 * a measuring step with a token in its environment is refused before it
 * runs anything (see TOKEN_ENV_NAMES).
 */
export function readActionInputs(env: Env): ActionSettings {
  const merge = text(env, 'merge');
  const role: ActionRole = merge === undefined ? 'measure' : 'report';
  if (role === 'measure') refuseTokens(env);
  const maxLoadText = text(env, 'max-load');
  const maxLoad = maxLoadText === undefined ? undefined : Number(maxLoadText);
  if (maxLoad !== undefined && !(maxLoad > 0)) throw new ActionInputError(`max-load: "${maxLoadText}" is not a positive load average, e.g. 1.5`);
  const bench = text(env, 'bench');
  if (bench === undefined && merge === undefined) throw new ActionInputError('bench: required; give the command that runs your benchmarks, e.g. ./build/bench --benchmark_format=json');
  const format = text(env, 'format');
  let report: ReportSettings;
  try {
    checkFormat(format, actionSetting);
    report = parseReportSettings({
      'min-runs': text(env, 'min-runs'), 'max-runs': text(env, 'max-runs'), threshold: text(env, 'threshold'),
      'threshold-for': text(env, 'thresholds'), 'work-threshold': text(env, 'work-threshold'), filter: text(env, 'filter'), alpha: text(env, 'alpha'),
    }, actionSetting);
  } catch (error) {
    if (error instanceof SettingError) throw new ActionInputError(error.message);
    throw error;
  }
  const { minRuns, maxRuns, threshold, workThreshold, rules, filter, alpha } = report;
  let executor: ExecutorSpec;
  try {
    executor = parseExecutorSpec(text(env, 'executor') ?? 'local', { run: text(env, 'device-run'), push: text(env, 'device-push'), pull: text(env, 'device-pull') }, actionSetting);
  } catch (error) {
    // Its message starts with the input to change, as actionSetting names it.
    throw new ActionInputError((error as Error).message);
  }
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd();
  const workingDirectory = resolve(workspace, text(env, 'working-directory') ?? '.');
  const storeText = text(env, 'store');
  const fromEnv = env.BENCHBOT_DATABASE_URL?.trim() || undefined;
  const store = storeText === 'none' ? undefined : (storeText ?? fromEnv ?? defaultStorePath(env));
  const mode = oneOf(env, 'mode', ['pr', 'nightly'] as const, 'pr');
  const shard = parseShard(text(env, 'shard'));
  if (shard && merge) throw new ActionInputError('shard: a shard measures its part; merge compares the shards\' results afterwards; give one of them');
  const checkName = text(env, 'check-name');
  const artifactName = text(env, 'artifact-name') ?? defaultArtifactName(role, mode, shard);
  if (flag(env, 'comment-on-commit') && mode !== 'nightly') throw new ActionInputError('comment-on-commit: comments on a commit of the branch that a nightly (or a push) measured; use it with mode: nightly, a pull request gets its report as the PR comment');
  if (!/^[\w.-]+$/.test(artifactName)) throw new ActionInputError(`artifact-name: "${artifactName}" may use only letters, digits, '-', '_' and '.'`);
  return {
    bench: bench ?? '',
    build: text(env, 'build'),
    format,
    resultFile: text(env, 'result-file'),
    base: text(env, 'base'),
    head: text(env, 'head'),
    minRuns,
    maxRuns,
    threshold,
    workThreshold,
    rules,
    filter,
    alpha,
    executor,
    store,
    counters: flag(env, 'counters'),
    ...instructionsInput(env),
    comment: oneOf(env, 'comment', ['always', 'on-change', 'never'] as const, 'always'),
    failOn: oneOf(env, 'fail-on', ['regression', 'never'] as const, 'regression'),
    githubToken: role === 'report' ? (text(env, 'github-token') ?? '') : '',
    workingDirectory,
    mode,
    role,
    shard,
    merge: merge === undefined ? undefined : resolve(workspace, merge),
    checkName: checkName === 'none' ? '' : (checkName ?? (mode === 'nightly' ? 'benchbot nightly' : 'benchbot')),
    artifactName,
    maxLoad,
    prNumber: text(env, 'pr-number') === undefined ? undefined : wholeNumber(env, 'pr-number', 0, 1),
    ccUsers: ccUsers(text(env, 'alert-comment-cc-users')),
    commentOnCommit: flag(env, 'comment-on-commit'),
    issueAuthors: issueAuthors(text(env, 'issue-authors')),
  };
}

/**
 * RESULTS_ARTIFACT names what the measuring job uploads and the report job
 * downloads; REPORT_ARTIFACT what the report job uploads (the benchbot app
 * reads report.json and scan.json there). Shards append `-shard-I-of-N`, so
 * that one download pattern (`benchbot-results*`) finds one artifact or all.
 */
export const RESULTS_ARTIFACT = { pr: 'benchbot-results', nightly: 'benchbot-nightly-results' } as const;
export const REPORT_ARTIFACT = { pr: 'benchbot-report', nightly: 'benchbot-nightly' } as const;

function defaultArtifactName(role: ActionRole, mode: ActionMode, shard: Shard | undefined): string {
  if (role === 'report') return REPORT_ARTIFACT[mode];
  return shard ? `${RESULTS_ARTIFACT[mode]}-shard-${shard.index}-of-${shard.count}` : RESULTS_ARTIFACT[mode];
}

function refuseTokens(env: Env): void {
  const found = TOKEN_ENV_NAMES.find((name) => (env[name] ?? '').trim() !== '');
  if (found === undefined) return;
  const why = 'the measuring step runs the repository\'s build and bench commands, which can read this process\'s environment and its parent\'s (/proc/$PPID/environ)';
  if (found === inputEnvName('github-token')) {
    throw new ActionInputError(`github-token: ${why}, so it never takes a token; give github-token to the report job instead (the benchbot step with merge:, in a job that runs no repository code)`);
  }
  throw new ActionInputError(`${found} is set in the measuring step's environment (the workflow's env:); ${why}: remove it from this job and write to GitHub from a separate report job (the benchbot step with merge:)`);
}
