import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { MAX_INPUT_BYTES, tooLarge } from '../formats/input-limits.ts';

const CHUNK_BYTES = 1024 * 1024;

/**
 * readBoundedText reads an open file as UTF-8, refusing it with FormatError
 * (naming `display` and the limit) when it holds more than `limit` bytes. A
 * regular file is measured by fstat before a byte is read; whatever it does
 * meanwhile (grows) and whatever is not a regular file (a pipe given as
 * `<(cmd)`) is read at most `limit` + 1 bytes far. readFileSync instead reads
 * to the end, and a file near V8's string limit (0x1fffffe8 characters) then
 * crashes the process with `Cannot create a string longer than ...`.
 */
export function readBoundedText(fd: number, display: string, limit = MAX_INPUT_BYTES): string {
  return readBoundedBytes(fd, display, limit).toString('utf8');
}

/** readBoundedBytes is readBoundedText without the decoding: the bytes, for formats framed by byte counts. */
export function readBoundedBytes(fd: number, display: string, limit = MAX_INPUT_BYTES): Buffer {
  const stat = fstatSync(fd);
  if (stat.isFile() && stat.size > limit) throw tooLarge(display, stat.size, limit);
  const chunks: Buffer[] = [];
  let total = 0;
  // One read of the expected size (plus one byte to see growth) for a regular file.
  let want = stat.isFile() ? stat.size + 1 : CHUNK_BYTES;
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.min(want, limit + 1 - total));
    const read = readSync(fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    chunks.push(read === buffer.length ? buffer : buffer.subarray(0, read));
    total += read;
    if (total > limit) throw tooLarge(display, undefined, limit);
    want = CHUNK_BYTES;
  }
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

/** readBoundedFile opens a path (links followed) and reads it with readBoundedText. */
export function readBoundedFile(path: string, display = path, limit = MAX_INPUT_BYTES): string {
  return readBoundedFileBytes(path, display, limit).toString('utf8');
}

/** readBoundedFileBytes opens a path (links followed) and reads it with readBoundedBytes. */
export function readBoundedFileBytes(path: string, display = path, limit = MAX_INPUT_BYTES): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readBoundedBytes(fd, display, limit);
  } finally {
    closeSync(fd);
  }
}
