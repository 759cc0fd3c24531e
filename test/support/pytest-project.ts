import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A tiny real pytest-benchmark project for instruction counting
// (valgrind-count.ts, pytest-count-plugin.ts): benchmarks through
// `benchmark(...)`, a parametrized one, one in a class, one through
// `benchmark.pedantic` with a setup, and a plain test that is no benchmark.
// `extra` adds one more step to the 100-step loop of `checksum` (about 1%
// more work in test_checksum only; `extraSteps` that many), the change a count must see there and
// nowhere else.

/** PYTEST_NAMES are the project's benchmarks as pytest-benchmark's JSON names them (fullname, the node id). */
export const PYTEST_NAMES = [
  'test_bench.py::test_checksum',
  'test_bench.py::test_encode[10]',
  'test_bench.py::test_encode[50]',
  'test_bench.py::TestSorted::test_sorted_words',
  'test_bench.py::test_parse_rows',
];

const CALC = (steps: number) => `import json


def checksum(values):
    total = 0
    for i in range(${steps}):
        total = (total * 31 + values[i % len(values)] + i) % 1000003
    return total


def encode(n):
    return json.dumps({"k%d" % i: [i, str(i), {"x": i}] for i in range(n)})


def sorted_words(words):
    return sorted(set(words), key=lambda w: (len(w), w))


def parse_rows(text):
    return [line.split(",") for line in text.splitlines()]
`;

const TESTS = `import pytest

from calc import checksum, encode, parse_rows, sorted_words


def test_checksum(benchmark):
    assert benchmark(checksum, list(range(37))) >= 0


@pytest.mark.parametrize("n", [10, 50])
def test_encode(benchmark, n):
    benchmark(encode, n)


class TestSorted:
    def test_sorted_words(self, benchmark):
        words = ["w%d" % (i * 7 % 23) for i in range(60)]
        assert benchmark(sorted_words, words)[0] == "w0"


def test_parse_rows(benchmark):
    def setup():
        return ("\\n".join("%d,%d,%d" % (i, i * i, i % 7) for i in range(40)),), {}
    rows = benchmark.pedantic(parse_rows, setup=setup, rounds=20)
    assert len(rows) == 40


def test_not_a_benchmark():
    assert checksum([1]) >= 0
`;

/** realPython is the interpreter itself (a pyenv shim would start dozens of shell processes under valgrind). */
export function realPython(): string {
  return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

/** writePytestProject writes the project into dir: calc.py, test_bench.py, bench.sh (pytest-benchmark JSON to stdout's file bench.json). */
export function writePytestProject(dir: string, options: { extra?: boolean; extraSteps?: number } = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'calc.py'), CALC(100 + (options.extraSteps ?? (options.extra === true ? 1 : 0))));
  writeFileSync(join(dir, 'test_bench.py'), TESTS);
  writeFileSync(join(dir, 'bench.sh'), `#!/bin/sh\nset -e\ncd "$(dirname "$0")"\nexec ${realPython()} -m pytest -q -p no:cacheprovider --benchmark-only --benchmark-min-rounds=3 --benchmark-max-time=0.005 --benchmark-json=bench.json test_bench.py >/dev/null\n`);
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, '.gitignore'), 'bench.json\n__pycache__/\n.benchbot/\n.benchbot-*\n');
}

/** pytestMissing says what this machine lacks to count the project (a test prints it and skips), or undefined. */
export function pytestMissing(): string | undefined {
  for (const [cmd, args] of [['valgrind', ['--version']], ['cc', ['--version']], ['python3', ['--version']]] as const) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.error || r.status !== 0) return `${cmd} is not installed`;
  }
  const modules = spawnSync(realPython(), ['-c', 'import pytest, pytest_benchmark'], { encoding: 'utf8' });
  if (modules.status !== 0) return 'pytest and pytest-benchmark are not installed for python3 (scripts/prepare-tests.sh installs them)';
  return undefined;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/**
 * commitProject makes dir a git repository with one commit, as the
 * checkouts benchbot counts in are: outside one, pytest-benchmark's start
 * asks `hg` for the project's name, and the failed exec reports through a
 * pipe in pieces that arrive as the timing gives, so the heap a benchmark
 * starts from differs from process to process (docs/instructions.md).
 */
export function commitProject(dir: string, message = 'project'): void {
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
}

/** makePytestRepo is a git repository of the project: tag `base`, and tag `head` with `extraSteps` more steps in checksum (default 1, about +1%). */
export function makePytestRepo(extraSteps = 1): { dir: string; baseSha: string; headSha: string } {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-counted-pytest-'));
  writePytestProject(dir);
  commitProject(dir, 'base');
  git(dir, 'tag', 'base');
  writePytestProject(dir, { extraSteps });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', `head: ${extraSteps} more step(s) in checksum`);
  git(dir, 'tag', 'head');
  return { dir, baseSha: git(dir, 'rev-parse', 'base'), headSha: git(dir, 'rev-parse', 'head') };
}
