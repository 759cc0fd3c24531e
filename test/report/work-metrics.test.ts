import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertGolden } from '../support/golden.ts';
import { parseCompareArgs } from '../../src/cli/compare-command.ts';
import { parseRunArgs } from '../../src/cli/run-command.ts';
import { DEFAULT_WORK_THRESHOLD, defaultWorkThreshold } from '../../src/compare/compare-runs.ts';

/**
 * Counted work beside time, through `benchbot compare` as a user runs it,
 * on real counts: fixtures/work-metrics/ is the tiny C program of
 * fixtures/capture/work-metrics/bench.c timed natively (5 rounds per side)
 * and counted under valgrind's callgrind (3 repeats per side), captured by
 * fixtures/capture/work-metrics.sh. Each shape is one of its benchmarks:
 * `sum` (nothing changed), `hash` (+1% of work), `walk` (the same
 * instructions over a scattered memory walk), `jitter` (work that varies
 * from run to run). Each test checks the shape first, so a recapture that
 * no longer shows it fails here with the reason, not in a golden diff.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const F = 'fixtures/work-metrics';
const golden = (name: string) => fileURLToPath(new URL(`golden/${name}`, import.meta.url));
const BOTH = [`${F}/time-base.json,${F}/work-base.json`, `${F}/time-head.json,${F}/work-head.json`];
const WORK_ONLY = [`${F}/work-base.json`, `${F}/work-head.json`];

function compare(sides: string[], ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, 'compare', ...sides, ...args], { cwd: ROOT, encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`);
  return { status: run.status, stdout: run.stdout };
}

interface JsonComparison { benchmark: string; metric: string; verdict: string; family?: string; decision?: string; reason?: string; disagreement?: string; spread?: { base: number; head: number }; p: number | null }
function comparisons(sides: string[], filter: string): JsonComparison[] {
  return JSON.parse(compare(sides, '--filter', filter, '--output', 'json').stdout).comparisons;
}
const find = (list: JsonComparison[], metric: string) => {
  const c = list.find((x) => x.metric === metric);
  assert.ok(c, `no ${metric} in ${list.map((x) => x.metric).join(', ')}`);
  return c;
};
// The benchmark's time: the primary-family comparison (cpu_time where it is far quieter than real_time).
const timeOf = (list: JsonComparison[]) => {
  const c = list.find((x) => x.family === 'primary');
  assert.ok(c, 'no primary time');
  return c;
};

function goldens(name: string, sides: string[], filter: string) {
  assertGolden(golden(`work-${name}.md`), compare(sides, '--filter', filter, '--output', 'markdown').stdout);
  assertGolden(golden(`work-${name}.txt`), compare(sides, '--filter', filter).stdout);
}

test('both unchanged (sum): counted work equal on every repeat, its time unchanged; nothing to do', () => {
  const list = comparisons(BOTH, '^sum$');
  const work = find(list, 'instructions');
  assert.equal(work.verdict, 'unchanged');
  assert.equal(work.decision, 'counted');
  assert.deepEqual(work.spread, { base: 0, head: 0 });
  assert.equal(timeOf(list).verdict, 'unchanged');
  assert.equal(work.disagreement, undefined);
  const { status, stdout } = compare(BOTH, '--filter', '^sum$');
  assert.equal(status, 0);
  assert.match(stdout, /^No change beyond ±2% \(counted work ±0\.5%\): nothing to do\.\n1 benchmark: 1 unchanged\n/);
  assert.match(stdout, /sum\s+instructions\s+36\.9k n=3, equal\s+36\.9k n=3, equal/);
  goldens('both-unchanged', BOTH, '^sum$');
});

test('instructions regressed, time undecided (hash): the +1% of work is the verdict, and the report says the time did not show it', () => {
  const list = comparisons(BOTH, '^hash$');
  const work = find(list, 'instructions');
  assert.equal(work.verdict, 'regressed');
  assert.equal(work.p, null, 'counted work is not tested');
  assert.equal(timeOf(list).verdict, 'inconclusive');
  assert.equal(work.disagreement, 'work-without-time');
  const { status, stdout } = compare(BOTH, '--filter', '^hash$', '--output', 'markdown');
  assert.equal(status, 1, 'a regression of counted work fails the check');
  assert.match(stdout, /### benchbot: 1 regression: <code>hash<\/code> <code>instructions<\/code> \+1\.00%\. Look at it before merging\.\n\n1 benchmark: 1 regression\./);
  assert.match(stdout, /\*\*the work grew and the time did not show it \(<code>cpu_time<\/code> undecided, no change beyond [^)]*; <code>instructions<\/code> \+1\.00%\)\*\*/);
  goldens('work-without-time', BOTH, '^hash$');
});

test('time regressed, instructions unchanged (walk): the slower time fails the check and is said to be no more work (a memory effect)', () => {
  const list = comparisons(BOTH, '^walk$');
  const work = find(list, 'instructions');
  assert.equal(work.verdict, 'unchanged');
  assert.equal(timeOf(list).verdict, 'regressed');
  assert.equal(work.disagreement, 'time-without-work');
  assert.equal(find(list, 'estimated_cycles').verdict, 'regressed', 'the simulated cache misses show it');
  const { status, stdout } = compare(BOTH, '--filter', '^walk$', '--output', 'markdown');
  assert.equal(status, 1);
  assert.match(stdout, /### benchbot: 1 regression: <code>walk<\/code> <code>(real|cpu)_time<\/code> \d+(\.\d)?x slower without more work\./);
  assert.match(stdout, /changed without its code doing more work: a memory effect, <code>estimated_cycles<\/code> \+\d+\.\d% from cache misses/);
  goldens('time-without-work', BOTH, '^walk$');
});

test('instructions only: counted work decides every row, estimated cycles beside it; a row whose repeats disagree is undecided with its reason', () => {
  const json = JSON.parse(compare(WORK_ONLY, '--output', 'json').stdout);
  const verdicts = Object.fromEntries(json.comparisons.filter((c: JsonComparison) => c.metric === 'instructions').map((c: JsonComparison) => [c.benchmark, c.verdict]));
  assert.deepEqual(verdicts, { sum: 'unchanged', hash: 'regressed', walk: 'unchanged', jitter: 'inconclusive' });
  assert.equal(json.work_threshold, 0.005);
  assert.deepEqual(json.families, { primary: 0, secondary: 0 });
  const { stdout } = compare(WORK_ONLY, '--output', 'markdown');
  // walk's instructions are equal, but its simulated cache misses are counted work too: a regression.
  assert.match(stdout, /### benchbot: 2 regressions: <code>walk<\/code> <code>estimated_cycles<\/code> \+\d+\.\d%, <code>hash<\/code> <code>instructions<\/code> \+1\.00%\./);
  assert.match(stdout, /4 benchmarks: 2 regressions, 1 unchanged, 1 undecided/);
  assert.doesNotMatch(stdout, /False discovery rate/, 'no test ran');
  assert.doesNotMatch(stdout, /Other metrics[^\n]*\n[^\n]*\n\| <code>hash<\/code> \| <code>estimated_cycles<\/code>/, 'one row per benchmark, estimated cycles beside');
  assertGolden(golden('work-only.md'), stdout);
  assertGolden(golden('work-only.txt'), compare(WORK_ONLY).stdout);
  assertGolden(golden('work-only.json'), compare(WORK_ONLY, '--output', 'json').stdout);
  const undecided = compare(WORK_ONLY, '--filter', '^jitter$').stdout;
  assert.match(undecided, /^1 undecided, no regression found: 1 with counted work whose repeats disagree \(the table says how\)\. Make the work's iteration schedule fixed or raise the threshold\./);
});

test('repeats disagree (jitter): the counted work is undecided with a one-line reason, the time beside it decides the row', () => {
  const list = comparisons(BOTH, '^jitter$');
  const work = find(list, 'instructions');
  assert.equal(work.verdict, 'inconclusive');
  assert.equal(work.decision, 'undecided');
  assert.match(work.reason ?? '', /^repeats disagree: /);
  assert.ok((work.spread?.head ?? 0) > 0 || (work.spread?.base ?? 0) > 0, 'the repeats differ');
  assert.doesNotMatch(work.reason ?? '', /\n/);
  const time = timeOf(list);
  const { stdout } = compare(BOTH, '--filter', '^jitter$', '--output', 'markdown');
  if (time.verdict === 'unchanged') {
    assert.match(stdout, /\| unchanged by <code>cpu_time<\/code>; <code>instructions<\/code> ⚪ undecided: repeats disagree: /);
    assert.match(stdout, /### benchbot: No change beyond ±2%: nothing to do \(counted work undecided in 1 benchmark: its repeats disagree\)\./, 'the headline claims no work threshold it did not show');
  }
  else assert.match(stdout, /⚪ undecided: repeats disagree: /);
  goldens('repeats-disagree', BOTH, '^jitter$');
});

test('all shapes in one report: one row per benchmark, the headline counts rows, and JSON has every comparison', () => {
  const { status, stdout } = compare(BOTH, '--output', 'markdown');
  assert.equal(status, 1);
  assert.match(stdout, /### benchbot: 2 regressions: <code>walk<\/code> <code>(real|cpu)_time<\/code> [\d.]+x slower without more work, <code>hash<\/code> <code>instructions<\/code> \+1\.00%\./);
  assert.match(stdout, /\n4 benchmarks: 2 regressions, 2 unchanged\.\n/);
  for (const name of ['sum', 'hash', 'walk', 'jitter']) assert.equal(stdout.split(`| <code>${name}</code> |`).length - 1, 1, `${name} has one row`);
  const json = JSON.parse(compare(BOTH, '--output', 'json').stdout);
  assert.equal(json.comparisons.length, 16, '4 benchmarks x (real_time, cpu_time, instructions, estimated_cycles)');
  assertGolden(golden('work-metrics.json'), compare(BOTH, '--output', 'json').stdout);
});

test('the row rule on generated inputs: a faster time without less work stays unchanged and says so; opposite moves; both undecided; work on one side only', async () => {
  const { compareRuns } = await import('../../src/compare/compare-runs.ts');
  const { layoutReport, disagreementNote } = await import('../../src/report/report-layout.ts');
  const { lognormalSamples } = await import('../support/samples.ts');
  const m = (benchmark: string, metric: string, unit: string, values: number[]) => ({ benchmark, metric, unit, better: 'lower' as const, values });
  const side = (measurements: ReturnType<typeof m>[]) => ({ measurements, warnings: [], hints: {} });
  const counts = (v: number, n = 3) => Array.from({ length: n }, () => v);
  const report = compareRuns(
    side([
      m('faster', 'real_time', 'ns', lognormalSamples(20, 100, 0.01, 1)), m('faster', 'instructions', 'count', counts(1e6)),
      m('apart', 'real_time', 'ns', lognormalSamples(20, 100, 0.01, 2)), m('apart', 'instructions', 'count', counts(1e6)),
      m('unsure', 'real_time', 'ns', lognormalSamples(5, 100, 0.3, 3)), m('unsure', 'instructions', 'count', [1e6, 1.03e6, 0.98e6]),
      m('half', 'real_time', 'ns', lognormalSamples(20, 100, 0.01, 4)),
    ]),
    side([
      m('faster', 'real_time', 'ns', lognormalSamples(20, 80, 0.01, 11)), m('faster', 'instructions', 'count', counts(1e6)),
      m('apart', 'real_time', 'ns', lognormalSamples(20, 80, 0.01, 12)), m('apart', 'instructions', 'count', counts(1.05e6)),
      m('unsure', 'real_time', 'ns', lognormalSamples(5, 100, 0.3, 13)), m('unsure', 'instructions', 'count', [1e6, 0.97e6, 1.02e6]),
      m('half', 'real_time', 'ns', lognormalSamples(20, 100, 0.01, 14)), m('half', 'instructions', 'count', counts(1e6)),
    ]),
  );
  const rows = new Map(layoutReport(report).rows.map((r) => [r.comparison.benchmark, r]));
  const faster = rows.get('faster');
  assert.equal(faster?.comparison.metric, 'instructions');
  assert.equal(faster?.verdict, 'unchanged', 'a time faster by layout alone is no improvement of the code');
  assert.equal(faster?.disagreement, 'time-without-work');
  assert.match(disagreementNote(faster!, (x) => x) ?? '', /^changed without its code doing less work: layout, memory or frequency effect \(real_time -20\.\d+%; instructions unchanged\)$/);
  const apart = rows.get('apart');
  assert.equal(apart?.verdict, 'regressed');
  assert.equal(apart?.disagreement, 'opposite');
  assert.match(disagreementNote(apart!, (x) => x) ?? '', /^the time and the work moved in opposite directions/);
  const unsure = rows.get('unsure');
  assert.equal(unsure?.verdict, 'inconclusive', 'undecided work and undecided time: the row is undecided');
  assert.equal(unsure?.disagreement, undefined);
  const half = rows.get('half');
  assert.equal(half?.comparison.metric, 'real_time', 'counted work on the head only does not take the row from the time');
  assert.equal(half?.verdict, 'unchanged');
});

test('--work-threshold sets the threshold of counted work alone, read as every threshold is; bad values exit 2 naming the flag', () => {
  const json = JSON.parse(compare(BOTH, '--filter', '^hash$', '--work-threshold', '2%', '--output', 'json').stdout);
  assert.equal(json.work_threshold, 0.02);
  assert.equal(find(json.comparisons, 'instructions').verdict, 'unchanged', '+1% is within 2%');
  assert.equal(json.threshold, 0.02);
  const text = compare(BOTH, '--filter', '^sum$', '--work-threshold', '0.25%').stdout;
  assert.match(text, /^No change beyond ±2% \(counted work ±0\.25%\): nothing to do\./);
  for (const bad of ['0.5', '0%', 'lots']) {
    const run = spawnSync(process.execPath, [BIN, 'compare', ...BOTH, '--work-threshold', bad], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 2, `--work-threshold ${bad}: ${run.stderr}`);
    assert.match(run.stderr, /--work-threshold/);
  }
});

test('--work-threshold left out is undefined in run\'s and compare\'s settings: the default follows the harness of the results judged', () => {
  const run = ['--base', 'a', '--head', 'b', '--bench', './bench'];
  assert.equal(parseRunArgs(run, ROOT, {}).workThreshold, undefined);
  assert.equal(parseRunArgs([...run, '--work-threshold', '0.5%'], ROOT, {}).workThreshold, 0.005);
  assert.equal(parseCompareArgs(WORK_ONLY).workThreshold, undefined);
  assert.equal(parseCompareArgs([...WORK_ONLY, '--work-threshold', '0.5%']).workThreshold, 0.005);
});

test('compare of pytest-benchmark counts: judged at 1% when no --work-threshold is given, and the JSON report says so; an explicit 0.5% wins', (t) => {
  // The fixture's counts as the action's results artifact writes them for a pytest-benchmark suite (benchbot JSON naming its harness).
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-pytest-work-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sides = (['base', 'head'] as const).map((side) => {
    const path = join(dir, `${side}.json`);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(join(ROOT, F, `work-${side}.json`), 'utf8')), harness: 'pytest-benchmark' }));
    return path;
  });
  const hash = (json: { comparisons: JsonComparison[] }) => find(json.comparisons.filter((c) => c.benchmark === 'hash'), 'instructions');
  const plain = JSON.parse(compare(WORK_ONLY, '--output', 'json').stdout);
  assert.equal(plain.work_threshold, DEFAULT_WORK_THRESHOLD, 'no harness named: the compiled harnesses\' default');
  assert.equal(hash(plain).verdict, 'regressed', 'hash\'s +1.00% (just under: 393,226 -> 397,156) is beyond 0.5%');
  const pytest = JSON.parse(compare(sides, '--output', 'json').stdout);
  assert.equal(pytest.work_threshold, defaultWorkThreshold('pytest-benchmark'));
  assert.equal(hash(pytest).verdict, 'unchanged', 'and within 1%');
  const explicit = JSON.parse(compare(sides, '--work-threshold', '0.5%', '--output', 'json').stdout);
  assert.equal(explicit.work_threshold, 0.005);
  assert.equal(hash(explicit).verdict, 'regressed');
});

test('every field of a report with counted work is documented in docs/report-json.md', async () => {
  const doc = readFileSync(join(ROOT, 'docs/report-json.md'), 'utf8');
  const json = JSON.parse(compare(BOTH, '--output', 'json').stdout);
  const fields = new Set<string>([...Object.keys(json), ...json.comparisons.flatMap((c: object) => Object.keys(c))]);
  for (const field of ['spread', 'reason', 'disagreement', 'work_threshold']) assert.ok(fields.has(field), `the report has ${field}`);
  for (const field of fields) assert.ok(doc.includes(`\`${field}\``) || doc.includes(`"${field}"`), `docs/report-json.md does not document ${field}`);
});

test('a repeat set aside (5 repeats a side): the cells say n=5, 1 set aside and the spread of the rest, the JSON set_aside, documented', async () => {
  const { readFileSync } = await import('node:fs');
  const { compareRuns } = await import('../../src/compare/compare-runs.ts');
  const { renderMarkdown } = await import('../../src/report/markdown-report.ts');
  const { renderText } = await import('../../src/report/text-report.ts');
  const { renderJson } = await import('../../src/report/json-report.ts');
  const m = (values: number[]) => ({ benchmark: 'test_convert', metric: 'instructions', unit: 'count', better: 'lower' as const, values });
  // Base repeats equal but one layout 8% up; head spread 0.3% with one layout 7% down.
  const report = compareRuns(
    { measurements: [m([1_000_000, 1_000_000, 1_080_000, 1_000_000, 1_000_000])], warnings: [], hints: {} },
    { measurements: [m([1_000_000, 1_003_000, 1_001_000, 930_000, 1_002_000])], warnings: [], hints: {} },
  );
  const md = renderMarkdown(report);
  assert.match(md, /\(n=5, 1 set aside, equal\) \| [^|]*\(n=5, 1 set aside, spread 0\.3%\)/);
  assert.match(md, /sets aside the one farthest from its median/, 'the method note says why');
  assert.match(renderText(report), /n=5, 1 set aside, equal\s+\S+ n=5, 1 set aside, spread 0\.3%/);
  const json = JSON.parse(renderJson(report)).comparisons[0];
  assert.deepEqual(json.set_aside, { base: 1_080_000, head: 930_000 });
  assert.equal(json.verdict, 'unchanged');
  assert.ok(readFileSync(join(ROOT, 'docs/report-json.md'), 'utf8').includes('`set_aside`'), 'docs/report-json.md documents set_aside');
});

test('hostile names and units around counted work stay inert: the reason, the note and the headline go through the one escaping path', async () => {
  const { compareRuns } = await import('../../src/compare/compare-runs.ts');
  const { renderMarkdown } = await import('../../src/report/markdown-report.ts');
  const { renderText } = await import('../../src/report/text-report.ts');
  const name = 'BM_<img src=x onerror=alert(1)>|@everyone\u001b[2J';
  const unit = '<b>|x</b>';
  const m = (metric: string, u: string, values: number[]) => ({ benchmark: name, metric, unit: u, better: 'lower' as const, values });
  const report = compareRuns(
    { measurements: [m('instructions', 'count', [100, 100, 100]), m('estimated_cycles', 'count', [200, 200, 200]), m('real_time', 'ns', [10, 11, 10, 12, 10, 11, 10, 11, 10, 12])], warnings: [], hints: {} },
    { measurements: [m('instructions', 'count', [110, 110, 110]), m('estimated_cycles', unit, [200, 200, 200]), m('real_time', 'ns', [10, 11, 10, 12, 10, 11, 10, 11, 10, 12])], warnings: [], hints: {} },
  );
  const md = renderMarkdown(report);
  assert.doesNotMatch(md, /<img|<b>|@everyone|\u001b/);
  for (const line of md.split('\n').filter((l) => l.startsWith('| <code>BM_'))) assert.equal(line.split(' | ').length, 8, `a row keeps its 8 cells: ${line}`);
  const text = renderText(report);
  assert.doesNotMatch(text, /\u001b/);
});
