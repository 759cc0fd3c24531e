import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readSource } from '../../src/formats/detect.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { metricProblem, unitProblem } from '../../src/formats/check-measurement-text.ts';
import { readInput } from '../../src/jobs/read-sides.ts';
import { FIXTURES, expectedFor, loadFixture } from '../support/fixtures.ts';
import { ATTACK } from '../report/markdown-tree.ts';

/** Every fixture a capture script read (it has a `.expected.json`), by its path under fixtures/. */
function capturedFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.expected.json')) {
        const base = full.slice(0, -'.expected.json'.length);
        const source = readdirSync(dir).map((n) => join(dir, n)).find((p) => p !== full && (p === base || p.startsWith(`${base}.`)) && !p.endsWith('.expected.json'));
        const expected = expectedFor(relative(FIXTURES, base));
        if (source && Array.isArray(expected.measurements)) out.push(relative(FIXTURES, source));
      }
    }
  };
  walk(FIXTURES);
  return out.sort();
}

test('every captured fixture of every harness still reads, with the units and metrics its capture script found', () => {
  const fixtures = capturedFixtures();
  assert.ok(fixtures.length >= 20, `${fixtures.length} fixtures`);
  for (const name of fixtures) {
    const path = join(FIXTURES, name);
    const outcome = readInput(path);
    const expected = expectedFor(name);
    assert.deepEqual(outcome.measurements.map((m) => [m.metric, m.unit]).sort(), expected.measurements.map((m) => [m.metric, m.unit]).sort(), name);
  }
  // The criterion directory reader does not go through readSource: it is checked on its own path.
  if (existsSync(join(FIXTURES, 'criterion/target'))) assert.ok(readInput(join(FIXTURES, 'criterion/target')).measurements.length > 0);
});

test('the unit from issue 10 is refused when the output is read, naming file, benchmark and what to fix (benchbot JSON)', () => {
  const text = JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'BM_Parse', unit: ATTACK, values: [1, 2, 3] }] });
  assert.throws(() => readSource({ path: 'out/bench.json', text }), (e: unknown) => {
    assert.ok(e instanceof FormatError);
    assert.match(e.message, /^out\/bench\.json: benchmark "BM_Parse", metric "[^"]+": unit "ns\\n\\n<\/details>/);
    assert.match(e.message, /may only use letters, digits, spaces and \/ % _ \. - \( \) \* µ/);
    assert.match(e.message, /fix the unit the harness reports/);
    assert.ok(!e.message.includes('\n'), 'the message is one line (no log injection)');
    return true;
  });
});

test('a hostile Google Benchmark user counter name is refused as a metric', () => {
  const file = loadFixture('google-benchmark/repetitions.json');
  // Google Benchmark writes NaN, so the counter goes in as text, beside the first real_time.
  const text = file.text.replace('"real_time":', '"x <img src=x> @octocat": 3,\n      "real_time":');
  assert.notEqual(text, file.text);
  assert.throws(() => readSource({ path: file.path, text }), (e: unknown) => e instanceof FormatError && /metric "x <img src=x> @octocat" may only use letters, digits, spaces and \/ % _ \. - \( \) \* : \+ µ.*rename the counter/.test(e.message));
});

test('a hostile Go ReportMetric unit is refused', () => {
  const text = 'goos: linux\ngoarch: amd64\nBenchmarkParse-8   \t 1000\t 1234 ns/op\t 5 <b>@team/op\nPASS\n';
  assert.throws(() => readSource({ path: 'go.txt', text }, 'go'), (e: unknown) => e instanceof FormatError && /^go\.txt: .*"<b>@team\/op"/.test(e.message));
});

test('names are not refused: a template name with < and > reads as written', () => {
  const text = JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'BM_Sort<int>/8', unit: 'ns', values: [1, 2, 3] }] });
  assert.equal(readSource({ path: 'b.json', text }).measurements[0].benchmark, 'BM_Sort<int>/8');
});

test('units and metrics: what real harnesses print is accepted, markup and line breaks are not', () => {
  for (const unit of ['ns', 'us', 'µs', 'μs', 'ms', 's', 'ns/op', 'B/op', 'allocs/op', 'MB/s', 'MB/sec', 'bytes/s', 'ops/s', 'elem/s', 'ns/iter', 'count', 'counts', '%', 'items/s', 'msg/s', 'cycles (k)', 'ops*s']) {
    assert.equal(unitProblem(unit), undefined, unit);
  }
  for (const metric of ['real_time', 'cpu_time', 'CallsToAlloc', 'gc.alloc.rate.norm', 'p0.9999', 'MB/s', 'L1-dcache-load-misses:u', 'bytes_per_second', 'time']) {
    assert.equal(metricProblem(metric), undefined, metric);
  }
  for (const bad of ['', ' ns', 'ns ', 'ns\n', 'n\u0000s', '<b>', 'ns<!--', '@octocat', '#12', '[x](y)', 'a|b', 'x`y', '\\', '&amp;', 'ns\u202e', 'x'.repeat(33)]) {
    assert.notEqual(unitProblem(bad), undefined, JSON.stringify(bad));
  }
  for (const bad of ['', 'a\nb', '<img src=x>', '@org/team', 'x'.repeat(65), '!', '~~x~~']) assert.notEqual(metricProblem(bad), undefined, JSON.stringify(bad));
});
