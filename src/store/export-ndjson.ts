import type { Store } from './store.ts';

/** NDJSON_HEADER is the first line of every history export; importNdjson requires it. */
export const NDJSON_HEADER = { format: 'benchbot-history', version: 1 } as const;

/**
 * exportNdjson writes a store's history as NDJSON: the header line, then one
 * `{"type":"run","id":...}` line per run, oldest first, each a whole Run with
 * its repo, branch and every raw sample. Each chunk passed to `write` is one
 * line ending in "\n"; a returned promise is awaited (backpressure). The
 * state table is not exported: it is the app's bookkeeping, not history.
 */
export async function exportNdjson(store: Store, write: (chunk: string) => void | Promise<void>): Promise<{ runs: number }> {
  await write(`${JSON.stringify(NDJSON_HEADER)}\n`);
  let runs = 0;
  for (const id of await store.listRunIds()) {
    const run = await store.getRun(id);
    if (!run) continue; // deleted meanwhile
    const { id: runId, machineKey: _derived, repo, branch, ...rest } = run;
    await write(`${JSON.stringify({ type: 'run', id: runId, repo, branch, ...rest })}\n`);
    runs++;
  }
  return { runs };
}
