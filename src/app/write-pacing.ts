import Bottleneck from 'bottleneck';

/**
 * GitHub's guidance for its secondary rate limits, as @octokit/plugin-throttling
 * applies it: writes one at a time per installation, a second apart, and
 * three seconds between writes that notify people (comments, issues).
 */
export const WRITE_SPACING_MS = 1000;
export const NOTIFYING_WRITE_SPACING_MS = 3000;

/** InstallationBacklog is what one installation's writes wait on: writes queued behind the pacing, and whether one is going now. */
export interface InstallationBacklog {
  installation: string;
  writesWaiting: number;
  notifyingWritesWaiting: number;
}

/**
 * WritePacing holds the throttling plugin's write groups (keyed by
 * installation id inside), made here so that the app can see their queues:
 * the workers' pacing backlog in /healthz and the logs.
 */
export interface WritePacing {
  write: Bottleneck.Group;
  notifications: Bottleneck.Group;
  /** backlog lists installations with writes waiting, most first. */
  backlog(): InstallationBacklog[];
}

/** createWritePacing spaces writes GitHub's way, or every `intervalMs` for both kinds (0 on a loopback stand-in). */
export function createWritePacing(intervalMs?: number): WritePacing {
  const write = new Bottleneck.Group({ id: 'benchbot-write', maxConcurrent: 1, minTime: intervalMs ?? WRITE_SPACING_MS });
  const notifications = new Bottleneck.Group({ id: 'benchbot-notifications', maxConcurrent: 1, minTime: intervalMs ?? NOTIFYING_WRITE_SPACING_MS });
  const waiting = (group: Bottleneck.Group) => {
    const out = new Map<string, number>();
    for (const key of group.keys()) {
      const c = group.key(key).counts();
      const n = (c.RECEIVED ?? 0) + (c.QUEUED ?? 0) + (c.RUNNING ?? 0) + (c.EXECUTING ?? 0);
      if (n > 0) out.set(key, n);
    }
    return out;
  };
  return {
    write,
    notifications,
    backlog() {
      const writes = waiting(write);
      const notifying = waiting(notifications);
      const keys = new Set([...writes.keys(), ...notifying.keys()]);
      return [...keys]
        .map((installation) => ({ installation, writesWaiting: writes.get(installation) ?? 0, notifyingWritesWaiting: notifying.get(installation) ?? 0 }))
        .sort((a, b) => b.writesWaiting + b.notifyingWritesWaiting - (a.writesWaiting + a.notifyingWritesWaiting));
    },
  };
}
