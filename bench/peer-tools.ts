// Locating and running the peer tools that benchbot is measured against.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** benchstatPath finds benchstat, installing it with `go install` when missing; undefined if that fails. */
export function benchstatPath(): string | undefined {
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).stdout?.trim() || join(homedir(), 'go');
  const path = join(gopath, 'bin', 'benchstat');
  if (existsSync(path)) return path;
  const install = spawnSync('go', ['install', 'golang.org/x/perf/cmd/benchstat@latest'], { encoding: 'utf8', stdio: 'inherit' });
  return install.status === 0 && existsSync(path) ? path : undefined;
}

export const COMPARE_PY = '/usr/share/benchmark/compare.py';

/** timeCommand runs a command and returns its wall time in ms, or the reason it failed; `okStatuses` are the exit codes that mean success. */
export function timeCommand(command: string, args: string[], okStatuses: readonly number[] = [0], timeoutMs = 600_000): { ms: number } | { error: string } {
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, timeout: timeoutMs });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (run.error) return { error: run.error.message };
  if (!okStatuses.includes(run.status ?? -1)) return { error: `exit ${run.status}: ${run.stderr.slice(0, 200)}` };
  return { ms };
}

/** bestOf runs work `runs` times and returns the fastest wall time in ms (the least disturbed run). */
export function bestOf(runs: number, work: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    work();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return best;
}
