import type { GitHubClient } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';
import { findCheckRun, publishCheckRun, type CheckRunOptions } from '../github/check-run.ts';
import { upsertStickyComment } from '../github/sticky-comment.ts';
import { REPORT_MARKER } from '../report/markdown-report.ts';
import { checkRunKey, reportCommentKey, type BenchRequest } from './app-state.ts';
import { DISPATCH_KEY_INPUT } from '../github/workflow-dispatch.ts';
import { dispatchOnce, type DispatchRecord } from './dispatch-once.ts';
import { CHECK_NAME, type HandlerDeps, type Repo } from './handler-deps.ts';

/**
 * The effects of a `/bench` on GitHub, each made once per key however many
 * handlers ask for it at once (AppState.withEffect, on this replica or
 * another) and however often a failed or killed one is retried: the
 * workflow dispatch of a command, the sticky report comment of a pull
 * request, and the check run on its head, which two `/bench` on the same
 * head share, and which stays `open` in the record until a completion or a
 * newer `/bench` closes it.
 */

/**
 * dispatchBench dispatches the `/bench` workflow once per command (the
 * comment at its version, `key`; dispatchOnce), and warns when the workflow
 * does not declare the key input, without which a dispatch whose answer is
 * lost cannot be found again.
 */
export async function dispatchBench(deps: HandlerDeps, client: GitHubClient, where: Repo, workflow: string, ref: string, inputs: Record<string, string>, key: string, at: string): Promise<DispatchRecord> {
  const { run, fresh } = await dispatchOnce(deps, client, where, { workflow, ref, inputs, key, at });
  if (fresh && run.keyed === false) deps.log.warn({ owner: where.owner, repo: where.repo, workflow }, `the workflow does not declare the \`${DISPATCH_KEY_INPUT}\` input: dispatched without it, so a dispatch whose answer is lost cannot be found again (see docs/app.md)`);
  return run;
}

/** writeReportComment writes the pull request's sticky report comment; writers take turns, so it is created once. */
export async function writeReportComment(deps: HandlerDeps, client: GitHubClient, where: Repo, pr: number, body: string): Promise<void> {
  const botLogin = await deps.botLogin();
  await deps.state.withEffect(reportCommentKey(where.owner, where.repo, pr), async () => {
    // The comment is found by its marker on every write: one deleted by hand is made again, never twice.
    const written = await upsertStickyComment(client, { ...where, issueNumber: pr, marker: REPORT_MARKER, botLogin, body });
    return written.id === undefined ? null : { id: written.id };
  });
}

/** RunningCheck is what the in-progress check run of a `/bench` shows. */
export interface RunningCheck {
  detailsUrl: string | null;
  externalId: string | null;
  startedAt: string;
  title: string;
  summary: string;
}

/**
 * openCheckRun puts the `/bench` check run in progress on `head` and returns
 * its id: the one a concurrent `/bench` on the same head opened, updated,
 * or a new one when none is open (the last was completed).
 */
export async function openCheckRun(deps: HandlerDeps, client: GitHubClient, where: Repo, pr: number, head: string, check: RunningCheck): Promise<number> {
  const fields = { ...where, name: CHECK_NAME, status: 'in_progress', details_url: check.detailsUrl ?? undefined, external_id: check.externalId ?? undefined, output: { title: check.title, summary: check.summary } };
  const made = await deps.state.withEffect(checkRunKey(where.owner, where.repo, pr, head), async (last, attempt) => {
    // An attempt that recorded nothing may have opened one (a lost answer, a crash): it is on GitHub, in progress.
    const open = last?.open === true ? last.id : attempt.uncertain ? (await findCheckRun(client, { ...where, headSha: head, name: CHECK_NAME }, (r) => r.status !== 'completed'))?.id : undefined;
    if (open !== undefined) {
      try {
        await client.request('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}', { ...fields, check_run_id: open });
        return { id: open, open: true };
      } catch (error) {
        // Gone: a new one below.
        if (!(error instanceof GitHubError && error.status === 404)) throw error;
      }
    }
    const created = await client.request<{ id: number }>('POST', '/repos/{owner}/{repo}/check-runs', { ...fields, head_sha: head, started_at: check.startedAt });
    return { id: created.id, open: true };
  });
  return made.id;
}

/**
 * cancelCheckRun completes the open check run of a replaced `/bench` as
 * cancelled; `knownId` is its id from the request's records, for a check
 * run opened before it had an effect key. Nothing open: nothing to do.
 */
export async function cancelCheckRun(deps: HandlerDeps, client: GitHubClient, replaced: BenchRequest, knownId: number | null, by: BenchRequest): Promise<void> {
  await deps.state.withEffect(checkRunKey(replaced.owner, replaced.repo, replaced.pr, replaced.head), async (last, attempt) => {
    const lost = attempt.uncertain && (last === undefined || last.open !== true) ? await findCheckRun(client, { owner: replaced.owner, repo: replaced.repo, headSha: replaced.head, name: CHECK_NAME }, (r) => r.status !== 'completed') : null;
    const id = lost !== null ? lost.id : last === undefined ? knownId : last.open === true ? last.id : null;
    if (id === null) return null;
    try {
      await client.request('PATCH', '/repos/{owner}/{repo}/check-runs/{check_run_id}', {
        owner: replaced.owner,
        repo: replaced.repo,
        check_run_id: id,
        status: 'completed',
        conclusion: 'cancelled',
        output: { title: 'Replaced', summary: `Replaced by the \`/bench\` of @${by.requestedBy} at \`${by.head.slice(0, 12)}\`.` },
      });
    } catch (error) {
      if (!(error instanceof GitHubError && error.status === 404)) throw error;
    }
    return { id, open: false };
  });
}

/**
 * completeCheckRun publishes the completed check run of a reported `/bench`:
 * the one it opened (from its records, or the one open on its head), or a
 * new one; the open one is then closed.
 */
export async function completeCheckRun(deps: HandlerDeps, client: GitHubClient, request: BenchRequest, options: Omit<CheckRunOptions, 'owner' | 'repo' | 'headSha' | 'name' | 'checkRunId'>): Promise<void> {
  await deps.state.withEffect(checkRunKey(request.owner, request.repo, request.pr, request.head), async (last, attempt) => {
    const open = last?.open === true ? last.id : undefined;
    // An attempt that recorded nothing may have opened one, or completed one for this run (its external id): it is updated, not made again.
    const lost = attempt.uncertain && request.checkRunId === null && open === undefined
      ? await findCheckRun(client, { owner: request.owner, repo: request.repo, headSha: request.head, name: CHECK_NAME }, (r) => r.status !== 'completed' || (options.externalId !== undefined && r.external_id === options.externalId))
      : null;
    const published = await publishCheckRun(client, { ...options, owner: request.owner, repo: request.repo, headSha: request.head, name: CHECK_NAME, checkRunId: request.checkRunId ?? open ?? lost?.id });
    // Another check run still open on the head (not this request's) stays as recorded.
    return open !== undefined && open !== published.id ? null : { id: published.id, open: false };
  });
}
