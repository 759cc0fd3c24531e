import type { GitHubClient } from './github-client.ts';
import { truncateMarkdown } from './truncate-markdown.ts';
import { inertTitle } from '../report/inert-markdown.ts';

/**
 * CHECK_RUN_TEXT_LIMIT is GitHub's cap on a check run's `output.summary` and
 * `output.text`. The OpenAPI description calls it 65535 characters, GitHub
 * enforces it on bytes in practice (github/rest-api-description#5399), so
 * truncateForCheckRun counts UTF-8 bytes, which satisfies both readings.
 */
export const CHECK_RUN_TEXT_LIMIT = 65535;

/** CheckConclusion is a completed check run's conclusion as GitHub accepts it on create. */
export type CheckConclusion = 'action_required' | 'cancelled' | 'failure' | 'neutral' | 'success' | 'skipped' | 'timed_out';

/** FailOn says whether a regression fails the check (`regression`) or only marks it neutral (`never`). */
export type FailOn = 'regression' | 'never';

/**
 * conclusionFor maps a verdict summary to a conclusion: `failure` when
 * something regressed and failOn is `regression`, `neutral` when something
 * regressed but failOn is `never`, else `success`.
 */
export function conclusionFor(summary: { regressed: number }, failOn: FailOn): 'success' | 'failure' | 'neutral' {
  if (summary.regressed <= 0) return 'success';
  return failOn === 'regression' ? 'failure' : 'neutral';
}

/** CheckRunOptions configure publishCheckRun. */
export interface CheckRunOptions {
  owner: string;
  repo: string;
  headSha: string;
  name: string;
  conclusion: CheckConclusion;
  title: string;
  /** summary is Markdown (untrusted text in it already escaped by the renderer), truncated to CHECK_RUN_TEXT_LIMIT bytes with a note. */
  summary: string;
  /** text is optional longer Markdown, truncated the same way. */
  text?: string;
  detailsUrl?: string;
  externalId?: string;
  /** checkRunId updates that check run (PATCH) instead of creating one. */
  checkRunId?: number;
}

/** CheckRunResult names the check run written and whether any text was cut. */
export interface CheckRunResult {
  id: number;
  url: string;
  truncated: boolean;
}

/**
 * publishCheckRun creates (or, with checkRunId, updates) a completed check run
 * on headSha. The token needs `checks: write`; a workflow's GITHUB_TOKEN has
 * it when the workflow grants it.
 */
export async function publishCheckRun(client: GitHubClient, options: CheckRunOptions): Promise<CheckRunResult> {
  const summary = truncateForCheckRun(options.summary);
  const text = options.text === undefined ? undefined : truncateForCheckRun(options.text);
  // The title is plain text that may quote a benchmark: one line, no live mention or reference.
  const output: Record<string, string> = { title: inertTitle(options.title), summary: summary.text };
  if (text !== undefined) output.text = text.text;
  const fields = {
    owner: options.owner,
    repo: options.repo,
    name: options.name,
    status: 'completed',
    conclusion: options.conclusion,
    details_url: options.detailsUrl,
    external_id: options.externalId,
    output,
  };
  const run = options.checkRunId === undefined
    ? await client.request<{ id: number; html_url: string | null }>('POST', '/repos/{owner}/{repo}/check-runs', { ...fields, head_sha: options.headSha })
    : await client.request<{ id: number; html_url: string | null }>('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}', { ...fields, check_run_id: options.checkRunId });
  return { id: run.id, url: run.html_url ?? '', truncated: summary.truncated || (text?.truncated ?? false) };
}

/**
 * truncateForCheckRun cuts Markdown to at most `limit` UTF-8 bytes with a
 * note pointing at the full report (see truncateMarkdown).
 */
export function truncateForCheckRun(markdown: string, limit = CHECK_RUN_TEXT_LIMIT): { text: string; truncated: boolean } {
  return truncateMarkdown(markdown, limit, (bytes, max) => `\n\n---\n_benchbot truncated this text: it was ${bytes} bytes and GitHub allows ${max}. The job summary and the PR comment have the full report._\n`);
}

/** FoundCheckRun is the part of a listed check run findCheckRun returns. */
export interface FoundCheckRun {
  id: number;
  status: string;
  external_id: string | null;
}

/**
 * findCheckRun looks on GitHub for a check run named `name` on `headSha`
 * that `match` accepts (the oldest first), for a maker whose earlier attempt
 * may have created it without recording it (the answer was lost, or the
 * process died): found, it is updated rather than created again. Null when
 * there is none.
 */
export async function findCheckRun(client: GitHubClient, options: { owner: string; repo: string; headSha: string; name: string }, match: (run: FoundCheckRun) => boolean): Promise<FoundCheckRun | null> {
  const runs = await client.paginate<FoundCheckRun>('/repos/{owner}/{repo}/commits/{ref}/check-runs', { owner: options.owner, repo: options.repo, ref: options.headSha, check_name: options.name, filter: 'all' });
  return runs.filter(match).sort((a, b) => a.id - b.id)[0] ?? null;
}
