import { randomUUID } from 'node:crypto';
import type { EffectEntry, Store } from '../store/store.ts';
import { keyedQueue } from './keyed-queue.ts';

/**
 * The app keeps its memory in the Store's `state` table, so that several
 * replicas behind one PostgreSQL database agree, and a restart forgets
 * nothing. Keys:
 *
 * - `delivery:<X-GitHub-Delivery>`: a delivery claim from before deliveries
 *   were jobs (the store's `app_jobs`, keyed by delivery id, now make the
 *   same delivery twice run once); only pruned.
 * - `comment:<owner>/<repo>/<comment id>@<updated_at>`: a comment whose
 *   command is being or has been handled. The signature covers the payload
 *   but not the delivery id, so a validly signed delivery re-sent under a new
 *   `X-GitHub-Delivery` is the same comment: this claim, not the delivery's,
 *   keeps it to one run. An edited comment (a new `updated_at`) is new.
 * - `bench:<owner>/<repo>#<pr>`: the latest `/bench` on a pull request.
 * - `run:<owner>/<repo>/<run id>`: the `/bench` a dispatched workflow run
 *   measures, so its completion finds its pull request and approved SHA.
 * - `unnamed:<owner>/<repo>/<dispatched at>#<pr>`: a `/bench` dispatch GitHub
 *   did not name the run of, until a completed run is bound to it.
 * - `bisect:<owner>/<repo>:<series>@<good>..<bad>`: a nightly regression whose
 *   bisection was dispatched, written before `bisect-dispatch:` (below)
 *   replaced it; still read, so an upgrade does not bisect it again.
 * - `bisect-run:<owner>/<repo>/<run id>`: the finding a bisect run works on.
 * - `issue:<owner>/<repo>:<series>`: the regression issue filed for a series.
 * - `reply:<owner>/<repo>#<pr>`: the effect (withEffect) of the app's reply
 *   comment on a pull request; its id makes a reply one PATCH instead of
 *   listing every comment.
 * - `report-comment:<owner>/<repo>#<pr>`: the effect of the sticky report
 *   comment on a pull request (the `/bench` running note and its report).
 * - `check-run:<owner>/<repo>#<pr>:<head sha>`: the effect of the `/bench`
 *   check run on a pull request's head, `open` while it is in progress.
 * - `bisect-issue:<owner>/<repo>:<series>:<good>..<bad>`: the effect of the
 *   regression issue a bisection files.
 * - `dispatch:<owner>/<repo>#<pr>/<comment id>@<updated_at>`: the effect of
 *   the workflow dispatch of a `/bench` comment (the comment's claim key).
 * - `bisect-dispatch:<owner>/<repo>:<series>@<good>..<bad>`: the effect of
 *   the bisect workflow dispatch for a nightly regression, so the next
 *   nightlies (which still see it) do not dispatch it again.
 * - `answered:<owner>/<repo>#<pr>:<kind>:<login>`: when a user was last
 *   answered a help or a refusal there; later ones in the same period are
 *   only logged, so comments cannot spend the installation's API budget.
 * - `permission:<owner>/<repo>:<login>`: a user GitHub said has no write
 *   access, kept for a few minutes (PERMISSION_TTL_MS).
 *
 * The effect keys (`reply:`, `report-comment:`, `check-run:`,
 * `bisect-issue:`, `dispatch:`, `bisect-dispatch:`) live in the store's
 * effects table (withEffect), the others in its state table.
 *
 * Owner and repository names are lower-cased in keys: GitHub treats them
 * case-insensitively, and a webhook may spell them differently from an API
 * response.
 */

/** STALE_CLAIM_MS is how long a comment claim may stay `processing` before another delivery of the comment may take it over (a crashed handler); a retry of the same delivery's job takes it back at once. */
export const STALE_CLAIM_MS = 10 * 60 * 1000;

/** ANSWER_PERIOD_MS: a user is answered a help or a refusal on a pull request at most once in this period (later ones are logged). */
export const ANSWER_PERIOD_MS = 60 * 60 * 1000;

/** PERMISSION_TTL_MS is how long GitHub's "no write access" answer for a user is reused; a grant takes effect within it. */
export const PERMISSION_TTL_MS = 5 * 60 * 1000;

/** AnswerKind names what a user was answered, each throttled on its own. */
export type AnswerKind = 'help' | 'refused';

/** DeliveryRecord is the value of a `comment:` claim (and of the old `delivery:` keys). */
export interface DeliveryRecord {
  event: string;
  status: 'processing' | 'done';
  at: string;
  /** delivery is the delivery (job) that holds a `processing` claim: a retry of that job takes its own claim back at once. */
  delivery?: string;
}

/** BenchRequest is one accepted `/bench`: what was approved, by whom, and where it runs. */
export interface BenchRequest {
  owner: string;
  repo: string;
  pr: number;
  /** base and head are the exact SHAs seen when the command was accepted. */
  base: string;
  head: string;
  requestedBy: string;
  commentId: number;
  commentUrl: string;
  /** args are the typed workflow inputs beyond pr-number, base and head. */
  args: Record<string, string>;
  workflow: string;
  /**
   * runId is the dispatched workflow run, or null when GitHub did not say
   * (GitHub Enterprise Server answers a dispatch with 204): the completion is
   * then bound to the request by workflow, the app as the run's actor and
   * time (bindUnnamedRun in workflow-run-completed.ts).
   */
  runId: number | null;
  runUrl: string | null;
  checkRunId: number | null;
  status: 'running' | 'replaced' | 'reported';
  /** dispatchedAt is when the dispatch was sent (absent in records from before it was kept); `at` is when GitHub had answered. */
  dispatchedAt?: string;
  at: string;
}

/** BisectRecord is the value of a `bisect-run:` key: the scan finding (scan JSON shape) and its branch. */
export interface BisectRecord {
  finding: Record<string, unknown>;
  branch: string;
  threshold: number;
  at: string;
}

/** IssueRecord is the value of an `issue:` key. */
export interface IssueRecord {
  number: number;
  url: string;
  marker: string;
  at: string;
  /** culprit: the merge bisection named, when it did (the dashboard marks it). */
  culprit?: { sha: string; subject: string; pr?: number };
}

/** EFFECT_LEASE_MS: an effect's lease (the effects table) not renewed for this long (its maker crashed) may be taken by another handler; a live maker renews it every quarter of it. */
export const EFFECT_LEASE_MS = 30 * 1000;

/** EFFECT_POLL_MS is how often a handler looks again at an effect another replica is making. */
const EFFECT_POLL_MS = 20;

/** EffectResult is what making an effect left on GitHub: its id, and what else the next maker needs (e.g. `open`). */
export type EffectResult = { id: number } & Record<string, unknown>;

/**
 * EffectAttempt is what a maker learns of the attempts before it: `last`,
 * what the last one that finished made (its GitHub object, to update rather
 * than create another), and `uncertain`, true when an attempt began and
 * recorded no outcome (it failed or its process died, maybe after GitHub
 * had made the object): the maker then looks for the object on GitHub (by
 * its marker, external id or run name) before making it.
 */
export interface EffectAttempt {
  last: EffectResult | undefined;
  uncertain: boolean;
  /** since is when the uncertain attempt began (ISO), so a look on GitHub can start there. */
  since: string | undefined;
}

/** Versioned pairs a value with the state version it was read at, for compare-and-set. */
export interface Versioned<T> {
  value: T;
  version: number;
}

/** AppState is the app's typed view of the Store's state and effects tables. */
export interface AppState {
  /** pruneDeliveries deletes delivery and comment claims, unnamed dispatches, answers, permissions and the effects nobody holds (but a check run still open) older than `olderThanMs`; returns how many. */
  pruneDeliveries(olderThanMs: number): Promise<number>;
  /**
   * claimComment marks a comment (at its `updated_at`) as being handled and
   * returns true, or false when it was already handled, or is being handled
   * and that claim is not stale.
   */
  claimComment(owner: string, repo: string, commentId: number, updatedAt: string, delivery?: string): Promise<boolean>;
  /** finishComment marks a claimed comment as handled for good. */
  finishComment(owner: string, repo: string, commentId: number, updatedAt: string): Promise<void>;
  /** releaseComment forgets a claim after a failure, so GitHub's redelivery handles the comment again. */
  releaseComment(owner: string, repo: string, commentId: number, updatedAt: string): Promise<void>;
  getBench(owner: string, repo: string, pr: number): Promise<Versioned<BenchRequest> | undefined>;
  /** setBench writes the latest request for a pull request if its version is still `expected` (null: absent). */
  setBench(request: BenchRequest, expected: number | null): Promise<boolean>;
  /** putUnnamed records a dispatch whose run GitHub did not name. */
  putUnnamed(request: BenchRequest): Promise<void>;
  /** listUnnamed returns the unnamed dispatches of a repository not yet bound to a run. */
  listUnnamed(owner: string, repo: string): Promise<BenchRequest[]>;
  /** deleteUnnamed forgets an unnamed dispatch once a run is bound to it. */
  deleteUnnamed(request: BenchRequest): Promise<void>;
  getRun(owner: string, repo: string, runId: number): Promise<Versioned<BenchRequest> | undefined>;
  /** dispatchEffects lists the repository's workflow dispatch effects (`/bench` and bisect), for a completion of a run that has no record yet. */
  dispatchEffects(owner: string, repo: string): Promise<EffectEntry[]>;
  /** putRun records which request a run measures (overwriting, e.g. with a new status). */
  putRun(request: BenchRequest & { runId: number }): Promise<void>;
  /** bisectClaimedBefore tells whether a regression's bisection was dispatched under the `bisect:` key of earlier versions. */
  bisectClaimedBefore(owner: string, repo: string, series: string, range: string): Promise<boolean>;
  putBisectRun(owner: string, repo: string, runId: number, record: BisectRecord): Promise<void>;
  getBisectRun(owner: string, repo: string, runId: number): Promise<BisectRecord | undefined>;
  putIssue(owner: string, repo: string, series: string, record: IssueRecord): Promise<void>;
  getIssue(owner: string, repo: string, series: string): Promise<IssueRecord | undefined>;
  /**
   * withEffect makes one effect on GitHub at a time per `key`, across the
   * handlers of this process and across replicas (the effects table): it
   * takes the key's lease and records it `intended` before `make` runs, and
   * `done` with what `make` returned after. `make` gets what came before
   * (EffectAttempt) and must reuse `last`, or find the object on GitHub,
   * rather than create a second one; returning null puts the record back as
   * it was (nothing made). When `make` throws, the record stays `intended`
   * without a holder: the outcome is unknown, so the next attempt is told
   * `uncertain`. A handler that finds the key held waits until it is free,
   * or until the holder's lease ran out (it crashed; a live one renews it
   * while `make` runs).
   */
  withEffect<T extends EffectResult | null>(key: string, make: (last: EffectResult | undefined, attempt: EffectAttempt) => Promise<T>): Promise<T>;
  /**
   * effectOnce makes an effect that is made once and never again (a
   * workflow dispatch): the recorded result when it was made, else what
   * `find` finds on GitHub when an attempt before was uncertain, else what
   * `make` makes.
   */
  effectOnce<T extends EffectResult>(key: string, find: (since: string) => Promise<T | null>, make: () => Promise<T>): Promise<T>;
  /**
   * claimAnswer returns true when `login` may be answered `kind` on a pull
   * request at `at` (no answer in the last ANSWER_PERIOD_MS), recording it
   * with compare-and-set so that concurrent deliveries answer once.
   */
  claimAnswer(owner: string, repo: string, pr: number, kind: AnswerKind, login: string, at: Date): Promise<boolean>;
  /** releaseAnswer forgets an answer that could not be written, so GitHub's redelivery answers. */
  releaseAnswer(owner: string, repo: string, pr: number, kind: AnswerKind, login: string): Promise<void>;
  /** hasNoWriteAccess tells whether GitHub said `login` has no write access less than PERMISSION_TTL_MS before `at`. */
  hasNoWriteAccess(owner: string, repo: string, login: string, at: Date): Promise<boolean>;
  putNoWriteAccess(owner: string, repo: string, login: string, at: Date): Promise<void>;
}

/** benchKey is the state key of a pull request's latest `/bench`. */
export function benchKey(owner: string, repo: string, pr: number): string {
  return `bench:${owner.toLowerCase()}/${repo.toLowerCase()}#${pr}`;
}

/** runKey is the state key of a dispatched run. */
export function runKey(owner: string, repo: string, runId: number): string {
  return `run:${owner.toLowerCase()}/${repo.toLowerCase()}/${runId}`;
}

const slug = (owner: string, repo: string) => `${owner.toLowerCase()}/${repo.toLowerCase()}`;

/** replyKey is the effect key of the app's reply comment on a pull request. */
export const replyKey = (owner: string, repo: string, pr: number) => `reply:${slug(owner, repo)}#${pr}`;
/** reportCommentKey is the effect key of the sticky report comment on a pull request. */
export const reportCommentKey = (owner: string, repo: string, pr: number) => `report-comment:${slug(owner, repo)}#${pr}`;
/** checkRunKey is the effect key of the `/bench` check run on a pull request's head. */
export const checkRunKey = (owner: string, repo: string, pr: number, head: string) => `check-run:${slug(owner, repo)}#${pr}:${head.toLowerCase()}`;
/** bisectIssueKey is the effect key of the regression issue a bisection of `range` (`<good>..<bad>`) files. */
export const bisectIssueKey = (owner: string, repo: string, series: string, range: string) => `bisect-issue:${slug(owner, repo)}:${series}:${range}`;
/** dispatchKey is the effect key of the workflow dispatch of a `/bench` comment at one version (its `updated_at`). */
export const dispatchKey = (owner: string, repo: string, pr: number, commentId: number, version: string) => `dispatch:${slug(owner, repo)}#${pr}/${commentId}@${version}`;
/** bisectDispatchKey is the effect key of the bisect dispatch for a regression of `series` over `range` (`<good>..<bad>`). */
export const bisectDispatchKey = (owner: string, repo: string, series: string, range: string) => `bisect-dispatch:${slug(owner, repo)}:${series}@${range}`;
const answerKey = (owner: string, repo: string, pr: number, kind: AnswerKind, login: string) => `answered:${slug(owner, repo)}#${pr}:${kind}:${login.toLowerCase()}`;
const unnamedKey = (r: BenchRequest) => `unnamed:${slug(r.owner, r.repo)}/${r.dispatchedAt ?? r.at}#${r.pr}`;

/** createAppState wraps a Store; `now` and the effects' lease are injectable for tests of stale claims and intents. */
export function createAppState(store: Store, now: () => number = Date.now, effectLeaseMs = EFFECT_LEASE_MS): AppState {
  const commentKey = (owner: string, repo: string, id: number, updatedAt: string) => `comment:${slug(owner, repo)}/${id}@${updatedAt}`;
  const iso = () => new Date(now()).toISOString();
  // claim takes a key with compare-and-set; a `processing` claim older than STALE_CLAIM_MS (a crashed handler), or one
  // held by the same delivery (its job retried after a crash or a failure), may be taken over.
  const claim = async (key: string, event: string, delivery?: string) => {
    const record: DeliveryRecord = delivery === undefined ? { event, status: 'processing', at: iso() } : { event, status: 'processing', at: iso(), delivery };
    if ((await store.compareAndSetState(key, null, record)) !== null) return true;
    const existing = await store.getState(key);
    if (existing === undefined) return (await store.compareAndSetState(key, null, record)) !== null;
    const value = existing.value as DeliveryRecord;
    const own = delivery !== undefined && value.delivery === delivery;
    if (value.status !== 'processing' || (!own && now() - Date.parse(value.at) < STALE_CLAIM_MS)) return false;
    return (await store.compareAndSetState(key, existing.version, record)) !== null;
  };
  const lastOf = (entry: EffectEntry | undefined): EffectResult | undefined =>
    entry === undefined || entry.githubId === null ? undefined : { ...(entry.result ?? {}), id: entry.githubId };
  // take waits for the key's lease: free, or held by a maker whose lease ran out.
  const take = async (key: string, holder: string): Promise<EffectEntry | undefined> => {
    for (;;) {
      const taken = await store.takeEffect(key, holder, now(), effectLeaseMs);
      if (taken.taken) return taken.before;
      // Another replica is making it (within this process the queue below already waits): look again shortly, with reads
      // rather than write transactions, until it is free or its holder's lease ran out.
      for (let held: EffectEntry | undefined = taken.current; held !== undefined && held.holder !== null && (held.leaseUntil ?? 0) > now(); held = await store.getEffect(key)) {
        await new Promise((resolve) => setTimeout(resolve, EFFECT_POLL_MS * (0.5 + Math.random())));
      }
    }
  };
  // Handlers of this process queue per key, so only handlers of other replicas poll.
  const queued = keyedQueue();
  const withEffect = <T extends EffectResult | null>(key: string, make: (last: EffectResult | undefined, attempt: EffectAttempt) => Promise<T>): Promise<T> =>
    queued(key, async () => {
      const holder = randomUUID();
      const before = await take(key, holder);
      // The lease is renewed while `make` runs (a throttled write may wait long), so only a maker that stopped loses it.
      let renewing: Promise<unknown> = Promise.resolve();
      const renewal = setInterval(() => {
        renewing = renewing.then(() => store.renewEffect(key, holder, now() + effectLeaseMs)).catch(() => undefined);
      }, effectLeaseMs / 4);
      renewal.unref();
      const stop = async () => {
        clearInterval(renewal);
        await renewing;
      };
      const last = lastOf(before);
      let result: T;
      try {
        result = await make(last, { last, uncertain: before?.status === 'intended', since: before?.status === 'intended' ? before.intendedAt : undefined });
      } catch (error) {
        await stop();
        // Made or not, nobody knows (GitHub may have made it and the answer was lost): the next attempt looks first.
        await store.releaseEffect(key, holder, 'unknown').catch(() => undefined);
        throw error;
      }
      await stop();
      try {
        if (result === null) await store.releaseEffect(key, holder, before);
        else {
          const { id, ...rest } = result;
          await store.finishEffect(key, holder, id, rest);
        }
      } catch (error) {
        // Not recorded: the key must not stay held for a lease; the next attempt looks first.
        await store.releaseEffect(key, holder, 'unknown').catch(() => undefined);
        throw error;
      }
      return result;
    });
  return {
    withEffect,
    effectOnce<T extends EffectResult>(key: string, find: (since: string) => Promise<T | null>, make: () => Promise<T>): Promise<T> {
      return withEffect(key, async (last, attempt) => {
        if (last !== undefined) return last as T;
        return (attempt.since !== undefined ? await find(attempt.since) : null) ?? (await make());
      });
    },
    claimComment: (owner, repo, id, updatedAt, delivery) => claim(commentKey(owner, repo, id, updatedAt), 'issue_comment', delivery),
    async finishComment(owner, repo, id, updatedAt) {
      await store.putState(commentKey(owner, repo, id, updatedAt), { event: 'issue_comment', status: 'done', at: iso() } satisfies DeliveryRecord);
    },
    async releaseComment(owner, repo, id, updatedAt) {
      await store.deleteState(commentKey(owner, repo, id, updatedAt));
    },
    async pruneDeliveries(olderThanMs) {
      let removed = 0;
      // `check-run:` state keys are effects from before the effects table; they go with the rest.
      const prefixes = ['delivery:', 'comment:', 'unnamed:', 'answered:', 'permission:', 'check-run:'];
      for (const entry of (await Promise.all(prefixes.map((prefix) => store.listState(prefix)))).flat()) {
        const at = Date.parse((entry.value as DeliveryRecord).at);
        if (Number.isFinite(at) && now() - at > olderThanMs && (await store.deleteState(entry.key, entry.version))) removed++;
      }
      // Effects: a check run key (one per benchmarked head) stays while its check run is open, which a newer /bench must cancel.
      for (const effect of await store.listEffects('')) {
        if (effect.holder !== null || (effect.key.startsWith('check-run:') && effect.result?.open === true)) continue;
        const at = Date.parse(effect.doneAt ?? effect.intendedAt);
        if (Number.isFinite(at) && now() - at > olderThanMs && (await store.deleteEffect(effect.key, effect.version))) removed++;
      }
      return removed;
    },
    async getBench(owner, repo, pr) {
      const entry = await store.getState(benchKey(owner, repo, pr));
      return entry === undefined ? undefined : { value: entry.value as BenchRequest, version: entry.version };
    },
    async setBench(request, expected) {
      return (await store.compareAndSetState(benchKey(request.owner, request.repo, request.pr), expected, request)) !== null;
    },
    async putUnnamed(request) {
      await store.putState(unnamedKey(request), request);
    },
    async listUnnamed(owner, repo) {
      return (await store.listState(`unnamed:${slug(owner, repo)}/`)).map((e) => e.value as BenchRequest);
    },
    async deleteUnnamed(request) {
      await store.deleteState(unnamedKey(request));
    },
    async getRun(owner, repo, runId) {
      const entry = await store.getState(runKey(owner, repo, runId));
      return entry === undefined ? undefined : { value: entry.value as BenchRequest, version: entry.version };
    },
    async dispatchEffects(owner, repo) {
      return [...(await store.listEffects(`dispatch:${slug(owner, repo)}#`)), ...(await store.listEffects(`bisect-dispatch:${slug(owner, repo)}:`))];
    },
    async putRun(request) {
      await store.putState(runKey(request.owner, request.repo, request.runId), request);
    },
    async bisectClaimedBefore(owner, repo, series, range) {
      return (await store.getState(`bisect:${slug(owner, repo)}:${series}@${range}`)) !== undefined;
    },
    async putBisectRun(owner, repo, runId, record) {
      await store.putState(`bisect-run:${slug(owner, repo)}/${runId}`, record);
    },
    async getBisectRun(owner, repo, runId) {
      return (await store.getState(`bisect-run:${slug(owner, repo)}/${runId}`))?.value as BisectRecord | undefined;
    },
    async putIssue(owner, repo, series, record) {
      await store.putState(`issue:${slug(owner, repo)}:${series}`, record);
    },
    async getIssue(owner, repo, series) {
      return (await store.getState(`issue:${slug(owner, repo)}:${series}`))?.value as IssueRecord | undefined;
    },
    async releaseAnswer(owner, repo, pr, kind, login) {
      await store.deleteState(answerKey(owner, repo, pr, kind, login));
    },
    async claimAnswer(owner, repo, pr, kind, login, at) {
      const key = answerKey(owner, repo, pr, kind, login);
      const record = { at: at.toISOString() };
      const existing = await store.getState(key);
      if (existing === undefined) return (await store.compareAndSetState(key, null, record)) !== null;
      if (at.getTime() - Date.parse((existing.value as { at: string }).at) < ANSWER_PERIOD_MS) return false;
      return (await store.compareAndSetState(key, existing.version, record)) !== null;
    },
    async hasNoWriteAccess(owner, repo, login, at) {
      const entry = await store.getState(`permission:${slug(owner, repo)}:${login.toLowerCase()}`);
      const since = entry === undefined ? NaN : at.getTime() - Date.parse((entry.value as { at: string }).at);
      return since >= 0 && since < PERMISSION_TTL_MS;
    },
    async putNoWriteAccess(owner, repo, login, at) {
      await store.putState(`permission:${slug(owner, repo)}:${login.toLowerCase()}`, { at: at.toISOString() });
    },
  };
}
