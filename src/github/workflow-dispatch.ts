import { createHash } from 'node:crypto';
import type { GitHubClient } from './github-client.ts';
import { GitHubError } from './github-client.ts';

/**
 * A workflow dispatch is an effect GitHub keeps no marker for: the run it
 * starts carries its inputs, which the REST API does not show, and its
 * `display_title`, which is the workflow's `run-name` when it sets one. So
 * each dispatch carries a key (DISPATCH_KEY_INPUT, a hash of the app's
 * effect key) as an input, the starter workflows put it in their
 * `run-name`, and a dispatch whose outcome is unknown (the answer was lost,
 * or the process died before recording it) is found again by listing the
 * workflow's dispatched runs since it was sent (findDispatchedRun).
 * A workflow that does not declare the input (copied before it existed) is
 * dispatched without it: GitHub refuses undeclared inputs with 422.
 */

/** DISPATCH_KEY_INPUT is the workflow_dispatch input that carries a dispatch's key (shown in the run's name by the starter workflows). */
export const DISPATCH_KEY_INPUT = 'dispatch-key';

/** dispatchToken is the key as it goes into a run's inputs and name: short, fixed-length, nothing from a pull request. */
export function dispatchToken(effectKey: string): string {
  return `bb${createHash('sha256').update(effectKey).digest('hex').slice(0, 16)}`;
}

/** carriesToken says whether a run's name carries a dispatch token as a word of its own: a token is never a prefix of another (fixed length), but a title is free text. */
export function carriesToken(title: string, token: string): boolean {
  return new RegExp(`(^|[^0-9a-z])${token}($|[^0-9a-z])`).test(title);
}

/** DispatchedRun is the run a dispatch started, when GitHub named it (github.com answers `return_run_details`; GHES answers 204). */
export interface DispatchedRun {
  id: number | null;
  url: string | null;
  /** keyed: the dispatch carried DISPATCH_KEY_INPUT (the workflow declares it), so findDispatchedRun can find its run. */
  keyed: boolean;
}

/** DispatchOptions name the workflow, the ref it runs on, its typed inputs and the dispatch's token (dispatchToken). */
export interface DispatchOptions {
  owner: string;
  repo: string;
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  token: string;
}

/**
 * dispatchWorkflow sends one workflow_dispatch with the token as
 * DISPATCH_KEY_INPUT; when GitHub refuses that input as undeclared (422
 * naming it), it is sent again without it (nothing was started). It is
 * never re-sent blind after a 5xx or a lost answer: that is for the caller,
 * who looks first.
 */
export async function dispatchWorkflow(client: GitHubClient, options: DispatchOptions): Promise<DispatchedRun> {
  const send = async (inputs: Record<string, string>) => {
    const answer = await client.request<{ workflow_run_id?: number; html_url?: string } | undefined>('POST', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
      owner: options.owner,
      repo: options.repo,
      workflow_id: options.workflow,
      ref: options.ref,
      inputs,
      // Without the run id the completion could not be tied back to what was dispatched.
      return_run_details: true,
    });
    return { id: typeof answer?.workflow_run_id === 'number' ? answer.workflow_run_id : null, url: typeof answer?.html_url === 'string' ? answer.html_url : null };
  };
  try {
    return { ...(await send({ ...options.inputs, [DISPATCH_KEY_INPUT]: options.token })), keyed: true };
  } catch (error) {
    if (!(error instanceof GitHubError && error.status === 422 && (error.githubMessage ?? '').includes(DISPATCH_KEY_INPUT))) throw error;
    return { ...(await send(options.inputs)), keyed: false };
  }
}

/** WorkflowRunSummary is the part of a workflow run findDispatchedRun reads. */
interface WorkflowRunSummary {
  id: number;
  html_url: string;
  display_title: string;
  event: string;
  created_at: string;
}

/** DISPATCH_SKEW_MS is how far GitHub's clock (a run's created_at) may be behind the app's (when the dispatch was intended). */
export const DISPATCH_SKEW_MS = 60_000;

/** MAX_RUN_PAGES bounds the look: 1,000 dispatched runs of one workflow since the dispatch is more than a retry ever needs to read. */
const MAX_RUN_PAGES = 10;

/**
 * findDispatchedRun finds the run a keyed dispatch started: a
 * `workflow_dispatch` run of the workflow, created since `since` (less
 * DISPATCH_SKEW_MS), whose name carries the token. Null when there is none:
 * the dispatch never reached GitHub (or the workflow's run-name does not
 * show the key, which the starter workflows do). GitHub lists runs newest
 * first, so the look stops at the first page that reaches back past
 * `since` (the `created` filter's range syntax is not what the REST
 * description documents, so it is not relied on).
 */
export async function findDispatchedRun(client: GitHubClient, options: { owner: string; repo: string; workflow: string; token: string; since: string }): Promise<{ id: number; url: string } | null> {
  const since = Date.parse(options.since) - DISPATCH_SKEW_MS;
  const mine: WorkflowRunSummary[] = [];
  for (let page = 1; page <= MAX_RUN_PAGES; page++) {
    const answer = await client.request<{ workflow_runs?: WorkflowRunSummary[] }>('GET', '/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs', {
      owner: options.owner,
      repo: options.repo,
      workflow_id: options.workflow,
      event: 'workflow_dispatch',
      exclude_pull_requests: true,
      per_page: 100,
      page,
    });
    const runs = answer?.workflow_runs ?? [];
    mine.push(...runs.filter((r) => r.event === 'workflow_dispatch' && carriesToken(r.display_title ?? '', options.token)));
    if (runs.length < 100 || runs.some((r) => Date.parse(r.created_at) < since)) break;
  }
  if (mine.length === 0) return null;
  // Two would mean someone dispatched by hand with the key: the first is the app's.
  const first = mine.sort((a, b) => a.id - b.id)[0];
  return { id: first.id, url: first.html_url };
}
