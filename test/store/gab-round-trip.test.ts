import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { FIXTURES } from '../support/fixtures.ts';

// Migrating from github-action-benchmark: `benchbot import --from
// github-action-benchmark data.js`, then `benchbot scan`, with nothing else
// said. data.js does not record a branch; the import used to store none, and
// the scan then reported "no nightly runs of branch main".

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const work = mkdtempSync(join(tmpdir(), 'benchbot-gab-'));

function benchbot(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, BENCHBOT_DATABASE_URL: '' }, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface Entry { commit: { id: string }; date: number }

test('import a data.js of 400 pushes and 6 suites with no --branch, then scan: the two injected steps are found at their commits', { timeout: 120_000 }, () => {
  // The data.js github-action-benchmark would have written for 400 pushes, values resampled from real captured noise (script header).
  const made = spawnSync(process.execPath, [join(ROOT, 'fixtures/capture/github-action-benchmark.ts'), join(work, 'data.js')], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const text = readFileSync(join(work, 'data.js'), 'utf8');
  const data = JSON.parse(text.slice('window.BENCHMARK_DATA = '.length)) as { entries: Record<string, Entry[]> };
  assert.equal(Object.keys(data.entries).length, 6);
  assert.equal(data.entries['CLI tools'].length, 400);

  const imported = benchbot('import', '--from', 'github-action-benchmark', 'data.js');
  assert.equal(imported.status, 0, imported.stderr);
  assert.match(imported.stdout, /imported 2400 runs from data\.js \(2400 new\) as nightlies of branch main \(data\.js does not say which branch; --branch NAME to choose\)/);
  assert.match(benchbot('import', '--from', 'github-action-benchmark', 'data.js').stdout, /\(0 new\)/, 'a second import adds nothing');

  const scan = benchbot('scan', '--output', 'json');
  assert.equal(scan.status, 0, `nothing is confirmed without an interleaved A/B: ${scan.stderr}`);
  const result = JSON.parse(scan.stdout);
  assert.equal(result.branch, 'main');
  assert.equal(result.series, 30, 'every suite x bench is a series');
  assert.deepEqual(result.warnings.filter((w: string) => /no nightly runs/.test(w)), []);
  const found = (benchmark: string) => result.awaiting.find((f: { benchmark: string; direction: string }) => f.benchmark === benchmark && f.direction === 'regression');
  for (const [suite, bench, push] of [['Google Benchmark (gcc -O2)', 'BM_Hash/4096', 372], ['CLI tools', 'sort numbers.txt', 380]] as const) {
    const f = found(`${suite}/${bench}`);
    assert.ok(f, `${suite}/${bench}: the step at push ${push} is found (awaiting: ${result.awaiting.map((x: { benchmark: string }) => x.benchmark).join(', ')})`);
    assert.equal(f.first_bad.sha, data.entries[suite][push].commit.id);
    assert.equal(f.last_good.sha, data.entries[suite][push - 1].commit.id);
  }

  const markdown = benchbot('scan');
  assert.equal(markdown.status, 0, markdown.stderr);
  assert.match(markdown.stdout, /### benchbot scan of <code>main<\/code>/);
  assert.match(markdown.stdout, /Awaiting an interleaved A\/B/);
  assert.match(markdown.stdout, /CLI tools\/sort numbers\.txt/);
  // --branch still chooses another branch, and scan finds nothing there.
  assert.match(benchbot('scan', '--branch', 'dev').stdout, /no nightly runs of branch dev/);
});

test('a real data.js (MystenLabs/sui gh-pages): one cargo entry, two benches, stored as branch main of that repository', () => {
  const text = readFileSync(join(FIXTURES, 'github-action-benchmark/sui-data.js'), 'utf8');
  const { repo, runs } = parseGithubActionBenchmark(text, 'sui-data.js');
  assert.equal(repo, 'MystenLabs/sui');
  assert.equal(runs.length, 1);
  assert.equal(runs[0].branch, 'main');
  assert.equal(runs[0].sha, '1aadc807ec9f978379fb3cf2828b03450e2e816c');
  assert.equal(runs[0].harness, 'github-action-benchmark/cargo');
  assert.deepEqual(runs[0].measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values]), [
    ['persist_checkpoint', 'time', 'ns/iter', 'lower', [179065083]],
    ['get_checkpoint', 'time', 'ns/iter', 'lower', [313869]],
  ]);
  assert.equal(parseGithubActionBenchmark(text, 'sui-data.js', { branch: 'develop' }).runs[0].branch, 'develop');
});

test('--repo is a directory in every command: import and scan name the GitHub repository --repository', () => {
  const scan = benchbot('scan', '--repo', 'octo/widgets');
  assert.equal(scan.status, 2);
  assert.match(scan.stderr, /--repo octo\/widgets: --repo is a directory in every benchbot command; scan takes the GitHub repository as --repository OWNER\/NAME/);
  const imported = benchbot('import', 'x.js', '--from', 'github-action-benchmark', '--repo', 'octo/widgets');
  assert.equal(imported.status, 2);
  assert.match(imported.stderr, /--repository OWNER\/NAME/);
});
