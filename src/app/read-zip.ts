import { Unzip, UnzipInflate, unzipSync } from 'fflate';

/**
 * Reading the zip archives GitHub serves for workflow artifacts, with
 * fflate. The central directory (unzipSync with a filter that inflates
 * nothing) says what the archive holds and how big each file claims to be;
 * the one file asked for is then inflated by fflate's streaming reader, fed
 * a slice at a time and stopped as soon as it outgrows its claim or the
 * limit, so a zip bomb never reaches memory. upload-artifact streams its zips
 * with data descriptors (zero sizes in the local headers), which the
 * streaming reader follows. Names are only compared, never used as paths.
 */

/** MAX_ENTRY_BYTES bounds one inflated entry (a zip bomb stops there). Default 32 MiB. */
export const MAX_ENTRY_BYTES = 32 * 1024 * 1024;

/** MAX_ENTRIES bounds the central directory: what a zip without zip64 can count (65,535). */
export const MAX_ENTRIES = 0xffff;

/** SLICE_BYTES is how much compressed input the inflater gets at once (deflate inflates 1 KiB to at most ~1 MiB). */
const SLICE_BYTES = 4096;

/** ZipEntry is one file of an archive, not yet inflated. */
export interface ZipEntry {
  name: string;
  /** method is the compression method: 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  size: number;
}

/** ZipError is a malformed or unsupported archive; the message says which. */
export class ZipError extends Error {
  override name = 'ZipError';
}

/** listZip returns the entries of the archive's central directory, in order. */
export function listZip(zip: Uint8Array): ZipEntry[] {
  const entries: ZipEntry[] = [];
  try {
    unzipSync(zip, {
      filter(file) {
        if (entries.length >= MAX_ENTRIES) throw new ZipError(`more than ${MAX_ENTRIES} entries; a benchbot artifact has a handful`);
        entries.push({ name: file.name, method: file.compression, compressedSize: file.size, size: file.originalSize });
        return false;
      },
    });
  } catch (error) {
    if (error instanceof ZipError) throw error;
    throw new ZipError(`not a zip archive, or a truncated one (${(error as Error)?.message ?? String(error)})`);
  }
  return entries;
}

/**
 * readZipEntry inflates the entry called `name` (a path inside the archive;
 * a leading `./` is ignored), or returns null when there is none. Stored and
 * deflated entries are supported; the inflated size must match the directory
 * and stay under maxBytes.
 */
export function readZipEntry(zip: Uint8Array, name: string, maxBytes = MAX_ENTRY_BYTES): Uint8Array | null {
  const wanted = name.replace(/^\.\//, '');
  const entry = listZip(zip).find((e) => e.name.replace(/^\.\//, '') === wanted);
  if (entry === undefined) return null;
  if (entry.size > maxBytes) throw new ZipError(`${entry.name} is ${entry.size} bytes inflated; the limit is ${maxBytes}`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`${entry.name}: compression method ${entry.method} is not supported (only stored and deflate)`);

  const chunks: Uint8Array[] = [];
  let total = 0;
  let started = false;
  let finished = false;
  let failure: ZipError | null = null;
  const unzip = new Unzip((file) => {
    if (started || file.name.replace(/^\.\//, '') !== wanted) return;
    started = true;
    file.ondata = (error, data, final) => {
      if (failure !== null) return;
      if (error) {
        failure = new ZipError(`${entry.name}: cannot inflate (${error.message})`);
        return;
      }
      total += data.length;
      // More than the directory claims: a lie, or a bomb; stop inflating now.
      if (total > entry.size) {
        failure = new ZipError(`${entry.name}: inflates to more than the ${entry.size} bytes the directory says`);
        file.terminate();
        return;
      }
      chunks.push(data);
      if (final) finished = true;
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < zip.length && failure === null && !finished; at += SLICE_BYTES) unzip.push(zip.subarray(at, at + SLICE_BYTES), at + SLICE_BYTES >= zip.length);
  } catch (error) {
    failure ??= new ZipError(`${entry.name}: cannot inflate (${(error as Error)?.message ?? String(error)})`);
  }
  if (failure !== null) throw failure;
  if (!started) throw new ZipError(`${entry.name}: the local header is missing`);
  if (!finished) throw new ZipError(`${entry.name}: the data runs past the end of the archive`);
  if (total !== entry.size) throw new ZipError(`${entry.name}: inflated to ${total} bytes, the directory says ${entry.size}`);
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/**
 * readZipTexts inflates each named entry (readZipEntry) and decodes it as
 * UTF-8, null for each the archive lacks. Throws ZipError as readZipEntry.
 */
export function readZipTexts<F extends string>(zip: Uint8Array, names: readonly F[]): Record<F, string | null> {
  const decoder = new TextDecoder();
  const out = {} as Record<F, string | null>;
  for (const name of names) {
    const bytes = readZipEntry(zip, name);
    out[name] = bytes === null ? null : decoder.decode(bytes);
  }
  return out;
}
