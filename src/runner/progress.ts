/**
 * Progress reports what a run is doing in the way its terminal expects: a
 * live, rewritten line on a TTY; collapsible log groups with every round
 * inside when running in GitHub Actions; in any other log (a pipe, a file,
 * another CI) only the lines worth keeping: a heading per build, look or
 * session and the notes, not a line per round.
 */
export interface Progress {
  group(title: string): void;
  endGroup(): void;
  /** status is a transient line (rounds done): a TTY rewrites it in place, GitHub Actions keeps it in the group, a plain log drops it. */
  status(text: string): void;
  /** note is a line worth keeping in the log. */
  note(text: string): void;
}

/** createProgress picks the style from the environment: GITHUB_ACTIONS, then whether stream is a TTY. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env): Progress {
  const actions = env.GITHUB_ACTIONS === 'true';
  const tty = !actions && stream.isTTY === true;
  let live = false;
  const clearLive = () => {
    if (live) stream.write('\r\x1b[2K');
    live = false;
  };
  return {
    group(title) {
      clearLive();
      stream.write(actions ? `::group::${title}\n` : `== ${title}\n`);
    },
    endGroup() {
      clearLive();
      if (actions) stream.write('::endgroup::\n');
    },
    status(text) {
      if (tty) {
        stream.write(`\r\x1b[2K${text}`);
        live = true;
      } else if (actions) {
        stream.write(`${text}\n`);
      }
    },
    note(text) {
      clearLive();
      stream.write(`${text}\n`);
    },
  };
}

/** silentProgress discards everything (tests, JSON pipelines). */
export const silentProgress: Progress = { group() {}, endGroup() {}, status() {}, note() {} };
