import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { Zip, ZipPassThrough } from 'fflate';
import { listZip, readZipEntry, ZipError } from '../../src/app/read-zip.ts';
import { makeZip } from './app-harness.ts';

test('reads a zip streamed with data descriptors, as upload-artifact writes it', () => {
  const zip = makeZip({ 'report.json': '{"version":1}', 'dir/report.md': 'x'.repeat(10_000) });
  assert.deepEqual(listZip(zip).map((e) => e.name), ['report.json', 'dir/report.md']);
  assert.equal(new TextDecoder().decode(readZipEntry(zip, 'report.json') as Uint8Array), '{"version":1}');
  assert.equal(readZipEntry(zip, './dir/report.md')?.length, 10_000);
  assert.equal(readZipEntry(zip, 'missing.json'), null);
});

test('reads zips written by an independent implementation (Python zipfile), stored and deflated', () => {
  const script = [
    'import io, sys, zipfile',
    'b = io.BytesIO()',
    'with zipfile.ZipFile(b, "w") as z:',
    '    z.writestr(zipfile.ZipInfo("stored.txt"), "plain text")',
    '    z.writestr("deflated.json", "{\\"a\\": [" + ",".join(["1"] * 5000) + "]}", compress_type=zipfile.ZIP_DEFLATED)',
    'sys.stdout.buffer.write(b.getvalue())',
  ].join('\n');
  const zip = new Uint8Array(execFileSync('python3', ['-c', script]));
  assert.equal(new TextDecoder().decode(readZipEntry(zip, 'stored.txt') as Uint8Array), 'plain text');
  const json = JSON.parse(new TextDecoder().decode(readZipEntry(zip, 'deflated.json') as Uint8Array));
  assert.equal(json.a.length, 5000);
});

test('garbage, truncation and bombs are ZipErrors', () => {
  const zip = makeZip({ 'report.json': 'y'.repeat(100_000) });
  assert.throws(() => listZip(new Uint8Array([1, 2, 3])), ZipError);
  assert.throws(() => listZip(new TextEncoder().encode('not a zip at all, but long enough to search for a directory record')), /not a zip archive/);
  assert.throws(() => readZipEntry(zip.subarray(0, 40), 'report.json'), ZipError);
  assert.throws(() => readZipEntry(zip, 'report.json', 1000), /limit is 1000/);
  const lying = makeZip({ 'report.json': 'z'.repeat(1000) });
  // Claim a smaller inflated size in the central directory than the data holds.
  const view = new DataView(lying.buffer, lying.byteOffset);
  const central = lying.length - 22 - (46 + 'report.json'.length);
  view.setUint32(central + 24, 10, true);
  assert.throws(() => readZipEntry(lying, 'report.json'), ZipError);
});

test('stored entries with data descriptors (fflate\'s streaming writer) read back; a bomb that understates its size stops at the claim', () => {
  const parts: Uint8Array[] = [];
  const writer = new Zip((error, data) => {
    if (error) throw error;
    parts.push(data);
  });
  const stored = new ZipPassThrough('stored.txt');
  writer.add(stored);
  stored.push(new TextEncoder().encode('hello stored'), true);
  writer.end();
  const zip = new Uint8Array(Buffer.concat(parts));
  assert.deepEqual(listZip(zip).map((e) => [e.name, e.method, e.size]), [['stored.txt', 0, 12]]);
  assert.equal(new TextDecoder().decode(readZipEntry(zip, 'stored.txt') as Uint8Array), 'hello stored');

  // 20 MB of one byte deflates to ~20 KB; the directory claims 10 bytes.
  const bomb = makeZip({ 'report.json': 'q'.repeat(20_000_000) });
  new DataView(bomb.buffer, bomb.byteOffset).setUint32(bomb.length - 22 - (46 + 'report.json'.length) + 24, 10, true);
  assert.throws(() => readZipEntry(bomb, 'report.json'), /^ZipError: report\.json: inflates to more than the 10 bytes the directory says$/);
});
