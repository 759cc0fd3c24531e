// bisect/cargo-bisect-rustc-script by cargo-bisect-rustc's documented `--script` contract
// (https://rust-lang.github.io/cargo-bisect-rustc/usage.html#scripting): the script runs in
// the project directory with RUSTUP_TOOLCHAIN naming the toolchain under test
// (`bisector-nightly-YYYY-MM-DD-<host>`), exits 0 for the baseline and non-zero for a
// regression; the start and end of the range are tested first. Toolchains cannot be
// downloaded here, so the "toolchain" is only that variable: the fake project's bench
// reads the date from it and is 8% slower from REGRESSED_FROM on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../../bisect/cargo-bisect-rustc-script', import.meta.url));
const HOST = 'x86_64-unknown-linux-gnu';

const BENCH = `#!/bin/sh
n=$(cat .round 2>/dev/null || echo 0); n=$((n+1)); echo $n > .round
day=$(echo "$RUSTUP_TOOLCHAIN" | sed -n 's/^\\(bisector-\\)\\{0,1\\}nightly-\\([0-9]\\{4\\}-[0-9]\\{2\\}-[0-9]\\{2\\}\\).*/\\2/p')
[ -n "$day" ] || { echo "no toolchain" >&2; exit 1; }
awk -v seed="$n" -v day="$day" -v from="$REGRESSED_FROM" 'BEGIN { gsub(/-/, "", day); gsub(/-/, "", from); srand(seed * 7919 + day % 1000); slow = (day + 0 >= from + 0) ? 1.08 : 1; printf "parse: %.5f us\\n", 100 * (1 + 0.005 * (rand() - 0.5)) * slow; printf "hash: %.5f us\\n", 50 * (1 + 0.005 * (rand() - 0.5)) }'
`;

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-cargo-'));
  writeFileSync(join(dir, 'bench.sh'), BENCH);
  chmodSync(join(dir, 'bench.sh'), 0o755);
  return dir;
}

const day = (d: number) => `2024-01-${String(d).padStart(2, '0')}`;

function script(dir: string, toolchain: string | undefined, regressedFrom: string, refs: [string, string]) {
  const env: Record<string, string | undefined> = { ...process.env, BENCHBOT_NODE: process.execPath, BENCHBOT_LOCK: join(dir, 'machine.lock'), BENCHBOT_DATABASE_URL: '', REGRESSED_FROM: regressedFrom };
  if (toolchain === undefined) delete env.RUSTUP_TOOLCHAIN;
  else env.RUSTUP_TOOLCHAIN = toolchain;
  // cargo-bisect-rustc passes the words after `--` on to the script.
  const run = spawnSync(SCRIPT, ['--good-ref', `nightly-${refs[0]}`, '--bad-ref', `nightly-${refs[1]}`, '--bench', './bench.sh', '--rounds', '6', '--max-load', '1000'], { cwd: dir, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('driven like cargo-bisect-rustc (start, end, then a binary search over nightlies), the script finds the regressing nightly', () => {
  const dir = project();
  const [start, end] = [10, 26];
  const refs: [string, string] = [day(start), day(end)];
  const verdict = (d: number) => script(dir, `bisector-nightly-${day(d)}-${HOST}`, day(20), refs);

  const first = verdict(start);
  assert.equal(first.status, 0, `the start is the baseline: ${first.stdout}${first.stderr}`);
  const last = verdict(end);
  assert.notEqual(last.status, 0, `the end reproduces the regression: ${last.stdout}${last.stderr}`);
  let lo = start;
  let hi = end;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const r = verdict(mid);
    assert.ok(r.status === 0 || r.status === 1, `exit ${r.status}: ${r.stderr}`);
    if (r.status === 0) lo = mid;
    else hi = mid;
  }
  assert.equal(day(hi), day(20));
});

test('an end that does not differ from the start is answered "baseline", so cargo-bisect-rustc stops: not reproducible', () => {
  const dir = project();
  const refs: [string, string] = [day(1), day(5)];
  assert.equal(script(dir, `bisector-nightly-${day(1)}-${HOST}`, day(30), refs).status, 0);
  const end = script(dir, `bisector-nightly-${day(5)}-${HOST}`, day(30), refs);
  assert.equal(end.status, 0);
  assert.match(end.stdout, /not reproducible: \w+ \(time\) differs by [+-][\d.]+% between nightly-2024-01-01 and nightly-2024-01-05 .*answering baseline/);
});

test('without RUSTUP_TOOLCHAIN (not under cargo-bisect-rustc) the script says what is missing', () => {
  const dir = project();
  const r = script(dir, undefined, day(20), [day(1), day(5)]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /RUSTUP_TOOLCHAIN/);
});
