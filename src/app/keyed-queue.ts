/** KeyedQueue runs a task after the tasks already queued under the same key have settled. */
export type KeyedQueue = <T>(key: string, task: () => Promise<T>) => Promise<T>;

/**
 * keyedQueue makes a KeyedQueue: tasks of one key run one at a time, in the
 * order given, whatever the outcome of the one before; tasks of different
 * keys run concurrently. A key is forgotten once its last task settles, so
 * the map holds only keys with work in flight.
 */
export function keyedQueue(): KeyedQueue {
  const last = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const result = (last.get(key) ?? Promise.resolve()).then(task, task);
    const settled = result.then(() => undefined, () => undefined);
    last.set(key, settled);
    void settled.then(() => {
      if (last.get(key) === settled) last.delete(key);
    });
    return result;
  };
}
