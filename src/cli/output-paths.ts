import { accessSync, constants, existsSync, mkdirSync, openSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from './usage-error.ts';

/**
 * output-paths: where a command writes what it made (a site, an export),
 * checked before any work, so a path that cannot be written is an input
 * error naming the flag and what to change (exit 2), never an ENOTDIR or
 * ENOENT stack trace after minutes of building.
 */

/** FS_REASONS says what an errno means for a path the user typed. */
const FS_REASONS: Record<string, string> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  EISDIR: 'it is a directory, not a file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
};

function problem(flag: string, path: string, error: unknown, fix: string): InputError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return new InputError(`${flag} ${path}: cannot write there: ${FS_REASONS[code] ?? (error as Error).message}; ${fix}`);
}

/**
 * checkOutputDirectory refuses, before a long job starts, a DIR that could
 * not be created or written when it ends: a file, or below a file or an
 * unwritable directory. It creates nothing; outputDirectory does, later.
 */
export function checkOutputDirectory(flag: string, dir: string): void {
  try {
    let existing = resolve(dir);
    while (!existsSync(existing)) existing = dirname(existing);
    const stat = statSync(existing);
    if (!stat.isDirectory()) throw Object.assign(new Error('is a file'), { code: existing === resolve(dir) ? 'EEXIST' : 'ENOTDIR' });
    accessSync(existing, constants.W_OK);
  } catch (error) {
    throw problem(flag, dir, error, 'name a directory (it is created if missing)');
  }
}

/** outputDirectory creates DIR (and its parents) for a command's output, or throws an InputError naming the flag. */
export function outputDirectory(flag: string, dir: string): void {
  try {
    if (statSync(dir, { throwIfNoEntry: false })?.isFile()) throw Object.assign(new Error('is a file'), { code: 'EEXIST' });
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw problem(flag, dir, error, 'name a directory (it is created if missing)');
  }
}

/**
 * checkOutputFile refuses, before a long run starts, a FILE that could not be
 * written when it ends: a directory, or a path whose directory is missing or
 * not writable. It creates nothing; writeOutputFile writes it afterwards.
 */
export function checkOutputFile(flag: string, file: string): void {
  try {
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    accessSync(dirname(file), constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw problem(flag, file, error, code === 'ENOENT' ? `create ${dirname(file)} first, or name a file in an existing directory` : 'name a file you may write');
  }
}

/** writeOutputFile writes text to FILE, or throws an InputError naming the flag. */
export function writeOutputFile(flag: string, file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    throw problem(flag, file, error, 'name a file you may write');
  }
}

/** openOutputFile opens FILE for writing (truncating it) and returns its descriptor, or throws an InputError naming the flag. */
export function openOutputFile(flag: string, file: string): number {
  try {
    return openSync(file, 'w');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw problem(flag, file, error, code === 'ENOENT' ? `create ${dirname(file)} first, or name a file in an existing directory` : 'name a file you may write');
  }
}
