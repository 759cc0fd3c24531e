import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** FixtureRepo is a throwaway git repository with a tagged base and head commit. */
export interface FixtureRepo {
  dir: string;
  baseSha: string;
  headSha: string;
}

// The bench script prints two benchmarks in the plain `name: value unit`
// format with 0.5% deterministic noise (awk's seeded rand, one seed per
// round), scaled by the committed factor in slow.txt. Environment knobs make
// it fail on purpose: BENCH_FAIL_AT=N exits 3 on the Nth call, BENCH_SLEEP
// sleeps before printing, BENCH_NOISE sets the noise (default 0.005).
const BENCH = `#!/bin/sh
n=$(cat .round 2>/dev/null || echo 0); n=$((n+1)); echo $n > .round
if [ -n "$BENCH_FAIL_AT" ] && [ "$n" = "$BENCH_FAIL_AT" ]; then echo "segfault in round $n" >&2; exit 3; fi
if [ -f mode.txt ] && [ "$(cat mode.txt)" = garbage ]; then echo "hello, no numbers here"; exit 0; fi
if [ -f mode.txt ] && [ "$(cat mode.txt)" = crash ]; then echo "cannot open data file" >&2; exit 2; fi
[ -n "$BENCH_SLEEP" ] && sleep "$BENCH_SLEEP"
awk -v seed="$n" -v slow="$(cat slow.txt)" -v noise="\${BENCH_NOISE:-0.005}" 'BEGIN { srand(seed); printf "parse: %.5f us\\n", 100 * (1 + noise * (rand() - 0.5)) * slow; printf "hash: %.5f us\\n", 50 * (1 + noise * (rand() - 0.5)) }'
`;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/**
 * makeFixtureRepo creates a repository where head makes `parse` slower by
 * `headFactor` and leaves `hash` alone. `headMode` writes mode.txt at head
 * (`garbage` prints nothing parseable, `crash` exits non-zero).
 */
export function makeFixtureRepo(options: { headFactor?: number; headMode?: 'garbage' | 'crash'; buildScript?: string } = {}): FixtureRepo {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  writeFileSync(join(dir, 'bench.sh'), BENCH);
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, 'slow.txt'), '1\n');
  writeFileSync(join(dir, 'build.sh'), options.buildScript ?? '#!/bin/sh\necho building; touch built.flag\n');
  chmodSync(join(dir, 'build.sh'), 0o755);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  writeFileSync(join(dir, 'slow.txt'), `${options.headFactor ?? 1.1}\n`);
  if (options.headMode) writeFileSync(join(dir, 'mode.txt'), `${options.headMode}\n`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'head: make parse slower');
  git(dir, 'tag', 'head');
  return { dir, baseSha: git(dir, 'rev-parse', 'base'), headSha: git(dir, 'rev-parse', 'head') };
}
