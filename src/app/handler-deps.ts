import type { ParsedConfig } from './app-config.ts';
import type { AppState } from './app-state.ts';
import type { GitHubClient } from '../github/github-client.ts';
import type { RecomputeTask } from './bench-recompute.ts';
import type { RecomputedBench } from './bench-report.ts';

/** AppLog is the slice of Probot's (pino) logger the handlers use. */
export interface AppLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * HandlerDeps is what every event handler gets besides its GitHub client and
 * payload: the app's state, the app's own login (to find its comments), a
 * logger and a clock.
 */
export interface HandlerDeps {
  state: AppState;
  /** botLogin resolves the app's `<slug>[bot]` login once; null accepts any Bot author as the app. */
  botLogin: () => Promise<string | null>;
  log: AppLog;
  now: () => Date;
  /** loadConfig reads `.github/benchbot.yml` at a ref (loadRepoConfig, possibly cached). */
  loadConfig: (client: GitHubClient, owner: string, repo: string, ref: string) => Promise<ParsedConfig>;
  /** recompute recomputes and renders a `/bench` report from its artifact off the event loop; null when the artifact lacks a sample file (createRecomputer). */
  recompute: (task: RecomputeTask) => Promise<RecomputedBench | null>;
  /** delivery is the id of the delivery being handled (its job): a retry of the job takes back the comment claim it made (AppState.claimComment). */
  delivery?: string;
}

/** REPLY_MARKER marks the app's reply to `/bench` commands (help, usage, refusals): one per pull request, updated. */
export const REPLY_MARKER = '<!-- benchbot:reply -->';

/** CHECK_NAME is the check run a `/bench` keeps on the measured commit. */
export const CHECK_NAME = 'benchbot /bench';

/** Repo names a repository as the handlers pass it around. */
export interface Repo {
  owner: string;
  repo: string;
}

/** repoOf reads owner and name from a webhook's `repository`, or null when it is missing or malformed. */
export function repoOf(payload: { repository?: { name?: unknown; owner?: { login?: unknown } | null } | null }): Repo | null {
  const name = payload.repository?.name;
  const owner = payload.repository?.owner?.login;
  return typeof name === 'string' && typeof owner === 'string' && name !== '' && owner !== '' ? { owner, repo: name } : null;
}
