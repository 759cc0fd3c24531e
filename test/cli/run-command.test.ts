import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...process.env, BENCHBOT_LOCK: join(cwd, 'machine.lock'), GITHUB_ACTIONS: '' };
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const common = ['--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--max-load', '1000', '--max-runs', '15'];

test('benchbot run exits 1 on a regression, prints the report and stores both runs with every sample', async () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const run = benchbot(repo.dir, 'run', ...common, '--output', 'json');
  assert.equal(run.status, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.base_sha, repo.baseSha);
  assert.equal(report.summary.regressed, 1);
  assert.match(run.stderr, /== measuring/);
  const store = await openStore(undefined, { cwd: repo.dir });
  try {
    const runs = await store.listRuns({});
    assert.deepEqual(runs.map((r) => r.role).sort(), ['base', 'head']);
    const head = await store.getRun(runs.find((r) => r.role === 'head')!.id);
    assert.equal(head?.measurements.find((m) => m.benchmark === 'parse')?.values.length, report.rounds_per_side);
  } finally {
    await store.close();
  }
});

test('markdown output is the PR comment, with the machine and the rounds', () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const run = benchbot(repo.dir, 'run', ...common, '--output', 'markdown', '--no-store');
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /^<!-- benchbot:report -->\n### benchbot: 1 regression: <code>[^<]+<\/code> \+\d+\.\d+%\. Look at it before merging\.\n\n2 benchmarks: 1 regression, 1 unchanged\./);
  // The footer: how the rounds went with the statistics behind a <details>, then one line with the machine, the commits and the rounds.
  const footer = run.stdout.slice(run.stdout.lastIndexOf('<details><summary>How these verdicts were reached</summary>'));
  assert.match(footer.slice(0, footer.indexOf('</details>')), /\nRounds: 10 of at most \d+ rounds per side \(looks: 10\)/);
  assert.deepEqual(footer.slice(footer.indexOf('</details>')).trim().split('\n').filter((l) => l !== '').length, 2, footer);
  assert.match(footer, /\n<sub>Environment: .*Base [0-9a-f]{12}, head [0-9a-f]{12}; 10 of at most \d+ rounds per side\.<\/sub>\n?$/);
  assert.ok(!existsSync(join(repo.dir, '.benchbot/benchbot.db')), '--no-store stores nothing');
});

test('setup errors exit 2 with the reason and store nothing', async () => {
  const repo = makeFixtureRepo();
  const unknown = benchbot(repo.dir, 'run', ...common, '--base', 'nope');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--base nope: no such commit/);
  const broken = benchbot(repo.dir, 'run', ...common, '--bench', 'exit 9');
  assert.equal(broken.status, 2);
  assert.match(broken.stderr, /the benchmark does not run on base .*exit code 9/);
  const stored = await openStore(undefined, { cwd: repo.dir });
  try {
    assert.equal((await stored.listRuns({})).length, 0, 'a failed run stores nothing');
  } finally {
    await stored.close();
  }
  const store = benchbot(repo.dir, 'run', ...common, '--store', 'postgres://nobody@127.0.0.1:1/none');
  assert.equal(store.status, 2);
  assert.match(store.stderr, /127\.0\.0\.1:1/);
  assert.doesNotMatch(store.stderr, /== measuring/, 'the store is checked before measuring');
  assert.match(benchbot(repo.dir, 'run', ...common, '--executor', 'ftp://x').stderr, /--executor/);
  assert.match(benchbot(repo.dir, 'run', '--base', 'a').stderr, /--head is required/);
  assert.match(benchbot(repo.dir, 'run', ...common, '--min-runs', '1').stderr, /--min-runs 1: give a whole number of at least 2/);
});

test('export and import move history between stores; a second import adds nothing', () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  benchbot(repo.dir, 'run', ...common, '--max-runs', '10');
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-history-'));
  const file = join(dir, 'history.ndjson');
  const exported = benchbot(repo.dir, 'export', '--output', file);
  assert.equal(exported.status, 0, exported.stderr);
  assert.match(exported.stdout, /exported 2 runs/);
  const other = join(dir, 'other.db');
  assert.match(benchbot(repo.dir, 'import', file, '--store', other).stdout, /imported 2 runs .*\(2 new\)/);
  assert.match(benchbot(repo.dir, 'import', file, '--store', other).stdout, /imported 2 runs .*\(0 new\)/);
  const bad = benchbot(repo.dir, 'import', join(repo.dir, 'bench.sh'), '--store', other);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /bench\.sh:1/);
});

test('import --from github-action-benchmark migrates a data.js', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-gab-'));
  const data = fileURLToPath(new URL('../../fixtures/github-action-benchmark/data-handwritten.js', import.meta.url));
  const run = benchbot(dir, 'import', data, '--from', 'github-action-benchmark', '--store', join(dir, 'h.db'));
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /imported \d+ runs/);
});

test('issue 11 flags: repetitions, round summary, pinning, pooling and the test are parsed, and wrong values name the flag', () => {
  const repo = makeFixtureRepo();
  const bad = (flag: string, value: string, pattern: RegExp) => {
    const run = benchbot(repo.dir, 'run', ...common, flag, value);
    assert.equal(run.status, 2, `${flag} ${value}`);
    assert.match(run.stderr, pattern);
  };
  bad('--round-summary', 'mean', /--round-summary mean: use median or all/);
  bad('--pin-cpu', 'first', /--pin-cpu first: use auto, off, or a CPU list/);
  bad('--test', 't', /--test t: use mann-whitney or yuen/);
  bad('--repetitions', '0', /--repetitions 0: give a whole number of at least 1/);
});

test('the second run on a machine prints what its noise memory says: detectable slowdowns, and thresholds it can decide', () => {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const first = benchbot(repo.dir, 'run', ...common, '--output', 'text');
  assert.equal(first.status, 1, first.stderr);
  assert.match(first.stdout, /noise memory of this machine, 15 rounds per side: smallest detectable slowdown parse \d+\.\d%, hash \d+\.\d%/);
  const json = JSON.parse(benchbot(repo.dir, 'run', ...common, '--output', 'json', '--pool-base').stdout);
  const hash = json.comparisons.find((c: { benchmark: string }) => c.benchmark === 'hash');
  assert.ok(hash.detectable > 0 && hash.suggested_threshold > 0, JSON.stringify(hash));
  assert.equal(json.pooled_base['hash (time)'], 10, 'the first run\'s base rounds of the same SHA joined today\'s');
});

test('benchbot calibrate runs A/A rounds of one commit and keeps the noise in the store for later runs', async () => {
  const repo = makeFixtureRepo();
  const run = benchbot(repo.dir, 'calibrate', '--bench', './bench.sh', '--build', './build.sh', '--commit', 'base', '--rounds', '6', '--max-load', '1000');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^calibrated [0-9a-f]{12}: 6 A\/A rounds per side/);
  assert.match(run.stdout, /parse \(time\): A\/A (unchanged|inconclusive), no change beyond ±\d+\.\d%; detectable in 40 rounds: \d+\.\d%; threshold this machine can decide: \d+\.\d%/);
  const store = await openStore(undefined, { cwd: repo.dir });
  try {
    const entries = await store.listState('noise-memory:');
    assert.equal(entries.length, 1);
    assert.equal((await store.listRuns({})).length, 0, 'calibrate keeps the noise, not the runs');
  } finally {
    await store.close();
  }
  const misuse = benchbot(repo.dir, 'calibrate', '--bench', './bench.sh', '--base', 'base');
  assert.equal(misuse.status, 2);
  assert.match(misuse.stderr, /--base is not a calibrate option/);
});
