import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { READERS, readSource } from '../../src/formats/detect.ts';
import { FIXTURES, loadFixture } from '../support/fixtures.ts';

// The JavaScript harnesses' outputs are detected by content alone as their own
// format, by no other reader's sniff, and no other fixture is taken for one.
const DETECTED: [string, string][] = [
  ['benchmark-js/suite.txt', 'benchmark-js'],
  ['benchmark-js/repeated.txt', 'benchmark-js'],
  ['tinybench/tasks-samples.json', 'tinybench'],
  ['tinybench/tasks.json', 'tinybench'],
  ['tinybench/table.json', 'tinybench'],
  ['tinybench/v2-tasks.json', 'tinybench'],
  ['tinybench/v2-table.json', 'tinybench'],
  ['vitest-bench/parse.json', 'vitest-bench'],
  ['mitata/samples-noop-trimmed.json', 'mitata'],
  ['mitata/summary.json', 'mitata'],
];
const JS_FORMATS = new Set(DETECTED.map(([, format]) => format));

for (const [fixture, format] of DETECTED) {
  test(`detects ${format} in ${fixture}, and no other reader claims it`, () => {
    const file = loadFixture(fixture);
    const outcome = readSource(file);
    assert.equal(outcome.format, format);
    assert.ok(outcome.measurements.length > 0);
    assert.deepEqual(READERS.filter((r) => r.sniff(file.text.slice(0, 4096))).map((r) => r.format), [format]);
  });
}

test('every JavaScript fixture is in the detection list', () => {
  const listed = new Set(DETECTED.map(([fixture]) => fixture));
  for (const dir of JS_FORMATS) {
    for (const name of readdirSync(join(FIXTURES, dir))) {
      if (!name.endsWith('.expected.json')) assert.ok(listed.has(`${dir}/${name}`), `${dir}/${name} is not in DETECTED`);
    }
  }
});

test('no other fixture is sniffed as a JavaScript harness output', () => {
  const walk = (dir: string): string[] =>
    readdirSync(join(FIXTURES, dir), { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name === 'capture' ? [] : walk(join(dir, e.name))) : [join(dir, e.name)],
    );
  const js = READERS.filter((r) => JS_FORMATS.has(r.format));
  assert.equal(js.length, JS_FORMATS.size);
  for (const path of walk('.')) {
    if ([...JS_FORMATS].some((f) => path.startsWith(`${f}/`)) || path.endsWith('.expected.json') || path.endsWith('.md')) continue;
    const head = loadFixture(path).text.slice(0, 4096);
    for (const reader of js) assert.equal(reader.sniff(head), false, `${reader.format} claims ${path}`);
  }
});
