/**
 * A job's errors and notes name the setting that changes what went wrong,
 * and each adapter spells settings its own way: the CLI as a flag
 * (`--round-timeout`), the action as an input (`round-timeout`). Jobs take a
 * NameSetting and call it with the setting's canonical name, the CLI flag
 * without its dashes, so no adapter rewrites another's messages.
 */
export type NameSetting = (setting: string) => string;

/** cliSetting names a setting as the CLI's flag. */
export const cliSetting: NameSetting = (setting) => `--${setting}`;

/** ACTION_INPUTS are the settings whose action input has another name than the CLI's flag. */
const ACTION_INPUTS = new Map([
  ['repo', 'working-directory'],
  ['threshold-for', 'thresholds'],
]);

/**
 * ACTION_INPUT_NAMES are the inputs of action.yml (a test keeps the list
 * equal to the file's). A setting the action has no input for is fixed
 * there, and its name says so rather than point at an input that does not
 * exist.
 */
export const ACTION_INPUT_NAMES: ReadonlySet<string> = new Set([
  'bench', 'build', 'format', 'result-file', 'base', 'head', 'min-runs', 'max-runs', 'threshold', 'filter', 'thresholds', 'work-threshold', 'alpha',
  'executor', 'device-run', 'device-push', 'device-pull', 'store', 'counters', 'instructions', 'max-load', 'comment', 'fail-on', 'github-token',
  'working-directory', 'mode', 'good', 'bad', 'benchmark', 'metric', 'series', 'shard', 'merge', 'pr-number', 'check-name', 'artifact-name',
  'alert-comment-cc-users', 'comment-on-commit', 'issue-authors', 'max-items-in-chart',
]);

/** actionSetting names a setting as the action's input of the same name (ACTION_INPUTS where the action calls it otherwise). */
export const actionSetting: NameSetting = (setting) => {
  const input = ACTION_INPUTS.get(setting) ?? setting;
  return ACTION_INPUT_NAMES.has(input) ? input : `${setting} (fixed by the action, not an input; run benchbot directly to change it)`;
};

/**
 * SettingError is a setting a job cannot work with; its message starts
 * with the setting as the adapter spells it (NameSetting), so the CLI
 * shows it as a usage error and the action as an input error.
 */
export class SettingError extends Error {
  override name = 'SettingError';
}
