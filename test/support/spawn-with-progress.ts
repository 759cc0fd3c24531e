import { spawn, type SpawnOptions } from 'node:child_process';

/** SpawnResult is what spawnWithProgress collects: the exit status (null when killed) and both streams whole. */
export interface SpawnResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * spawnWithProgress runs a long command (a demo, a real cargo bench) like
 * spawnSync, and echoes its stderr lines to the test's stderr as they come,
 * prefixed with label: node --test passes a test file's stderr through at
 * once, so a test of a minute shows where it is instead of a silent wait.
 * timeoutMs kills the command (SIGKILL) and resolves with status null.
 */
export function spawnWithProgress(command: string, args: string[], options: SpawnOptions & { label: string; timeoutMs?: number }): Promise<SpawnResult> {
  const { label, timeoutMs = 600_000, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) process.stderr.write(`  [${label}] ${line}\n`);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => { clearTimeout(timer); reject(error); });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (partial !== '') process.stderr.write(`  [${label}] ${partial}\n`);
      resolve({ status: code, stdout, stderr });
    });
  });
}
