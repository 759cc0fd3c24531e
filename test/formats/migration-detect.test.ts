import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { READERS, readSource } from '../../src/formats/detect.ts';
import { loadFixture } from '../support/fixtures.ts';

// Every fixture of the formats users migrate from is detected by content
// alone as its own format, and by no other reader's sniff.
const DETECTED: [string, string][] = [
  ['github-action-benchmark/public-gab-custom-bigger.json', 'custom'],
  ['github-action-benchmark/public-gab-custom-smaller.json', 'custom'],
  ['github-action-benchmark/public-gab-custom-smaller-ns.json', 'custom'],
  ['bencher/public-bencher-latency.json', 'bmf'],
  ['bencher/public-bencher-dhat.json', 'bmf'],
  ['bencher/public-bencher-v1-latency.json', 'bmf'],
  ['bencher/public-bencher-mixed-versions.json', 'bmf'],
  ['julia/public-gab-julia-estimates.json', 'julia'],
  ['julia/suite-handwritten.json', 'julia'],
  ['julia/params-and-trial-handwritten.json', 'julia'],
  ['iai-callgrind/first.txt', 'iai-callgrind'],
  ['iai-callgrind/regressed.txt', 'iai-callgrind'],
  ['iai-callgrind/dhat.txt', 'iai-callgrind'],
  ['luau/public-gab-benchmarkluau.txt', 'benchmarkluau'],
];

for (const [fixture, format] of DETECTED) {
  test(`detects ${format} in ${fixture}, and no other reader claims it`, () => {
    const file = loadFixture(fixture);
    const outcome = readSource(file);
    assert.equal(outcome.format, format);
    assert.ok(outcome.measurements.length > 0);
    const head = file.text.slice(0, 4096);
    assert.deepEqual(READERS.filter((r) => r.sniff(head)).map((r) => r.format), [format]);
  });
}

test('the stated directions of github-action-benchmark custom JSON are formats of their own', () => {
  const file = loadFixture('github-action-benchmark/public-gab-custom-smaller.json');
  assert.deepEqual(readSource(file, 'custom-bigger-is-better').measurements.map((m) => m.better), ['higher', 'higher']);
  assert.deepEqual(readSource(file, 'custom-smaller-is-better').measurements.map((m) => m.better), ['lower', 'lower']);
});

test('benchbot parse --format custom-bigger-is-better reads a custom file with no warning', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const run = spawnSync(process.execPath, [join(root, 'bin/benchbot.js'), 'parse', 'fixtures/github-action-benchmark/public-gab-custom-bigger.json', '--format', 'custom-bigger-is-better'], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as { format: string; measurements: { better: string }[]; warnings: unknown[] };
  assert.equal(out.format, 'custom-bigger-is-better');
  assert.deepEqual(out.measurements.map((m) => m.better), ['higher', 'higher']);
  assert.deepEqual(out.warnings, []);
});
