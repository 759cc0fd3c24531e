// `benchbot run` on a real criterion crate, the README's recipe: cargo
// builds both sides, criterion writes target/criterion in every round, and
// `--result-file target/criterion` reads each round's samples. The crate is
// fixtures/capture/criterion's; head makes `fib 15` compute fib(18).
//
// It needs cargo and the crate's dependencies (crates.io, or cargo's cache),
// and is skipped, saying why, without them. Compiled dependencies are kept in
// fixtures/capture/work/criterion/target (git-ignored, shared with
// fixtures/capture/criterion.sh): the first run compiles criterion (about
// 1.5 minutes on two cores), later runs only the crate (seconds per side).
// Each worktree's build starts from a copy of that cache: one target
// directory shared by base and head would hold one bench binary for both
// (cargo names a package's artifacts independently of its path), and head
// would measure base's code.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/open-store.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));
const CRATE = fileURLToPath(new URL('../../fixtures/capture/criterion/', import.meta.url));
const TARGET = fileURLToPath(new URL('../../fixtures/capture/work/criterion/target', import.meta.url));

function findCargo(): string | undefined {
  for (const candidate of [process.env.CARGO, 'cargo', join(homedir(), '.cargo/bin/cargo')]) {
    if (candidate && spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/** crateRepo puts the capture crate in a repository: `base`, then `main` where fib 15 computes fib(18). */
function crateRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-criterion-crate-'));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  for (const part of ['Cargo.toml', 'Cargo.lock', 'src', 'benches']) cpSync(join(CRATE, part), join(dir, part), { recursive: true });
  writeFileSync(join(dir, '.gitignore'), 'target/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  const bench = join(dir, 'benches/capture.rs');
  const source = readFileSync(bench, 'utf8');
  assert.ok(source.includes('fib(black_box(15))'), 'the capture crate still benchmarks fib(15)');
  writeFileSync(bench, source.replace('fib(black_box(15))', 'fib(black_box(18))'));
  git(dir, 'commit', '-q', '-am', 'fib 15 computes fib(18)');
  return dir;
}

const cargo = findCargo();
let skip: string | false = cargo === undefined ? 'cargo is not installed (https://rustup.rs); the fake-bench test in run-result-directory.test.ts covers the runner' : false;
let repo = '';
// Each worktree holds a copy of the compiled dependencies (~130 MB).
after(() => {
  if (repo !== '') rmSync(repo, { recursive: true, force: true });
});
if (!skip) {
  repo = crateRepo();
  const fetch = spawnSync(cargo!, ['fetch', '--quiet'], { cwd: repo, encoding: 'utf8' });
  if (fetch.status !== 0) skip = `cargo cannot fetch the crate's dependencies (crates.io unreachable and not in cargo's cache): ${fetch.stderr.trim().split('\n').pop()}`;
}

test('run with the README recipe on a real criterion crate finds the slower fib and keeps every sample of every round', { skip, timeout: 20 * 60_000 }, async () => {
  mkdirSync(TARGET, { recursive: true });
  const warm = spawnSync(cargo!, ['bench', '--bench', 'capture', '--no-run', '--quiet'], { cwd: repo, encoding: 'utf8', env: { ...process.env, CARGO_TARGET_DIR: TARGET } });
  assert.equal(warm.status, 0, warm.stderr);
  const env: Record<string, string | undefined> = { ...process.env, BENCHBOT_CARGO_CACHE: TARGET, BENCHBOT_LOCK: join(repo, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '', GITHUB_ACTIONS: '' };
  delete env.CARGO_TARGET_DIR;
  delete env.CRITERION_HOME;
  const args = [
    'run', '--base', 'base', '--head', 'main',
    '--build', `mkdir -p target && cp -Rp "$BENCHBOT_CARGO_CACHE/release" target/ && ${cargo} bench --bench capture --no-run`,
    '--bench', `${cargo} bench --bench capture -- --noplot --warm-up-time 0.2 --measurement-time 0.3 'fib|sum/256'`,
    '--result-file', 'target/criterion',
    '--min-runs', '5', '--max-runs', '5', '--round-summary', 'all', '--max-load', '1000', '--output', 'json',
  ];
  const run = await spawnWithProgress(process.execPath, [BIN, ...args], { label: 'criterion run', cwd: repo, env });
  assert.equal(run.status, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  const fib = report.comparisons.find((c: { benchmark: string; metric: string }) => c.benchmark === 'fib 15' && c.metric === 'time');
  assert.equal(fib?.verdict, 'regressed', JSON.stringify(fib));
  // fib(18) makes 4.2 times the calls of fib(15) (8361 / 1973); a shared
  // target directory ran the last-built binary on both sides (ratio ~0.9).
  assert.ok(fib.ratio > 2 && fib.ratio < 8, `ratio ${fib.ratio}`);
  assert.deepEqual(report.comparisons.map((c: { benchmark: string; metric: string }) => `${c.benchmark} ${c.metric}`).sort(), ['checksum/sum/256 throughput', 'checksum/sum/256 time', 'fib 15 time']);
  const store = await openStore(undefined, { cwd: repo });
  try {
    const runs = await store.listRuns({});
    const head = await store.getRun(runs.find((r) => r.role === 'head')!.id);
    assert.equal(head?.harness, 'criterion');
    // 5 kept rounds x the crate's sample_size(10).
    assert.equal(head?.measurements.find((m) => m.benchmark === 'fib 15')?.values.length, 50);
  } finally {
    await store.close();
  }
  assert.ok(existsSync(join(repo, '.benchbot/worktrees')), 'the rounds ran in worktrees');
});
