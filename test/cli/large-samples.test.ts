import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../support/random.ts';

// pytest-benchmark keeps every round, and fast functions get hundreds of
// thousands: 200,000 values per side once crashed `benchbot compare` twice
// over, allocating all n1 n2 pairwise differences for Hodges-Lehmann
// (RangeError: Array buffer allocation failed) and spreading the values into
// Math.min / push (Maximum call stack size exceeded, past about 120,000).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const ROUNDS = 200_000;

function benchbot(args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 240_000, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr };
}

/** writeSide writes a benchbot JSON of ROUNDS values per metric around `center` µs (docs/benchbot-json.md). */
function writeSide(path: string, seed: number, center: number, metrics: string[]): void {
  const random = seededRandom(seed);
  const benchmarks = metrics.map((metric) => ({
    benchmark: 'parse/large',
    metric,
    unit: 'us',
    values: Array.from({ length: ROUNDS }, () => Math.round((center + random() * random() * 5) * 1e4) / 1e4),
  }));
  writeFileSync(path, JSON.stringify({ version: 1, benchmarks }));
}

test(`compare with ${ROUNDS} values per side (and a pooled side of twice that) exits 0 with a report`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-large-'));
  writeSide(join(dir, 'base.json'), 1, 100, ['time']);
  writeSide(join(dir, 'base2.json'), 2, 100, ['time']);
  writeSide(join(dir, 'head.json'), 3, 100.5, ['time']);
  const run = benchbot(['compare', `${join(dir, 'base.json')},${join(dir, 'base2.json')}`, join(dir, 'head.json'), '--output', 'json']);
  assert.equal(run.signal, null, 'killed by the timeout');
  assert.equal(run.status, 0, run.stderr);
  const [row] = JSON.parse(run.stdout).comparisons;
  assert.equal(row.benchmark, 'parse/large');
  assert.deepEqual([row.base.n, row.head.n], [2 * ROUNDS, ROUNDS]);
  assert.equal(row.verdict, 'unchanged');
  assert.ok(row.ratio > 1.002 && row.ratio < 1.008, `ratio ${row.ratio}`);
});

test(`compare --output compare.py with ${ROUNDS} real and CPU times per side exits 0 with the table`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-large-py-'));
  writeSide(join(dir, 'base.json'), 4, 100, ['real_time', 'cpu_time']);
  writeSide(join(dir, 'head.json'), 5, 100, ['real_time', 'cpu_time']);
  const run = benchbot(['compare', join(dir, 'base.json'), join(dir, 'head.json'), '--output', 'compare.py']);
  assert.equal(run.signal, null, 'killed by the timeout');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^Comparing /);
  assert.match(run.stdout, new RegExp(`parse/large_pvalue +[0-9.]+ +[0-9.]+ +U Test, Repetitions: ${ROUNDS} vs ${ROUNDS}`));
  assert.match(run.stdout, /OVERALL_GEOMEAN/);
});

test('compare of 160,000 benchmarks exits 0 with the text table (no spread of rows or warnings)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-many-'));
  const side = (path: string, shift: number) => {
    const benchmarks = Array.from({ length: 160_000 }, (_, i) => ({ benchmark: `b/${i}`, unit: 'ns', values: [10 + shift, 11, 12 + (i % 3)] }));
    writeFileSync(path, JSON.stringify({ version: 1, benchmarks }));
  };
  side(join(dir, 'base.json'), 0);
  side(join(dir, 'head.json'), 0.1);
  const run = benchbot(['compare', join(dir, 'base.json'), join(dir, 'head.json')]);
  assert.equal(run.signal, null, 'killed by the timeout');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /\nb\/159999 +time /);
  assert.match(run.stdout, /\nwarnings:\n/);
});
