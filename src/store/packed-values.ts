/**
 * packed-values: how `measurements.vals` holds a measurement's raw samples
 * (schema migration 2): IEEE-754 float64, little-endian, in sample order,
 * 8 bytes each. One blob per measurement instead of one row per sample is
 * what lets a 10,000-series history of 36 M samples import in under a
 * minute on either database.
 */

const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** packValues encodes samples for `measurements.vals`. */
export function packValues(values: readonly number[]): Uint8Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i];
  const bytes = new Uint8Array(out.buffer);
  if (!LITTLE_ENDIAN) swap(bytes);
  return bytes;
}

/**
 * packMany encodes the samples of many measurements into one buffer, each
 * result a view of its part (null for a null list): one allocation for a
 * run's ten thousand measurements instead of one each.
 */
export function packMany(lists: readonly (readonly number[] | null)[]): (Uint8Array | null)[] {
  let total = 0;
  for (const values of lists) if (values !== null) total += values.length;
  const all = new Float64Array(total);
  const bytes = new Uint8Array(all.buffer);
  const out: (Uint8Array | null)[] = new Array(lists.length);
  let at = 0;
  for (let k = 0; k < lists.length; k++) {
    const values = lists[k];
    if (values === null) {
      out[k] = null;
      continue;
    }
    for (let i = 0; i < values.length; i++) all[at + i] = values[i];
    out[k] = bytes.subarray(at * 8, (at + values.length) * 8);
    at += values.length;
  }
  if (!LITTLE_ENDIAN) swap(bytes);
  return out;
}

/** unpackValues decodes a `vals` blob; a length that is not a multiple of 8 means a damaged row. */
export function unpackValues(blob: Uint8Array): number[] {
  if (blob.byteLength % 8 !== 0) throw new Error(`a packed sample blob of ${blob.byteLength} bytes is not a whole number of float64 values`);
  // Copy: the driver's buffer may be unaligned or shared with other rows.
  const bytes = new Uint8Array(blob);
  if (!LITTLE_ENDIAN) swap(bytes);
  const floats = new Float64Array(bytes.buffer, 0, bytes.byteLength / 8);
  const out = new Array<number>(floats.length);
  for (let i = 0; i < floats.length; i++) out[i] = floats[i];
  return out;
}

function swap(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i += 8) bytes.subarray(i, i + 8).reverse();
}
