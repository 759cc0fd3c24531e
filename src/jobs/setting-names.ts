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

/** actionSetting names a setting as the action's input of the same name. */
export const actionSetting: NameSetting = (setting) => setting;
