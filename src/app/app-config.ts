import { parseDocument } from 'yaml';
import { readPercent, type ThresholdRule } from '../compare/thresholds.ts';
import { closestName } from '../model/closest-name.ts';
import type { FailOn } from '../github/check-run.ts';
import { GITHUB_LOGIN, MAX_CC_USERS } from '../github/github-login.ts';

/** CONFIG_PATH is where the app reads a repository's settings, on its default branch. */
export const CONFIG_PATH = '.github/benchbot.yml';

/** MAX_CONFIG_BYTES bounds the file; a larger one is refused whole. */
export const MAX_CONFIG_BYTES = 64 * 1024;

/**
 * AppConfig is a repository's `.github/benchbot.yml`, validated, with every
 * default filled in:
 *
 * ```yaml
 * bench:
 *   workflow: benchbot-bench-command.yml # the /bench target, under .github/workflows
 *   allow: [octocat]                     # may run /bench besides write, maintain and admin
 *   runners: [bench, pixel-7]            # labels that runner=LABEL may name
 *   max-runs: 100                        # largest runs=N
 *   fail-on: regression                  # or never: the check run's conclusion on a regression
 * thresholds:                            # per benchmark glob, the last match wins
 *   '*': 2%
 *   'BM_Network/*': 10%
 * issues:
 *   labels: [performance]
 *   assignees: [octocat]
 *   cc: [hubot]                          # mentioned in every regression issue (github-action-benchmark's alert-comment-cc-users)
 * nightly:
 *   workflow: benchbot-nightly.yml
 *   bisect-workflow: benchbot-bisect.yml
 *   dashboard: https://octo.github.io/repo/  # where `benchbot dashboard` is published; issues link their series
 * ```
 */
export interface AppConfig {
  bench: {
    workflow: string;
    allow: string[];
    runners: string[];
    maxRuns: number;
    failOn: FailOn;
  };
  /** thresholds in file order; `thresholdFor` (compare/thresholds.ts) applies them. */
  thresholds: ThresholdRule[];
  issues: { labels: string[]; assignees: string[]; cc: string[] };
  nightly: { workflow: string; bisectWorkflow: string; dashboard?: string };
}

/** ConfigProblem names a key (dotted path, or `(file)`) and what is wrong with it. */
export interface ConfigProblem {
  key: string;
  message: string;
}

/** ParsedConfig is the usable configuration plus every problem; a problem's key keeps its default. */
export interface ParsedConfig {
  config: AppConfig;
  problems: ConfigProblem[];
}

/** defaultConfig returns the settings used when the file is absent (a fresh object each call). */
export function defaultConfig(): AppConfig {
  return {
    bench: { workflow: 'benchbot-bench-command.yml', allow: [], runners: [], maxRuns: 100, failOn: 'regression' },
    thresholds: [],
    issues: { labels: ['performance'], assignees: [], cc: [] },
    nightly: { workflow: 'benchbot-nightly.yml', bisectWorkflow: 'benchbot-bisect.yml' },
  };
}

const LOGIN = GITHUB_LOGIN;
const WORKFLOW = /^(?:[\w.-]+\.ya?ml|\d{1,15})$/;
const RUNNER = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * parseAppConfig validates the text of `.github/benchbot.yml`. It never
 * throws: a YAML error or a non-mapping top level makes every key default; a
 * bad key keeps its default and is reported with the reason; unknown keys are
 * reported (with a suggestion when one is close), since a typo would
 * otherwise be silently ignored. `null` text (no file) gives the defaults.
 */
export function parseAppConfig(text: string | null): ParsedConfig {
  const config = defaultConfig();
  const problems: ConfigProblem[] = [];
  if (text === null) return { config, problems };
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > MAX_CONFIG_BYTES) return { config, problems: [{ key: '(file)', message: `${CONFIG_PATH} is ${bytes} bytes; the limit is ${MAX_CONFIG_BYTES}, so every setting is at its default` }] };

  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const error = doc.errors[0];
    const at = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}: ` : '';
    const what = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { config, problems: [{ key: '(file)', message: `${CONFIG_PATH} is not valid YAML (${at}${what}), so every setting is at its default` }] };
  }
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    return { config, problems: [{ key: '(file)', message: `${CONFIG_PATH} could not be read (${(error as Error).message}), so every setting is at its default` }] };
  }
  if (root === null || root === undefined) return { config, problems };
  if (!isMapping(root)) return { config, problems: [{ key: '(file)', message: `${CONFIG_PATH} must be a mapping of keys (bench, thresholds, issues, nightly); every setting is at its default` }] };

  const report = (key: string, message: string) => problems.push({ key, message });
  unknownKeys(root, ['bench', 'thresholds', 'issues', 'nightly'], '', report);

  const bench = section(root, 'bench', report);
  if (bench) {
    unknownKeys(bench, ['workflow', 'allow', 'runners', 'max-runs', 'fail-on'], 'bench.', report);
    config.bench.workflow = stringKey(bench, 'bench.workflow', WORKFLOW, 'a workflow file name under .github/workflows, such as benchbot-bench-command.yml', report) ?? config.bench.workflow;
    config.bench.allow = listKey(bench, 'bench.allow', LOGIN, 'GitHub logins', report) ?? config.bench.allow;
    config.bench.runners = listKey(bench, 'bench.runners', RUNNER, 'runner labels (letters, digits, ".", "_", "-")', report) ?? config.bench.runners;
    const maxRuns = bench['max-runs'];
    if (maxRuns !== undefined) {
      if (Number.isInteger(maxRuns) && (maxRuns as number) >= 2 && (maxRuns as number) <= 10_000) config.bench.maxRuns = maxRuns as number;
      else report('bench.max-runs', `must be a whole number from 2 to 10000, not ${show(maxRuns)}`);
    }
    const failOn = bench['fail-on'];
    if (failOn !== undefined) {
      if (failOn === 'regression' || failOn === 'never') config.bench.failOn = failOn;
      else report('bench.fail-on', `must be \`regression\` or \`never\`, not ${show(failOn)}`);
    }
  }

  const thresholds = root.thresholds;
  if (thresholds !== undefined && thresholds !== null) {
    if (!isMapping(thresholds)) {
      report('thresholds', `must map benchmark globs to percentages, such as \`'BM_Network/*': 10%\`, not ${show(thresholds)}`);
    } else {
      for (const [glob, value] of Object.entries(thresholds)) {
        const fraction = typeof value === 'number' || typeof value === 'string' ? readPercent(String(value)) : undefined;
        if (glob.length === 0 || glob.length > 200) report('thresholds', `a glob must be 1 to 200 characters long, not ${glob.length}`);
        else if (typeof fraction === 'object') report(`thresholds.${glob}`, `${show(value)} is ${fraction.problem}`);
        else if (fraction === undefined || fraction <= 0) report(`thresholds.${glob}`, `must be a percentage above 0% and below 100%, such as 5%, not ${show(value)}`);
        else config.thresholds.push({ glob, threshold: fraction });
      }
    }
  }

  const issues = section(root, 'issues', report);
  if (issues) {
    unknownKeys(issues, ['labels', 'assignees', 'cc'], 'issues.', report);
    config.issues.labels = listKey(issues, 'issues.labels', /^[^\r\n\t]{1,50}$/, 'label names of at most 50 characters', report) ?? config.issues.labels;
    config.issues.assignees = listKey(issues, 'issues.assignees', LOGIN, 'GitHub logins', report) ?? config.issues.assignees;
    // Written `@octocat` as in github-action-benchmark's alert-comment-cc-users, or bare.
    const cc = issues.cc;
    const ccList = Array.isArray(cc) ? cc.map((c) => (typeof c === 'string' ? c.replace(/^@/, '') : c)) : typeof cc === 'string' ? cc.replace(/^@/, '') : cc;
    const logins = listKey({ cc: ccList }, 'issues.cc', LOGIN, 'GitHub logins', report);
    if (logins !== undefined && logins.length > MAX_CC_USERS) report('issues.cc', `must name at most ${MAX_CC_USERS} logins, not ${logins.length}`);
    else if (logins !== undefined) config.issues.cc = logins.filter((l, i) => logins.findIndex((x) => x.toLowerCase() === l.toLowerCase()) === i);
  }

  const nightly = section(root, 'nightly', report);
  if (nightly) {
    unknownKeys(nightly, ['workflow', 'bisect-workflow', 'dashboard'], 'nightly.', report);
    const dashboard = stringKey(nightly, 'nightly.dashboard', /^https?:\/\/[^\s]{1,2000}$/, 'the http(s) URL the dashboard is published at', report);
    if (dashboard !== undefined) config.nightly.dashboard = dashboard;
    config.nightly.workflow = stringKey(nightly, 'nightly.workflow', WORKFLOW, 'a workflow file name under .github/workflows', report) ?? config.nightly.workflow;
    config.nightly.bisectWorkflow = stringKey(nightly, 'nightly.bisect-workflow', WORKFLOW, 'a workflow file name under .github/workflows', report) ?? config.nightly.bisectWorkflow;
  }
  return { config, problems };
}

/** formatConfigProblems renders problems as a Markdown list for a comment or check run. */
export function formatConfigProblems(problems: readonly ConfigProblem[]): string {
  if (problems.length === 0) return '';
  const lines = problems.slice(0, 20).map((p) => `- \`${p.key.replace(/`/g, "'")}\`: ${p.message.replace(/[\r\n]+/g, ' ')}`);
  if (problems.length > 20) lines.push(`- … and ${problems.length - 20} more`);
  return [`**\`${CONFIG_PATH}\` has problems**; the keys named below use their defaults:`, '', ...lines].join('\n');
}

type Mapping = Record<string, unknown>;
type Report = (key: string, message: string) => void;

function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Map) && !(value instanceof Set);
}

function section(root: Mapping, name: string, report: Report): Mapping | null {
  const value = root[name];
  if (value === undefined || value === null) return null;
  if (isMapping(value)) return value;
  report(name, `must be a mapping of keys, not ${show(value)}`);
  return null;
}

function stringKey(parent: Mapping, key: string, pattern: RegExp, what: string, report: Report): string | undefined {
  const value = parent[key.slice(key.lastIndexOf('.') + 1)];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && pattern.test(value)) return value;
  report(key, `must be ${what}, not ${show(value)}`);
  return undefined;
}

function listKey(parent: Mapping, key: string, pattern: RegExp, what: string, report: Report): string[] | undefined {
  const raw = parent[key.slice(key.lastIndexOf('.') + 1)];
  if (raw === undefined || raw === null) return undefined;
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length > 100) {
    report(key, `must be a list of at most 100 ${what}, not ${show(raw)}`);
    return undefined;
  }
  const bad = list.find((item) => typeof item !== 'string' || !pattern.test(item));
  if (bad !== undefined) {
    report(key, `must be a list of ${what}; ${show(bad)} is not one`);
    return undefined;
  }
  return [...new Set(list as string[])];
}

function unknownKeys(mapping: Mapping, known: readonly string[], prefix: string, report: Report): void {
  for (const key of Object.keys(mapping)) {
    if (known.includes(key)) continue;
    const close = closestName(key, known);
    report(`${prefix}${key}`, `is not a setting benchbot knows${close ? `; did you mean \`${prefix}${close}\`?` : ` (known: ${known.join(', ')})`}`);
  }
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : Array.isArray(value) ? 'a list' : isMapping(value) ? 'a mapping' : String(value);
  return `\`${(text.length > 60 ? `${text.slice(0, 57)}...` : text).replace(/`/g, "'").replace(/[\r\n]+/g, ' ')}\``;
}
