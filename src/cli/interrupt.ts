import { createProgress, type Progress } from '../runner/progress.ts';

/** SIGNAL_EXIT is the exit status of a command stopped by a signal: 128 + the signal's number, as shells report it. */
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/** Interruptible is a command's progress, remembered for the interrupt message, and how to stop listening. */
export interface Interruptible {
  progress: Progress;
  dispose(): void;
  /**
   * rethrow reports an error that an interrupt caused as the interrupt (and
   * exits); any other error it throws on. A build run synchronously dies of
   * the terminal's SIGINT before benchbot's handler can run.
   */
  rethrow(error: unknown): never;
}

/**
 * interruptible makes Ctrl-C (SIGINT) and SIGTERM during a measuring command
 * end it plainly: one line says what it was doing and what it had measured
 * (the last progress heading and status), that this is discarded and the
 * store untouched (runs are stored in one transaction at the end, so there
 * is nothing partial to undo), then the process exits with 130 or 143. The
 * exit runs the 'exit' hooks: the machine lock is released and the
 * benchmark's process group, which a terminal's Ctrl-C does not reach, is
 * killed. `after` is what the message adds about what stays behind.
 */
export function interruptible(command: string, progress: Progress, after: string, err = (text: string) => process.stderr.write(`${text}\n`)): Interruptible {
  let heading: string | undefined;
  let status: string | undefined;
  const remembering: Progress = {
    group(title) {
      heading = title;
      status = undefined;
      progress.group(title);
    },
    endGroup: () => progress.endGroup(),
    status(text) {
      status = text;
      progress.status(text);
    },
    note: (text) => progress.note(text),
  };
  const stop = (signal: keyof typeof SIGNAL_EXIT): never => {
    const doing = heading === undefined ? 'before measuring anything' : `during ${heading}${status ? ` (${status})` : ''}`;
    err(`\nbenchbot ${command}: interrupted (${signal}) ${doing}. What it measured is discarded: nothing of it is stored, the store is as it was. The machine lock is released; ${after}`);
    process.exit(SIGNAL_EXIT[signal]);
  };
  const onInt = () => stop('SIGINT');
  const onTerm = () => stop('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    progress: remembering,
    dispose() {
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
    },
    rethrow(error) {
      const signal = (error as { interruptedBy?: unknown } | undefined)?.interruptedBy;
      if (signal === 'SIGINT' || signal === 'SIGTERM') stop(signal);
      throw error;
    },
  };
}

/**
 * measureInterruptibly runs a measuring job under interruptible(): its
 * progress goes to the terminal and is remembered, an interrupt (or an error
 * an interrupt caused) is reported and exits, and the handlers go when it ends.
 */
export async function measureInterruptibly<T>(command: string, after: string, job: (progress: Progress) => Promise<T>): Promise<T> {
  const interrupt: Interruptible = interruptible(command, createProgress(), after);
  try {
    return await job(interrupt.progress);
  } catch (error) {
    interrupt.rethrow(error);
  } finally {
    interrupt.dispose();
  }
}
