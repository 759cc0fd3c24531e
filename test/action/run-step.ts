import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputEnvName } from '../../src/action/action-inputs.ts';
import { runAction } from '../../src/action/run-action.ts';
import { silentProgress } from '../../src/runner/progress.ts';

/** StepRun is what one benchmark step of the action did: exit code, log lines, step outputs. */
export interface StepRun {
  code: number;
  lines: string[];
  outputs: Record<string, string>;
}

/**
 * runStep runs the action's program in process as one workflow step would:
 * `inputs` become BENCHBOT_INPUT_* variables beside `env`, and the step
 * outputs are read back from a fresh $GITHUB_OUTPUT file, which the runner
 * creates before the step and @actions/core finds in process.env. `lines`
 * are the step's log: its plain lines and what @actions/core printed
 * (annotations), in order.
 */
export async function runStep(inputs: Record<string, string>, env: Record<string, string>, now = '2026-10-25T03:00:00.000Z'): Promise<StepRun> {
  const outputFile = join(mkdtempSync(join(tmpdir(), 'benchbot-step-')), 'output');
  writeFileSync(outputFile, '');
  const full: Record<string, string> = { ...env, GITHUB_OUTPUT: outputFile };
  for (const [name, value] of Object.entries(inputs)) full[inputEnvName(name)] = value;
  const lines: string[] = [];
  const saved = process.env.GITHUB_OUTPUT;
  process.env.GITHUB_OUTPUT = outputFile;
  try {
    const code = await captureStdout(lines, () => runAction({ env: full, log: (l) => lines.push(l), now: () => now, progress: silentProgress }));
    return { code, lines, outputs: readOutputs(readFileSync(outputFile, 'utf8')) };
  } finally {
    if (saved === undefined) delete process.env.GITHUB_OUTPUT;
    else process.env.GITHUB_OUTPUT = saved;
  }
}

/**
 * captureStdout runs fn and adds every line it writes to standard output
 * (where @actions/core prints workflow commands) to `lines`; the writes
 * still go through, since the test runner may report on the same stream.
 */
export async function captureStdout<T>(lines: string[], fn: () => Promise<T>): Promise<T> {
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split(/\r?\n/).filter((l) => l !== ''));
    return (write as (...args: unknown[]) => boolean).call(process.stdout, chunk, ...rest);
  }) as typeof process.stdout.write;
  try {
    return await fn();
  } finally {
    process.stdout.write = write;
  }
}

/** readOutputs parses GITHUB_OUTPUT's `name<<DELIMITER` blocks. */
export function readOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^([\w-]+)<<(.+)$/.exec(lines[i]);
    if (!open) continue;
    const value: string[] = [];
    while (++i < lines.length && lines[i] !== open[2]) value.push(lines[i]);
    outputs[open[1]] = value.join('\n');
  }
  return outputs;
}

/** writeEvent writes a pull_request event payload and returns its path (GITHUB_EVENT_PATH). */
export function writeEvent(dir: string, pr: { number: number; baseSha: string; headSha: string }): string {
  const path = join(dir, 'event.json');
  writeFileSync(path, JSON.stringify({ action: 'synchronize', number: pr.number, pull_request: { number: pr.number, base: { sha: pr.baseSha, ref: 'main' }, head: { sha: pr.headSha, ref: 'topic' } } }));
  return path;
}
