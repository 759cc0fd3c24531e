import { inflateRawSync } from 'node:zlib';

/**
 * A small reader for the zip archives GitHub serves for workflow artifacts,
 * over `node:zlib` (no unzip binary, no dependency). It reads the central
 * directory, not the local headers, because upload-artifact streams its zips
 * with data descriptors: the local headers carry zero sizes.
 */

/** MAX_ENTRY_BYTES bounds one inflated entry (a zip bomb stops there). Default 32 MiB. */
export const MAX_ENTRY_BYTES = 32 * 1024 * 1024;

/** ZipEntry is one file of an archive, not yet inflated. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** ZipError is a malformed or unsupported archive; the message says which. */
export class ZipError extends Error {
  override name = 'ZipError';
}

/** listZip returns the entries of the archive's central directory, in order. */
export function listZip(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  const count = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  let offset = view.getUint32(eocd + 16, true);
  if (offset === 0xffffffff || count === 0xffff) throw new ZipError('zip64 archives are not supported (a benchbot report is small)');
  if (offset + size > eocd) throw new ZipError('the central directory lies outside the archive');
  const entries: ZipEntry[] = [];
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for (let i = 0; i < count; i++) {
    if (offset + 46 > zip.length || view.getUint32(offset, true) !== 0x02014b50) throw new ZipError(`central directory entry ${i} is malformed`);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const entry: ZipEntry = {
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      size: view.getUint32(offset + 24, true),
      localHeaderOffset: view.getUint32(offset + 42, true),
      name: decoder.decode(zip.subarray(offset + 46, offset + 46 + nameLength)),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localHeaderOffset === 0xffffffff) throw new ZipError(`${entry.name}: zip64 entries are not supported`);
    entries.push(entry);
    offset += 46 + nameLength + extraLength + commentLength;
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
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > zip.length || view.getUint32(at, true) !== 0x04034b50) throw new ZipError(`${entry.name}: the local header is missing`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > zip.length) throw new ZipError(`${entry.name}: the data runs past the end of the archive`);
  const data = zip.subarray(start, end);
  let out: Uint8Array;
  if (entry.method === 0) out = data;
  else if (entry.method === 8) {
    try {
      out = inflateRawSync(data, { maxOutputLength: Math.max(entry.size, 1) });
    } catch (error) {
      throw new ZipError(`${entry.name}: cannot inflate (${(error as Error).message})`);
    }
  } else throw new ZipError(`${entry.name}: compression method ${entry.method} is not supported (only stored and deflate)`);
  if (out.length !== entry.size) throw new ZipError(`${entry.name}: inflated to ${out.length} bytes, the directory says ${entry.size}`);
  return out;
}

function findEndOfCentralDirectory(view: DataView): number {
  const min = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let i = view.byteLength - 22; i >= min; i--) {
    if (view.getUint32(i, true) === 0x06054b50) return i;
  }
  throw new ZipError('not a zip archive (no end of central directory record)');
}
