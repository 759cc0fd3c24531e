import { conclusionFor, type CheckConclusion } from '../github/check-run.ts';
import type { GitHubClient } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';
import { carriesToken, dispatchToken } from '../github/workflow-dispatch.ts';
import { headline } from '../report/report-order.ts';
import { formatConfigProblems } from './app-config.ts';
import type { BenchRequest, Versioned } from './app-state.ts';
import { renderBenchFailure, REPORT_ARTIFACT, ReportShapeError, type FailedStep, type RecomputedBench } from './bench-report.ts';
import { RecomputeBudgetError } from './bench-recompute.ts';
import { completeCheckRun, writeReportComment } from './bench-effects.ts';
import { repoOf, type HandlerDeps, type Repo } from './handler-deps.ts';
import { JobWaiting } from './job-workers.ts';
import { ZipError } from './read-zip.ts';
import { downloadArtifactZip } from './artifact-file.ts';
import { RESULTS_FILES } from '../jobs/results-artifact.ts';
import { handleBisectCompleted, handleNightlyCompleted, isWorkflow, ScanShapeError, type RegressionOutcome } from './regression-loop.ts';

/** WorkflowRunPayload is the part of a `workflow_run` webhook this handler reads. */
export interface WorkflowRunPayload {
  action?: string;
  workflow_run?: {
    id?: number;
    conclusion?: string | null;
    html_url?: string;
    path?: string;
    event?: string;
    head_branch?: string | null;
    head_sha?: string;
    run_attempt?: number;
    head_repository?: RepositoryIdentity | null;
    repository?: RepositoryIdentity | null;
    actor?: { login?: string } | null;
    created_at?: string;
    display_title?: string;
  };
  repository?: { id?: number; full_name?: string; name?: string; owner?: { login?: string }; default_branch?: string };
}

/** RepositoryIdentity is how a workflow run names a repository. */
interface RepositoryIdentity {
  id?: number;
  full_name?: string;
}

/** RunOutcome says what handleWorkflowRunCompleted did, for logs and tests. */
export type RunOutcome = 'ignored' | 'untrusted' | 'superseded' | 'reported' | 'failure-reported' | 'bad-artifact' | RegressionOutcome;

/**
 * NIGHTLY_EVENTS are the events a nightly run may come from: the schedule,
 * someone with write access dispatching it, or a push (a point per push, as
 * github-action-benchmark records); the default branch check below keeps
 * a push to any other branch out.
 */
const NIGHTLY_EVENTS = ['schedule', 'workflow_dispatch', 'push'];

/**
 * untrustedBecause says why a completed run is not what the app may act on
 * as `kind`, or null when it is. Every run the app acts on ran on the
 * default branch of the repository itself: a fork's pull request can run a
 * workflow file at the same path (with its own content and its own
 * artifacts), so the path alone proves nothing. A nightly must also come
 * from `schedule`, `workflow_dispatch` or `push`; a run the app dispatched (a
 * `/bench` or a bisection, found by its run id in the app's state) from
 * `workflow_dispatch`, of the workflow file the app dispatched.
 */
export function untrustedBecause(payload: WorkflowRunPayload, kind: 'nightly' | 'dispatched', workflow: string): string | null {
  const run = payload.workflow_run ?? {};
  const repository = payload.repository ?? {};
  const allowed = kind === 'nightly' ? NIGHTLY_EVENTS : ['workflow_dispatch'];
  if (!allowed.includes(run.event ?? '')) return `event \`${run.event ?? 'none'}\` is not ${allowed.map((e) => `\`${e}\``).join(' or ')}`;
  const head = run.head_repository;
  const sameId = typeof head?.id === 'number' && head.id === repository.id;
  const sameName = typeof head?.full_name === 'string' && typeof repository.full_name === 'string' && head.full_name.toLowerCase() === repository.full_name.toLowerCase();
  // Both must agree: ids survive renames, names are what people read; a payload missing either is not trusted.
  if (!sameId || !sameName) return `head repository \`${head?.full_name ?? 'none'}\` is not \`${repository.full_name ?? 'none'}\` itself`;
  if (typeof repository.default_branch !== 'string' || repository.default_branch === '') return 'the payload names no default branch';
  if (run.head_branch !== repository.default_branch) return `head branch \`${run.head_branch ?? 'none'}\` is not the default branch \`${repository.default_branch}\``;
  if (!isWorkflow(run.path ?? '', workflow)) return `workflow \`${run.path ?? 'none'}\` is not \`.github/workflows/${workflow}\``;
  return null;
}

/**
 * completedRunOf returns the repository and run of a `workflow_run.completed`
 * delivery, or null when it names none (nothing to do, decided from the
 * payload alone, before the app touches its store).
 */
export function completedRunOf(payload: WorkflowRunPayload): { where: Repo; run: NonNullable<WorkflowRunPayload['workflow_run']> & { id: number } } | null {
  const run = payload.workflow_run;
  const where = repoOf(payload);
  if (payload.action !== 'completed' || where === null || typeof run?.id !== 'number') return null;
  return { where, run: run as typeof run & { id: number } };
}

/**
 * handleWorkflowRunCompleted turns a finished workflow run into results, but
 * only from a run that is what it claims (untrustedBecause): anything else
 * is logged and ignored, with no API call beyond the config. A
 * run the app dispatched for `/bench` (found by run id in the state) becomes
 * the sticky PR comment and the check run: the JSON report artifact rendered,
 * or, without one, the failure with the failed steps and a link to the log.
 * A run replaced by a newer `/bench` is ignored. A nightly run dispatches
 * bisections and a bisect run files the regression issue (regression-loop.ts).
 * Everything else is ignored, before any API call. A delivery sent twice
 * runs once: its job is keyed by the delivery id (job-workers.ts).
 */
export async function handleWorkflowRunCompleted(deps: HandlerDeps, client: GitHubClient, payload: WorkflowRunPayload): Promise<RunOutcome> {
  const found = completedRunOf(payload);
  if (found === null) return 'ignored';
  const { where, run } = found;
  let entry = await deps.state.getRun(where.owner, where.repo, run.id);
  const distrust = (why: string, as: string): RunOutcome => {
    deps.log.warn({ owner: where.owner, repo: where.repo, runId: run.id, path: run.path, event: run.event, headRepository: run.head_repository?.full_name, headBranch: run.head_branch, why }, `workflow run not trusted as ${as}; ignored`);
    return 'untrusted';
  };
  if (entry === undefined) {
    const path = run.path ?? '';
    if (!path.startsWith('.github/workflows/')) return 'ignored';
    const defaultBranch = payload.repository?.default_branch || 'main';
    const { config } = await deps.loadConfig(client, where.owner, where.repo, defaultBranch);
    try {
      if (isWorkflow(path, config.nightly.workflow)) {
        const why = untrustedBecause(payload, 'nightly', config.nightly.workflow);
        if (why !== null) return distrust(why, 'a nightly');
        return await handleNightlyCompleted(deps, client, where, run.id, config, defaultBranch);
      }
      if (isWorkflow(path, config.nightly.bisectWorkflow)) {
        // The bisect run must also be one the app dispatched: handleBisectCompleted finds it by run id.
        const why = untrustedBecause(payload, 'dispatched', config.nightly.bisectWorkflow);
        if (why !== null) return distrust(why, 'a bisection');
        const outcome = await handleBisectCompleted(deps, client, where, run.id, config);
        if (outcome === 'not-dispatched-here' && (await dispatchNotRecorded(deps, where, run))) throw new NotRecordedYet(`bisect run ${run.id} was dispatched by the app and is not recorded yet (its dispatch is being made, or its replica stopped and the job waits out its lease); retried until it is`);
        return outcome;
      }
    } catch (error) {
      // A malformed artifact does not get better on redelivery: say so in the log and move on.
      if (!(error instanceof ScanShapeError || error instanceof ZipError)) throw error;
      deps.log.warn({ owner: where.owner, repo: where.repo, runId: run.id, error: error.message }, 'unreadable nightly or bisect artifact');
      return 'bad-artifact';
    }
    if (!isWorkflow(path, config.bench.workflow)) return 'ignored';
    const why = untrustedBecause(payload, 'dispatched', config.bench.workflow);
    if (why !== null) return distrust(why, 'a /bench run');
    const bound = await bindUnnamedRun(deps, where, payload, config.bench.workflow);
    if (bound === undefined) {
      if (await dispatchNotRecorded(deps, where, run)) throw new NotRecordedYet(`/bench run ${run.id} was dispatched by the app and is not recorded yet (its dispatch is being made, or its replica stopped and the job waits out its lease); retried until it is`);
      return 'ignored';
    }
    entry = bound;
  }
  const request = entry.value;
  const why = untrustedBecause(payload, 'dispatched', request.workflow);
  if (why !== null) return distrust(why, `the /bench run of ${request.owner}/${request.repo}#${request.pr}`);
  if (request.status === 'replaced') return 'superseded';
  const latest = await deps.state.getBench(where.owner, where.repo, request.pr);
  if (latest !== undefined && latest.value.runId !== run.id && latest.value.at > request.at) return 'superseded';
  // The /bench that dispatched the run records its check run last, once the in-progress check run and comment are made: reported
  // before that, they would be made after the report and stay (the run ended at once, or the /bench's replica died and its job waits out its lease).
  if (request.status === 'running' && request.checkRunId === null) throw new NotRecordedYet(`the /bench of ${request.owner}/${request.repo}#${request.pr} that dispatched run ${run.id} has not opened its check run yet; retried until it has`);

  // Three independent reads at once: the config, the pull request's head now, and the artifact.
  const noSamples = `the run uploaded no \`${REPORT_ARTIFACT}\` artifact with ${RESULTS_FILES.base} and ${RESULTS_FILES.head}.`;
  const unreadable = (message: string) => `the \`${REPORT_ARTIFACT}\` artifact could not be read: ${message}`;
  const reading = downloadArtifactZip(client, where, run.id, REPORT_ARTIFACT).then(
    (zip) => ({ zip, detail: zip === null ? noSamples : null }),
    (error: unknown) => {
      if (!(error instanceof ReportShapeError || error instanceof ZipError)) throw error;
      return { zip: null, detail: unreadable(error.message) };
    },
  );
  reading.catch(() => undefined);
  const [{ config, problems }, currentHead, { zip, detail: readDetail }] = await Promise.all([
    deps.loadConfig(client, where.owner, where.repo, payload.repository?.default_branch || 'main'),
    headOf(client, where, request.pr),
    reading,
  ]);
  const runUrl = typeof run.html_url === 'string' ? run.html_url : request.runUrl;
  const meta = { requestedBy: request.requestedBy, commentUrl: request.commentUrl, base: request.base, head: request.head, currentHead, runUrl, notes: [formatConfigProblems(problems)] };

  // Inflating, parsing, comparing and rendering run off the event loop, capped and within a time budget (bench-recompute.ts).
  let recomputed: RecomputedBench | null = null;
  let detail = readDetail;
  if (zip !== null) {
    try {
      recomputed = await deps.recompute({ zip, args: request.args, meta });
      if (recomputed === null) detail = noSamples;
    } catch (error) {
      if (error instanceof ReportShapeError) detail = unreadable(error.message);
      else if (error instanceof RecomputeBudgetError) detail = `${error.message}; the run's ${REPORT_ARTIFACT} artifact has the results.`;
      else throw error;
    }
  }
  if (recomputed?.cap) deps.log.warn({ owner: where.owner, repo: where.repo, pr: request.pr, runId: run.id, ...recomputed.cap }, '/bench report recomputed under the series cap');

  let body: string;
  let conclusion: CheckConclusion;
  let title: string;
  if (recomputed !== null) {
    body = recomputed.body;
    conclusion = conclusionFor(recomputed.summary, config.bench.failOn);
    title = headline(recomputed.summary);
  } else {
    const failed = await failedSteps(client, where, run.id);
    const runConclusion = typeof run.conclusion === 'string' ? run.conclusion : 'unknown';
    body = renderBenchFailure({ ...meta, conclusion: runConclusion, failed, detail });
    conclusion = runConclusion === 'cancelled' ? 'cancelled' : 'failure';
    title = runConclusion === 'cancelled' ? 'Cancelled' : 'The benchmark run failed';
  }

  await Promise.all([writeReportComment(deps, client, where, request.pr, body), completeCheckRun(deps, client, request, {
    conclusion,
    title,
    summary: body.split('\n').slice(1).join('\n'),
    detailsUrl: runUrl ?? undefined,
    externalId: String(run.id),
  })]);

  await deps.state.putRun({ ...request, runId: run.id, status: 'reported' });
  if (latest !== undefined && latest.value.runId === run.id) {
    // A newer /bench in between wins the compare-and-set; its record must stay `running`.
    await deps.state.setBench({ ...latest.value, status: 'reported' } satisfies BenchRequest, latest.version);
  }
  deps.log.info({ owner: where.owner, repo: where.repo, pr: request.pr, runId: run.id, conclusion }, 'reported /bench');
  return recomputed !== null ? 'reported' : 'failure-reported';
}

/**
 * NotRecordedYet is thrown for the completion of a run the app dispatched
 * whose handler has not finished recording it: the job waits (JobWaiting:
 * retried every 15 s without spending attempts, for up to an hour;
 * JOB_DEFAULTS) until it has, instead of the completion being dropped and
 * the check run left in progress. It happens when the replica that
 * dispatched the run was killed before recording it (its job is taken over
 * when its lease runs out, 30 s), when the /bench waits behind GitHub's
 * write pacing, or when a run ends at once.
 */
export class NotRecordedYet extends JobWaiting {
  override name = 'NotRecordedYet';
}

/**
 * dispatchNotRecorded says whether `run`, which the app has no record of, is
 * the app's own dispatch whose record is still to come: started by the app
 * (its actor), and named (its run-name) with the token of one of the
 * repository's dispatch effects that is intended (made or being made, the
 * outcome not stored) or done with this run.
 */
async function dispatchNotRecorded(deps: HandlerDeps, where: Repo, run: NonNullable<WorkflowRunPayload['workflow_run']> & { id: number }): Promise<boolean> {
  const botLogin = await deps.botLogin();
  const actor = run.actor?.login;
  if (botLogin === null || typeof actor !== 'string' || actor.toLowerCase() !== botLogin.toLowerCase() || typeof run.display_title !== 'string') return false;
  const title = run.display_title;
  return (await deps.state.dispatchEffects(where.owner, where.repo)).some((e) => (e.status === 'intended' || e.githubId === run.id) && carriesToken(title, dispatchToken(e.key)));
}

/** UNNAMED_RUN_SKEW_MS is how far GitHub's clock (a run's created_at) may be from the app's own (a dispatch's times). */
const UNNAMED_RUN_SKEW_MS = 10_000;

/**
 * bindUnnamedRun ties a completed `/bench` workflow run that the app has no
 * run id for to the dispatch it must come from, where GitHub did not name
 * the dispatched run (GitHub Enterprise Server answers a dispatch with 204).
 * The run must have been started by the app itself (its `actor` is the
 * app's bot login: nobody else can dispatch as the app), and exactly one
 * unnamed dispatch of the same workflow must have been in flight when the
 * run was created (between sending the dispatch and GitHub's answer, give or
 * take UNNAMED_RUN_SKEW_MS). Otherwise nothing is bound (logged): two
 * unnamed dispatches at once cannot be told apart, and a guess could post
 * one pull request's numbers on another. A dispatch a newer `/bench`
 * replaced is bound as replaced, so its run is ignored.
 */
async function bindUnnamedRun(deps: HandlerDeps, where: Repo, payload: WorkflowRunPayload, workflow: string): Promise<Versioned<BenchRequest> | undefined> {
  const run = payload.workflow_run ?? {};
  const botLogin = await deps.botLogin();
  const actor = run.actor?.login;
  const created = Date.parse(run.created_at ?? '');
  const skip = (why: string) => {
    deps.log.info({ owner: where.owner, repo: where.repo, runId: run.id, actor, why }, 'completed /bench workflow run not bound to a dispatch; ignored');
    return undefined;
  };
  if (typeof run.id !== 'number') return undefined;
  if (botLogin === null || typeof actor !== 'string' || actor.toLowerCase() !== botLogin.toLowerCase()) return skip('the app did not start it');
  if (!Number.isFinite(created)) return skip('the run has no created_at');
  const candidates = (await deps.state.listUnnamed(where.owner, where.repo)).filter((r) => r.workflow.toLowerCase() === workflow.toLowerCase()
    && created >= Date.parse(r.dispatchedAt ?? r.at) - UNNAMED_RUN_SKEW_MS
    && created <= Date.parse(r.at) + UNNAMED_RUN_SKEW_MS);
  if (candidates.length !== 1) return skip(candidates.length === 0 ? 'no unnamed dispatch of this workflow when it was created' : `${candidates.length} unnamed dispatches when it was created`);
  const [request] = candidates;
  const latest = await deps.state.getBench(where.owner, where.repo, request.pr);
  const current = latest !== undefined && latest.value.at === request.at && latest.value.runId === null;
  const bound: BenchRequest = { ...(current ? latest.value : request), runId: run.id, runUrl: typeof run.html_url === 'string' ? run.html_url : request.runUrl, status: current ? latest.value.status : 'replaced' };
  if (current && !(await deps.state.setBench(bound, latest.version))) return skip('the request changed meanwhile');
  await deps.state.putRun({ ...bound, runId: run.id });
  await deps.state.deleteUnnamed(request);
  deps.log.info({ owner: where.owner, repo: where.repo, pr: bound.pr, runId: run.id, status: bound.status }, 'bound an unnamed /bench dispatch to its run');
  return deps.state.getRun(where.owner, where.repo, run.id);
}

/** headOf returns the pull request's current head SHA, or null when it cannot be read (the report then omits the note). */
async function headOf(client: GitHubClient, where: Repo, pr: number): Promise<string | null> {
  try {
    const pull = await client.request<{ head: { sha: string } }>('GET', '/repos/{owner}/{repo}/pulls/{pull_number}', { ...where, pull_number: pr });
    return pull.head.sha;
  } catch (error) {
    if (error instanceof GitHubError && error.status < 500) return null;
    throw error;
  }
}

/** failedSteps lists the failed jobs and steps of a run's latest attempt; best effort, since the comment must be written anyway. */
async function failedSteps(client: GitHubClient, where: Repo, runId: number): Promise<FailedStep[]> {
  try {
    const jobs = await client.paginate<{ name: string; conclusion: string | null; html_url: string | null; steps?: { name: string; conclusion: string | null }[] }>('/repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { ...where, run_id: runId, filter: 'latest' });
    return jobs
      .filter((j) => j.conclusion === 'failure' || j.conclusion === 'timed_out')
      .map((j) => ({ job: j.name, step: j.steps?.find((s) => s.conclusion === 'failure')?.name ?? null, url: j.html_url }));
  } catch (error) {
    if (error instanceof GitHubError) return [];
    throw error;
  }
}
