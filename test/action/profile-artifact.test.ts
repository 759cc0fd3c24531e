// The differential profile across the results artifact: the measuring job
// puts the callgrind files of its regressed benchmarks' profiles in the
// artifact, and the report job (which holds the token) diffs them again, for
// the benchmarks its own recomputed comparison finds regressed, with the
// commits it was given. Forged or broken profile files lose that profile,
// with a note, never the report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { mergeShards, mergedReportContext } from '../../src/jobs/merge-shards.ts';
import { samplesJson, writeProfileSources } from '../../src/jobs/results-artifact.ts';
import { renderReport } from '../../src/report/report-renderers.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/callgrind/', import.meta.url));
const BASE = 'a'.repeat(40);
const HEAD = 'b'.repeat(40);

const m = (benchmark: string, values: number[]): Measurement => ({ benchmark, metric: 'real_time', unit: 'ns', better: 'lower', values });

/** artifact writes a measuring job's results: BM_Mix 10% slower, BM_Same unchanged, and profiles for the given benchmarks. */
function artifact(profiled: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-artifact-'));
  const side = (factor: number, seed: number) => samplesJson({ measurements: [m('BM_Mix', lognormalSamples(15, 100 * factor, 0.01, seed)), m('BM_Same', lognormalSamples(15, 50, 0.01, seed + 1))], warnings: [], hints: {} });
  writeFileSync(join(dir, 'base.json'), side(1, 1));
  writeFileSync(join(dir, 'head.json'), side(1.1, 3));
  writeFileSync(join(dir, 'report.json'), JSON.stringify({ base_sha: BASE, head_sha: HEAD }));
  writeProfileSources(dir, profiled.map((benchmark) => ({ benchmark, base: { file: join(FIXTURES, 'base.out'), iterations: 20 }, head: { file: join(FIXTURES, 'head.out'), iterations: 30 } })));
  return dir;
}

const merge = (dir: string) => mergeShards({ dir, trusted: { base: BASE, head: HEAD }, threshold: 0.02, alpha: 0.05, rules: [], minRuns: 15, maxRuns: 15, nameSetting: (s) => s });

test('the report job diffs the artifact\'s callgrind files again and shows the profile of what it finds regressed', () => {
  const merged = merge(artifact(['BM_Mix']));
  assert.equal(merged.report.comparisons.find((c) => c.benchmark === 'BM_Mix')?.verdict, 'regressed');
  assert.deepEqual(merged.profiles.map((p) => p.benchmark), ['BM_Mix']);
  assert.equal(merged.profiles[0].self[0].name, 'mix_bits(unsigned long)');
  // The commits are the ones the report job was given.
  assert.deepEqual([merged.profiles[0].base.sha, merged.profiles[0].head.sha], [BASE, HEAD]);
  const context = mergedReportContext(merged);
  const markdown = renderReport('markdown', merged.report, context);
  assert.match(markdown, /<details><summary>Where <code>BM_Mix<\/code> changed: \+777 instructions per iteration \(\+7\.58%\), 98\.8% of it in <code>mix_bits\(unsigned long\)<\/code><\/summary>/);
  const json = JSON.parse(renderReport('json', merged.report, context));
  assert.equal(json.profiles[0].self[0].name, 'mix_bits(unsigned long)');
  assert.deepEqual(json.profile_notes, []);
});

test('a profile of a benchmark the report job does not find regressed is not shown, whatever the artifact says', () => {
  const merged = merge(artifact(['BM_Same']));
  assert.deepEqual(merged.profiles, []);
  assert.ok(!renderReport('markdown', merged.report, mergedReportContext(merged)).includes('<summary>Where'));
});

test('a forged or broken profile loses that profile with a note, and only files named by their index are read', () => {
  const dir = artifact(['BM_Mix']);
  writeFileSync(join(dir, 'profiles', '0.head.callgrind'), 'events: Ir\nfn=(1)\n1 2\n');
  const broken = merge(dir);
  assert.deepEqual(broken.profiles, []);
  assert.match(broken.profileNotes.join('\n'), /the profile of BM_Mix cannot be read: profiles\/0\.head\.callgrind:2: fn id \(1\) is used before/);
  assert.match(renderReport('markdown', broken.report, mergedReportContext(broken)), /<sub>the profile of BM_Mix cannot be read: profiles\/0\.head\.callgrind:2/);

  const forged = artifact([]);
  writeFileSync(join(forged, 'profiles.json'), JSON.stringify([{ benchmark: 'BM_Mix', base_iterations: 20, head_iterations: -1, file: '/etc/passwd' }, { benchmark: 'BM_Mix', base_iterations: 1, head_iterations: 1, base: '/etc/passwd' }]));
  const read = merge(forged);
  assert.deepEqual(read.profiles, []);
  assert.match(read.profileNotes[0], /profiles\.json entry 0 is malformed/);
  // Entry 1 names BM_Mix well, but its files (profiles/1.*.callgrind) are not there: a note, not /etc/passwd.
  assert.match(read.profileNotes[1], /the profile of BM_Mix cannot be read: .*profiles\/1\.base\.callgrind/);
});

test('the report job passes the files of the profiles it showed on in its own artifact, which reads back the same (the app reads that one)', () => {
  const merged = merge(artifact(['BM_Mix', 'BM_Same']));
  assert.deepEqual(merged.profileSources.map((s) => s.benchmark), ['BM_Mix']);
  const again = artifact([]);
  writeProfileSources(again, merged.profileSources);
  assert.deepEqual(merge(again).profiles, merged.profiles);
});

test('a perf record profile crosses the artifact as perf script text, with its tool and scope, and is diffed again as samples', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-artifact-'));
  const side = (factor: number, seed: number) => samplesJson({ measurements: [m('BM_Mix', lognormalSamples(15, 100 * factor, 0.01, seed))], warnings: [], hints: {} });
  writeFileSync(join(dir, 'base.json'), side(1, 1));
  writeFileSync(join(dir, 'head.json'), side(1.1, 3));
  writeFileSync(join(dir, 'report.json'), JSON.stringify({ base_sha: BASE, head_sha: HEAD }));
  const PERF = fileURLToPath(new URL('../../fixtures/perf-record/', import.meta.url));
  const plain = (name: string) => {
    const file = join(mkdtempSync(join(tmpdir(), 'benchbot-perf-')), `${name}.txt`);
    writeFileSync(file, gunzipSync(readFileSync(join(PERF, `${name}.txt.gz`))));
    return file;
  };
  writeProfileSources(dir, [{ benchmark: 'BM_Mix', tool: 'perf', scope: 'command', base: { file: plain('cpp-base'), iterations: 400_000 }, head: { file: plain('cpp-head'), iterations: 400_000 } }]);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'profiles.json'), 'utf8')), [{ benchmark: 'BM_Mix', base_iterations: 400_000, head_iterations: 400_000, tool: 'perf', scope: 'command' }]);
  const merged = merge(dir);
  assert.deepEqual(merged.profileNotes, []);
  assert.equal(merged.profiles[0].tool, 'perf');
  assert.equal(merged.profiles[0].scope, 'command');
  assert.ok((merged.profiles[0].base.samples ?? 0) > 0);
  assert.equal(merged.profileSources[0].tool, 'perf');
  assert.match(merged.profileSources[0].base.file, /profiles\/0\.base\.perf\.txt$/);
  const markdown = renderReport('markdown', merged.report, mergedReportContext(merged));
  assert.match(markdown, /\(perf, cpu-clock; the whole bench command, which runs its benchmarks in one process: costs are shares of each side\S{1,6}s samples\)/);
  // Shares of a whole command: the samples that moved, and where they went.
  assert.ok((merged.profiles[0].moved ?? 0) > 0);
  assert.equal(merged.profiles[0].change, 0);
  // A manifest naming a tool benchbot does not know is malformed: that profile is left out with a note.
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify([{ benchmark: 'BM_Mix', base_iterations: 1, head_iterations: 1, tool: 'gprof' }]));
  const forged = merge(dir);
  assert.deepEqual(forged.profiles, []);
  assert.match(forged.profileNotes.join('\n'), /profiles\.json entry 0 is malformed/);
});
