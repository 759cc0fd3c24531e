/**
 * command-env: the environment of every command benchbot starts on this
 * machine (build, bench rounds, the fingerprint script, device and ssh
 * transports). It is benchbot's own environment without benchbot's
 * secrets, so that the code under test does not find the nightly's store
 * password or a token in its own environment: the store URL with its
 * password (BENCHBOT_DATABASE_URL), the action's inputs (BENCHBOT_INPUT_*,
 * among them `store`, which may be a URL with a password, and
 * `github-token`), the tokens `benchbot nightly --issues` reads, and the
 * app's keys. That bounds what a bench command gets by accident, not what
 * it can take: on Linux a process may read its parent's environment as it
 * was at exec time (/proc/$PPID/environ), and benchbot's own holds these
 * (docs/security.md says what remains).
 */

/** SECRET_ENV_NAMES are the variables benchbot takes credentials from; no command it starts inherits them. */
export const SECRET_ENV_NAMES: readonly string[] = [
  // STORE_URL_ENV (store/open-store.ts): a postgres:// URL with its password.
  'BENCHBOT_DATABASE_URL',
  // `benchbot nightly --issues` (cli/nightly-command.ts) and the action's token check (TOKEN_ENV_NAMES).
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  // `benchbot serve` (cli/serve-command.ts).
  'PRIVATE_KEY',
  'WEBHOOK_SECRET',
  'WEBHOOK_SECRET_PREVIOUS',
];

/** SECRET_ENV_PREFIXES: the action's inputs, which reach benchbot as BENCHBOT_INPUT_<NAME> (action/action-inputs.ts). */
export const SECRET_ENV_PREFIXES: readonly string[] = ['BENCHBOT_INPUT_'];

/**
 * commandEnv is the environment for a command benchbot starts: `base`
 * (default process.env) without SECRET_ENV_NAMES and SECRET_ENV_PREFIXES,
 * plus `extra`, which benchbot chose itself (RUSTUP_TOOLCHAIN for a
 * bisection, the round's marker) and which wins.
 */
export function commandEnv(extra: Record<string, string> = {}, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (SECRET_ENV_NAMES.includes(name) || SECRET_ENV_PREFIXES.some((p) => name.startsWith(p))) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}
