import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The demo's fixture repository (scripts/make-demo-repo.sh): its history, and
// that it builds and prints every benchmark. Its measured regression is
// checked by `npm run bench` (demo verdicts over repeated runs).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/make-demo-repo.sh');
const ALL_BENCHMARKS = [
  'BM_VectorSum/65536',
  'BM_SortInts/4096',
  'BM_StringBuild/2048',
  'BM_BinarySearch/65536',
  'BM_MatMul/48',
  'BM_RecordHash/65536',
];

const work = mkdtempSync(join(tmpdir(), 'benchbot-demo-repo-'));
const repo = join(work, 'repo');
test.after(() => rmSync(work, { recursive: true, force: true }));

function run(cmd: string, args: string[], cwd: string, input?: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stderr}`);
  return r.stdout;
}

function git(...args: string[]): string {
  return run('git', args, repo).trim();
}

function makeRepo(): Map<string, string> {
  const out = run('bash', [SCRIPT, repo], ROOT);
  return new Map(out.trim().split('\n').map((line) => line.split(' ') as [string, string]));
}

/** toolchainProblem names the Debian package that is missing, if any. */
function toolchainProblem(): string | undefined {
  for (const [cmd, pkg] of [['g++', 'g++'], ['make', 'make']]) {
    const r = spawnSync(cmd, ['--version'], { encoding: 'utf8' });
    if (r.error || r.status !== 0) return `${cmd} is missing: install the Debian package ${pkg} (apt-get install ${pkg})`;
  }
  const header = spawnSync('g++', ['-x', 'c++', '-E', '-o', '/dev/null', '-'], {
    input: '#include <benchmark/benchmark.h>\n',
    encoding: 'utf8',
  });
  if (header.status !== 0) {
    return 'Google Benchmark is missing (benchmark/benchmark.h not found): install the Debian package libbenchmark-dev (apt-get install libbenchmark-dev)';
  }
  return undefined;
}

interface GBenchRow {
  name: string;
  run_type: string;
  cpu_time: number;
  real_time: number;
  time_unit: string;
}

function benchJson(dir: string, ...args: string[]): GBenchRow[] {
  return JSON.parse(run(join(dir, 'bench.sh'), args, dir)).benchmarks;
}

test('make-demo-repo.sh is idempotent and deterministic: same SHAs when run twice', () => {
  const first = makeRepo();
  const second = makeRepo();
  assert.deepEqual([...first.keys()], ['v1', 'demo-base', 'demo-head', 'main']);
  for (const sha of first.values()) assert.match(sha, /^[0-9a-f]{40}$/);
  assert.deepEqual(second, first);
  assert.equal(git('status', '--porcelain'), '');
  assert.equal(git('rev-parse', '--abbrev-ref', 'HEAD'), 'main');
  for (const [ref, sha] of first) assert.equal(git('rev-parse', `${ref}^{commit}`), sha, ref);
});

test('main is an initial commit and six PR merges; the demo tags are one PR apart', () => {
  const merges = git('log', '--first-parent', '--merges', '--reverse', '--format=%s', 'main').split('\n');
  assert.deepEqual(
    merges.map((s) => s.match(/^Merge pull request #(\d+) from dev\/[a-z-]+$/)?.[1]),
    ['11', '12', '13', '14', '15', '16'],
  );
  const firstParent = git('rev-list', '--first-parent', 'main').split('\n');
  assert.equal(firstParent.length, 7, 'the initial commit and six merges');
  assert.equal(firstParent.at(-1), git('rev-parse', 'v1^{commit}'));
  assert.equal(git('rev-list', '--max-parents=0', 'main'), git('rev-parse', 'v1^{commit}'));
  assert.equal(git('rev-parse', 'demo-head^1'), git('rev-parse', 'demo-base^{commit}'));
  assert.match(git('log', '-1', '--format=%s', 'demo-head'), /^Merge pull request #14 /);
  assert.match(git('log', '-1', '--format=%s', 'demo-base'), /^Merge pull request #13 /);
  assert.ok(firstParent.includes(git('rev-parse', 'demo-head^{commit}')));
});

test('the regression merge touches the benchmark source of BM_RecordHash and no other code', () => {
  const changed = git('diff', '--name-only', 'demo-base', 'demo-head').split('\n');
  assert.ok(changed.includes('src/hash.cpp'), changed.join(', '));
  const code = changed.filter((f) => /\.(cpp|h)$|(^|\/)(Makefile|bench\.sh)$/.test(f));
  assert.deepEqual(code, ['src/hash.cpp']);
});

test('the suite builds at demo-base and demo-head and bench.sh prints every benchmark', { timeout: 180_000 }, () => {
  const problem = toolchainProblem();
  if (problem) assert.fail(problem);

  // One work tree built at base, then moved to head so make recompiles only
  // what head changed: two clean builds would cost the shared machine twice.
  const tree = join(work, 'tree');
  const base = join(work, 'base');
  git('worktree', 'add', '-q', '--detach', tree, 'demo-base');
  run('make', ['-s', '-j2'], tree);
  mkdirSync(base);
  for (const f of ['bench', 'bench.sh']) copyFileSync(join(tree, f), join(base, f));
  run('git', ['checkout', '-q', '--detach', 'demo-head'], tree);
  run('make', ['-s', '-j2'], tree);
  const head = tree;

  // bench.sh runs the whole suite once, as benchbot will.
  const suite = benchJson(head);
  assert.deepEqual(suite.map((r) => r.name), ALL_BENCHMARKS);
  for (const r of suite) {
    assert.equal(r.run_type, 'iteration');
    assert.ok(r.cpu_time > 0 && r.real_time > 0, r.name);
  }

  // Whether the slowdown is ~10% and the rest unchanged is a measurement,
  // so it lives in `npm run bench` (the demo verdicts over repeated runs),
  // not in a unit test on a shared machine.
});
