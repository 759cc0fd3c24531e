// `benchbot run` and `benchbot bisect` with `--result-file` naming a
// criterion-like result directory, written by a fake bench command (fast,
// always runs). test/cli/run-criterion-cargo.test.ts does the same with
// real criterion when cargo is here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  // A private lock file and no load guard: the test suite itself keeps the machine busy.
  const env = { ...process.env, BENCHBOT_LOCK: join(cwd, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '', GITHUB_ACTIONS: '' };
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

// The bench writes target/criterion as criterion 0.7 does (new/ with
// benchmark.json and sample.json, then a copy to base/), 10 samples per
// benchmark with 0.5% seeded noise: `parse` scaled by slow.txt, `hash` not.
// In its second round it also writes `once`, a benchmark no later round
// runs: read from a stale new/, it would show up in every round after.
const BENCH = `#!/bin/sh
n=$(cat .round 2>/dev/null || echo 0); n=$((n+1)); echo $n > .round
crit() {
  d="target/criterion/$1"
  mkdir -p "$d/new" "$d/base"
  printf '{"group_id":"%s","function_id":null,"value_str":null,"throughput":null,"full_id":"%s","directory_name":"%s","title":"%s"}' "$1" "$1" "$1" "$1" > "$d/new/benchmark.json"
  awk -v seed="$n$3" -v ns="$2" 'BEGIN { srand(seed); printf "{\\"sampling_mode\\":\\"Linear\\",\\"iters\\":[1,2,3,4,5,6,7,8,9,10],\\"times\\":["; for (i = 1; i <= 10; i++) printf "%s%.3f", (i > 1 ? "," : ""), i * ns * (1 + 0.005 * (rand() - 0.5)); printf "]}" }' > "$d/new/sample.json"
  cp "$d/new/"* "$d/base/"
}
crit parse "$(awk -v s="$(cat slow.txt)" 'BEGIN { print 100 * s }')" 1
crit hash 50 2
[ "$n" = 2 ] && crit once 10 3
echo "criterion-like results written to target/criterion"
`;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/** criterionRepo: `base` tagged on main, then `Merge pull request #7` of a branch that makes parse 10% slower (main = head). */
function criterionRepo(): { dir: string; base: string; merge: string } {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-resultdir-repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  writeFileSync(join(dir, 'bench.sh'), BENCH);
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, 'slow.txt'), '1\n');
  writeFileSync(join(dir, '.gitignore'), 'target/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  git(dir, 'checkout', '-q', '-b', 'slower');
  writeFileSync(join(dir, 'slow.txt'), '1.1\n');
  git(dir, 'commit', '-q', '-am', 'make parse slower');
  git(dir, 'checkout', '-q', 'main');
  git(dir, 'merge', '-q', '--no-ff', '-m', 'Merge pull request #7 from someone/slower', 'slower');
  return { dir, base: git(dir, 'rev-parse', 'base'), merge: git(dir, 'rev-parse', 'main') };
}

test('run --result-file target/criterion: every round adds the samples it wrote, and only those', async () => {
  const repo = criterionRepo();
  const run = benchbot(repo.dir, 'run', '--base', 'base', '--head', 'main', '--bench', './bench.sh', '--result-file', 'target/criterion', '--round-summary', 'all', '--min-runs', '10', '--max-runs', '10', '--max-load', '1000', '--output', 'json');
  assert.equal(run.status, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.equal(report.rounds_per_side, 10);
  const verdicts = Object.fromEntries(report.comparisons.map((c: { benchmark: string; verdict: string }) => [c.benchmark, c.verdict]));
  assert.equal(verdicts.parse, 'regressed');
  assert.equal(verdicts.hash, 'unchanged');
  const store = await openStore(undefined, { cwd: repo.dir });
  try {
    const runs = await store.listRuns({});
    const head = await store.getRun(runs.find((r) => r.role === 'head')!.id);
    assert.equal(head?.harness, 'criterion');
    // 10 kept rounds x 10 samples; round 2 was the first kept one (round 1 is the warm-up), so `once` has that round's 10.
    assert.equal(head?.measurements.find((m) => m.benchmark === 'parse')?.values.length, 100);
    assert.equal(head?.measurements.find((m) => m.benchmark === 'once')?.values.length, 10, 'a benchmark written in one round counts in that round only');
  } finally {
    await store.close();
  }
});

test('run --result-file naming a directory without criterion results fails with what to fix, not a stack trace', () => {
  const repo = criterionRepo();
  const run = benchbot(repo.dir, 'run', '--base', 'base', '--head', 'main', '--bench', 'mkdir -p out && ./bench.sh', '--result-file', 'out', '--max-load', '1000', '--no-store');
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /out: is a directory, but the round wrote no criterion results in it \(no <benchmark>\/new\/sample\.json\): name criterion's output directory \(target\/criterion/);
  assert.doesNotMatch(run.stderr, /EISDIR|\n\s+at /);
});

test('bisect --result-file target/criterion names the merge that slowed parse', () => {
  const repo = criterionRepo();
  const run = benchbot(repo.dir, 'bisect', '--good', 'base', '--bad', 'main', '--bench', './bench.sh', '--result-file', 'target/criterion', '--benchmark', 'parse', '--rounds', '6', '--max-load', '1000', '--no-store', '--output', 'json');
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.status, 'found');
  assert.equal(log.culprit.sha, repo.merge);
  assert.equal(log.culprit.pr, 7);
});
