import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { FormatError } from '../formats/format-error.ts';
import { readBoundedText } from '../runner/read-bounded-text.ts';

// O_NOFOLLOW makes open itself refuse a link, so a file swapped for a link after the directory was listed is refused too. Windows has neither flag; the listing's lstat check still applies there.
const NO_FOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * readRegularFile reads a file found inside an input directory, as UTF-8,
 * without following a symbolic link and only if it is a regular file (a
 * FIFO or device would block or never end). `display` is the path named in
 * errors. Input directories are written by the code under test, so a link
 * in one may point anywhere the bench user can read (~/.ssh, /etc): its
 * target must never be read, let alone quoted in a report.
 */
export function readRegularFile(path: string, display: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw symbolicLink(display);
    throw new FormatError(display, undefined, `cannot be read (${code ?? (error as Error).message})`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new FormatError(display, undefined, 'is not a regular file; benchbot reads only regular files inside an input directory');
    return readBoundedText(fd, display);
  } finally {
    closeSync(fd);
  }
}

/** symbolicLink is the error for a link found inside an input directory. */
export function symbolicLink(display: string): FormatError {
  return new FormatError(display, undefined, 'is a symbolic link; benchbot does not follow links inside an input directory (they may point outside it): copy the file into the directory instead');
}
