import type { GitHubClient } from '../github/github-client.ts';
import { dispatchToken, dispatchWorkflow, findDispatchedRun } from '../github/workflow-dispatch.ts';
import type { HandlerDeps, Repo } from './handler-deps.ts';

/**
 * DispatchRecord is what the effect of a workflow dispatch records: the run
 * (id 0: GitHub did not name it), its URL, when it was sent, and either
 * whether the dispatch carried its key (`keyed`) or that the run was found
 * after a lost answer (`found`).
 */
export type DispatchRecord = { id: number; url: string | null; at: string; keyed?: boolean; found?: boolean };

/**
 * dispatchOnce dispatches `workflow` once per effect `key`
 * (AppState.effectOnce): a later call gets the recorded run back, and one
 * whose earlier attempt recorded nothing (a lost answer, a crash) first
 * looks for the run by its key among the workflow's runs (findDispatchedRun)
 * before dispatching. `fresh` is true when this call sent the dispatch or
 * found the lost one, false when an earlier call had recorded it.
 */
export async function dispatchOnce(deps: HandlerDeps, client: GitHubClient, where: Repo, o: { workflow: string; ref: string; inputs: Record<string, string>; key: string; at: string }): Promise<{ run: DispatchRecord; fresh: boolean }> {
  const token = dispatchToken(o.key);
  let fresh = false;
  const run = await deps.state.effectOnce<DispatchRecord>(
    o.key,
    async (since) => {
      const found = await findDispatchedRun(client, { ...where, workflow: o.workflow, token, since });
      if (found === null) return null;
      fresh = true;
      deps.log.info({ owner: where.owner, repo: where.repo, runId: found.id, key: o.key }, 'found the run of a dispatch whose answer was not recorded; not dispatched again');
      return { id: found.id, url: found.url, at: since, found: true };
    },
    async () => {
      const answer = await dispatchWorkflow(client, { ...where, workflow: o.workflow, ref: o.ref, inputs: o.inputs, token });
      fresh = true;
      // id 0: GitHub did not name the run (GHES answers 204).
      return { id: answer.id ?? 0, url: answer.url, at: o.at, keyed: answer.keyed };
    },
  );
  return { run, fresh };
}
