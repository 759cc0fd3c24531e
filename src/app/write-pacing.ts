import type Bottleneck from 'bottleneck';
import type { Store } from '../store/store.ts';

/**
 * GitHub's guidance for its secondary rate limits, as @octokit/plugin-throttling
 * applies it: writes a second apart per installation, and three seconds
 * between writes that notify people (comments, issues).
 */
export const WRITE_SPACING_MS = 1000;
export const NOTIFYING_WRITE_SPACING_MS = 3000;

/** InstallationBacklog is what one installation's writes wait on in this replica. */
export interface InstallationBacklog {
  installation: string;
  writesWaiting: number;
  notifyingWritesWaiting: number;
}

/**
 * WritePacing spaces the throttling plugin's writes per installation, across
 * every replica on the store: `write` and `notifications` stand in for the
 * plugin's Bottleneck groups (it only asks them for `key(installation)
 * .schedule(...)`), and book each write's start in the store
 * (Store.takePacingSlot) before it goes. /healthz shows what waits.
 */
export interface WritePacing {
  write: Bottleneck.Group;
  notifications: Bottleneck.Group;
  /** backlog lists installations with writes waiting in this replica, most first. */
  backlog(): InstallationBacklog[];
}

/**
 * createWritePacing paces GitHub's way, or every `intervalMs` for both kinds;
 * 0 (a loopback stand-in, a GHES without secondary limits) writes at once
 * without asking the store.
 */
export function createWritePacing(store: Store, intervalMs?: number, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))): WritePacing {
  const waiting = { write: new Map<string, number>(), notify: new Map<string, number>() };
  const group = (kind: 'write' | 'notify', spacingMs: number) => ({
    key: (installation: string) => ({
      async schedule<T>(_options: unknown, task: (...args: unknown[]) => Promise<T>, ...args: unknown[]): Promise<T> {
        if (spacingMs > 0) {
          const counts = waiting[kind];
          counts.set(installation, (counts.get(installation) ?? 0) + 1);
          try {
            const start = await store.takePacingSlot(`${kind}:${installation}`, spacingMs, Date.now());
            const wait = start - Date.now();
            if (wait > 0) await sleep(wait);
          } finally {
            const left = (counts.get(installation) ?? 1) - 1;
            if (left > 0) counts.set(installation, left);
            else counts.delete(installation);
          }
        }
        return task(...args);
      },
    }),
  }) as unknown as Bottleneck.Group;
  return {
    write: group('write', intervalMs ?? WRITE_SPACING_MS),
    notifications: group('notify', intervalMs ?? NOTIFYING_WRITE_SPACING_MS),
    backlog() {
      const keys = new Set([...waiting.write.keys(), ...waiting.notify.keys()]);
      return [...keys]
        .map((installation) => ({ installation, writesWaiting: waiting.write.get(installation) ?? 0, notifyingWritesWaiting: waiting.notify.get(installation) ?? 0 }))
        .sort((a, b) => b.writesWaiting + b.notifyingWritesWaiting - (a.writesWaiting + a.notifyingWritesWaiting));
    },
  };
}
