import { readdirSync, readFileSync } from 'node:fs';

/**
 * stray-processes: what a bench command left running after its round. Each
 * round runs in its own session and process group (runProcess), and the
 * group is killed when the command exits; a process that moved to another
 * group of the session (setpgid) or to a session of its own (setsid, a
 * classic daemon) escapes that. The first is found by its session id; the
 * second by a marker variable the round put in the command's environment,
 * which /proc/PID/environ keeps as it was at exec time whatever the process
 * does to its variables later. A process that re-execs itself with a clean
 * environment after leaving the session is not found: this is a net for
 * daemons left behind by accident or by a careless attacker, not a sandbox
 * (docs/security.md, runner side). Linux only; elsewhere nothing is found.
 */

/** COMMAND_MARKER_ENV is the variable that marks every process a command started (value: a random id per command). */
export const COMMAND_MARKER_ENV = 'BENCHBOT_COMMAND_ID';

/** StrayProcess is one process a command left behind: its pid and name (comm, at most 15 characters, from the command: hostile text). */
export interface StrayProcess {
  pid: number;
  name: string;
}

/**
 * findStrays lists the live processes (zombies left out) in the process
 * group or the session `leader` started, which benchbot killed when the
 * leader exited, or that carry `COMMAND_MARKER_ENV=marker` in their
 * environment. benchbot's own process is never one. Processes of other
 * users, whose environment cannot be read, count only by group and session.
 */
export function findStrays(leader: number, marker: string, procRoot = '/proc'): StrayProcess[] {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return [];
  }
  const needle = `${COMMAND_MARKER_ENV}=${marker}`;
  const strays: StrayProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid || pid === leader) continue;
    let stat: string;
    try {
      stat = readFileSync(`${procRoot}/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid pgrp session ...`; comm may hold spaces and parentheses, so the fields start after the last `)`.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    const [state, , pgrp, session] = [fields[0], fields[1], Number(fields[2]), Number(fields[3])];
    if (state === 'Z' || state === 'X') continue;
    const name = stat.slice(stat.indexOf('(') + 1, close);
    // Still in the group that was killed: forked after the kill (on its way out of the group, as setsid forks).
    if (pgrp === leader || session === leader || environHas(`${procRoot}/${entry}/environ`, needle)) strays.push({ pid, name });
  }
  return strays;
}

function environHas(path: string, needle: string): boolean {
  try {
    return readFileSync(path, 'latin1').split('\0').includes(needle);
  } catch {
    return false; // another user's process, or gone
  }
}

/** killStrays sends SIGKILL to each stray; one already gone is no error. */
export function killStrays(strays: readonly StrayProcess[]): void {
  for (const s of strays) {
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // ESRCH: it exited by itself.
    }
  }
}

/** SWEEP_PASSES bounds sweepStrays: a process caught forking during one pass is found by the next. */
const SWEEP_PASSES = 5;

/**
 * sweepStrays finds and kills what a command left running (findStrays)
 * until a pass finds nothing new, at most SWEEP_PASSES passes 20 ms apart,
 * and returns every process it killed.
 */
export async function sweepStrays(leader: number, marker: string, procRoot = '/proc'): Promise<StrayProcess[]> {
  const killed = new Map<number, StrayProcess>();
  for (let pass = 0; pass < SWEEP_PASSES; pass++) {
    const found = findStrays(leader, marker, procRoot);
    killStrays(found);
    const fresh = found.filter((s) => !killed.has(s.pid));
    for (const s of found) killed.set(s.pid, s);
    if (found.length === 0 || (pass > 0 && fresh.length === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return [...killed.values()];
}
