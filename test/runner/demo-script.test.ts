import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// `npm run demo` (scripts/demo.sh) on a machine with and without the C++
// demo's prerequisites. BENCHBOT_DEMO_PREREQ_PATH points the prerequisite
// check (and the installer lookup) at another PATH, so "no toolchain" is
// tested here on a machine that has one. The bench command is narrowed to
// two benchmarks to keep the test short; the demo's own default runs all six.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'benchbot-demo-script-'));
const TWO = ['--bench', "./bench.sh '--benchmark_filter=BM_RecordHash|BM_SortInts'"];

async function demo(name: string, env: Record<string, string>, ...args: string[]) {
  const dir = join(work, name);
  const run = await spawnWithProgress('bash', [join(ROOT, 'scripts/demo.sh'), ...args], {
    label: `demo ${name}`,
    cwd: ROOT,
    env: {
      ...process.env,
      // Node.js 24 first, as `npm run` puts node_modules/.bin first.
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      BENCHBOT_DEMO_DIR: dir,
      BENCHBOT_LOCK: join(work, `${name}.lock`),
      BENCHBOT_DEMO_MAX_LOAD: '1000',
      GITHUB_ACTIONS: '',
      BENCHBOT_DATABASE_URL: '',
      ...env,
    },
    timeoutMs: 600_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, dir };
}

/**
 * demoFinding runs the demo until it reports the regression, at most twice:
 * on this shared 2-core machine, with other test files running beside it,
 * a 10% change sometimes stays undecided. Every attempt's exit status must
 * match its report (0 with the regression, 1 without), and one must find it.
 */
async function demoFinding(name: string, env: Record<string, string>) {
  let run = await demo(name, env, ...TWO);
  for (let attempt = 1; ; attempt++) {
    const found = /BM_RecordHash\/65536[^\n]*regressed/.test(run.stdout);
    assert.equal(run.status, found ? 0 : 1, run.stderr);
    if (!found) assert.match(run.stderr, /benchbot found no regression this time/);
    if (found || attempt === 2) return run;
    run = await demo(name, env, ...TWO);
  }
}

test('without a C++ toolchain (empty PATH for the check) the demo runs the Node.js variant, finds the regression and exits 0', { timeout: 600_000 }, async () => {
  const run = await demoFinding('node', { BENCHBOT_DEMO_PREREQ_PATH: '' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /no C\+\+ toolchain with Google Benchmark here \(missing: g\+\+ make libbenchmark-dev\)/);
  assert.match(run.stderr, /running the Node\.js variant: the same suite, history and ~10% regression in merge #14/);
  assert.match(run.stderr, /for the C\+\+ one install g\+\+ make libbenchmark-dev/, 'it says how to get the other variant');
  assert.match(run.stderr, /in CI the same verdict exits 1 and fails the check/);
  assert.match(run.stdout, /BM_RecordHash\/65536[^\n]*regressed/);
  // The terminal gets the terminal report; the PR comment's markdown and HTML go to the file the demo names.
  assert.doesNotMatch(run.stdout, /<!--|<details>|<\/?summary>|^###/m);
  const comment = join(run.dir, 'pr-comment.md');
  assert.ok(run.stderr.includes(`the PR comment a pull request would get (markdown) is in ${comment}`), run.stderr);
  assert.match(readFileSync(comment, 'utf8'), /^<!-- benchbot:report -->\n### benchbot: 1 regression/);
  // The README's claim: the runs are in the demo folder's benchbot.db, not under the repository.
  assert.ok(existsSync(join(run.dir, 'benchbot.db')), 'runs stored in BENCHBOT_DEMO_DIR/benchbot.db');
  assert.ok(!existsSync(join(run.dir, 'repo', run.dir)), 'not under --repo');
  assert.ok(existsSync(join(run.dir, 'repo/bench.mjs')), 'the Node.js suite');
});

test('with g++, make and Google Benchmark the demo runs the C++ variant, finds the regression and exits 0', { timeout: 600_000 }, async () => {
  const run = await demoFinding('cpp', {});
  assert.equal(run.status, 0, `${run.stderr}\n(scripts/prepare-tests.sh, npm test's pretest, installs g++, make and libbenchmark-dev)`);
  assert.match(run.stderr, /running the C\+\+ variant: Google Benchmark, built with g\+\+ and make \(BENCHBOT_DEMO_VARIANT=node npm run demo runs the same suite written for Node\.js\)/);
  assert.doesNotMatch(run.stderr, /installing/);
  assert.match(run.stdout, /BM_RecordHash\/65536[^\n]*regressed/);
  assert.match(run.stderr, /in CI the same verdict exits 1 and fails the check/);
  assert.ok(existsSync(join(run.dir, 'repo/src/main.cpp')), 'the C++ suite');
  // The suite is built by make with -O2 and links Debian's libbenchmark, which reports library_build_type: debug
  // for its own build: the warning says so, and does not send the user to rebuild their code with cmake.
  const comment = readFileSync(join(run.dir, 'pr-comment.md'), 'utf8');
  for (const report of [run.stdout, comment]) {
    assert.doesNotMatch(report, /build Google Benchmark and the code under test in Release/);
    if (/library_build_type/.test(report)) assert.match(report, /how the benchmark library itself was compiled \(without NDEBUG\), not your code/);
  }
  assert.match(run.stdout, /library_build_type: debug/, 'Debian\'s libbenchmark (scripts/prepare-tests.sh installs it) reports a debug library');
});

test('where it may install without asking, the demo installs the prerequisites with apt-get and says so', { timeout: 120_000 }, async () => {
  // A PATH holding only an apt-get (and a sudo for non-root) that record what they were asked: the packages
  // still do not appear, so the demo goes on with the Node.js variant; --min-runs 1 then ends the run at once.
  const bin = join(work, 'installer-bin');
  mkdirSync(bin);
  const log = join(work, 'apt-get.log');
  writeFileSync(join(bin, 'apt-get'), `#!/bin/sh\necho "apt-get $*" >> ${log}\n`);
  writeFileSync(join(bin, 'sudo'), '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n');
  chmodSync(join(bin, 'apt-get'), 0o755);
  chmodSync(join(bin, 'sudo'), 0o755);
  const run = await demo('install', { BENCHBOT_DEMO_PREREQ_PATH: bin }, '--min-runs', '1');
  assert.match(run.stderr, /installing the C\+\+ demo's prerequisites with apt-get: g\+\+ make libbenchmark-dev/);
  assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['apt-get update -qq', 'apt-get install -y -qq g++ make libbenchmark-dev']);
  assert.match(run.stderr, /apt-get ran, but these are still missing: g\+\+ make libbenchmark-dev/);
  assert.match(run.stderr, /running the Node\.js variant/);
  assert.equal(run.status, 2, 'benchbot run refused --min-runs 1: the demo says so and exits 2');
  assert.match(run.stderr, /--min-runs 1: give a whole number of at least 2/);
});

test('when the noise hides the regression (here: head is base) the demo says so and exits 1; a bad variant is a usage error', { timeout: 300_000 }, async () => {
  const run = await demo('same', { BENCHBOT_DEMO_VARIANT: 'node' }, ...TWO, '--head', 'demo-base', '--max-runs', '10');
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /benchbot found no regression this time/);
  assert.doesNotMatch(run.stderr, /no C\+\+ toolchain/, 'BENCHBOT_DEMO_VARIANT=node skips the check');
  const bad = await demo('bad', { BENCHBOT_DEMO_VARIANT: 'rust' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /BENCHBOT_DEMO_VARIANT=rust: use auto, cpp or node/);
});

test('the Node.js variant has the C++ variant\'s history: the same merges, and #14 changes only the hash benchmark\'s code', () => {
  const repos = ['cpp', 'node'].map((variant) => {
    const dir = join(work, `history-${variant}`);
    const made = spawnSync('bash', [join(ROOT, 'scripts/make-demo-repo.sh'), ...(variant === 'node' ? ['--node'] : []), dir], { encoding: 'utf8' });
    assert.equal(made.status, 0, made.stderr);
    return dir;
  });
  const git = (dir: string, ...args: string[]) => spawnSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).stdout.trim();
  const subjects = (dir: string) => git(dir, 'log', '--first-parent', '--format=%s%n%b', 'main');
  assert.equal(subjects(repos[1]), subjects(repos[0]));
  assert.deepEqual(git(repos[1], 'diff', '--name-only', 'demo-base', 'demo-head').split('\n').filter((f) => /\.(mjs|sh)$/.test(f)), ['src/hash.mjs']);
  assert.match(git(repos[1], 'log', '-1', '--format=%s', 'demo-head'), /^Merge pull request #14 /);
});
