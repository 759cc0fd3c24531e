/**
 * serve-process: `benchbot serve` as its users run it, the package's bin
 * (bin/benchbot.js) in a process of its own, configured by environment only.
 * The load bench and the crash tests start replicas with it, kill them, and
 * read their CPU time from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** BIN is the package's bin: in a checkout it runs the TypeScript sources, in an installed package the bundle. */
export const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

/** ServeProcess is one running `benchbot serve`. */
export interface ServeProcess {
  url: string;
  webhookUrl: string;
  pid: number;
  child: ChildProcess;
  /** cpuMs is the CPU time (user + system) the process has used so far, from /proc. */
  cpuMs(): number;
  /** kill sends `signal` (default SIGKILL) and resolves when the process is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** stop asks for a clean stop (SIGTERM) and waits up to `ms` (then SIGKILL). */
  stop(ms?: number): Promise<number | null>;
}

/** ServeOptions say how to start it. */
export interface ServeOptions {
  /** env is added to the process's environment (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GITHUB_API_URL, BENCHBOT_DATABASE_URL, ...). */
  env: Record<string, string>;
  /** entry runs another entry file instead of the bin (the bundle, dist/benchbot.js). */
  entry?: string;
  /** log, when set, receives the process's stdout and stderr. */
  log?: string;
  args?: string[];
}

/** startServe starts one replica on a free loopback port and resolves once it says where it listens. */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const child = spawn(process.execPath, [options.entry ?? BIN, 'serve', '--port', '0', '--host', '127.0.0.1', ...(options.args ?? [])], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = options.log === undefined ? null : createWriteStream(options.log, { flags: 'a' });
  child.stderr?.on('data', (chunk: Buffer) => log?.write(chunk));
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    let said = '';
    lines.on('line', (line) => {
      log?.write(`${line}\n`);
      const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (found) resolve(found);
      else said += `${line}\n`;
    });
    void exited.then(([code, signal]) => reject(new Error(`benchbot serve exited (${signal ?? code}) before listening:\n${said}`)));
  });
  const pid = child.pid as number;
  const ticks = 100; // USER_HZ on Linux
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    webhookUrl: `${url}/api/github/webhooks`,
    pid,
    child,
    cpuMs() {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks;
      } catch {
        return Number.NaN;
      }
    },
    async kill(signal = 'SIGKILL') {
      if (gone()) return;
      child.kill(signal);
      await exited;
      log?.end();
    },
    async stop(ms = 30_000) {
      if (gone()) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      const [code] = (await exited) as [number | null];
      clearTimeout(timer);
      log?.end();
      return code;
    },
  };
}
