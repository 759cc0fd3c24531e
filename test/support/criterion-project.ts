import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// A tiny real criterion crate for instruction counting: two work functions
// kept out of line (`hash`, a serial FNV-1a over 4,096 words, and `sort`),
// benchmarked through `Bencher::iter` and `iter_batched` in a group with
// parameters. `extraPass` makes `hash` hash its first 1% of words a second
// time: +1% of its work, the change a count must find in `hash` alone.
//
// It uses the dependencies of fixtures/capture/criterion (the same
// Cargo.toml dependencies and Cargo.lock, so it builds offline from cargo's
// cache), and copies the compiled dependencies from
// fixtures/capture/work/criterion/target, which scripts/prepare-tests.sh
// builds once (criterion compiles in about 1.5 minutes on two cores).

const CAPTURE = fileURLToPath(new URL('../../fixtures/capture/criterion/', import.meta.url));
/** CRITERION_CACHE holds criterion compiled once (git-ignored), shared with test/cli/run-criterion-cargo.test.ts. */
export const CRITERION_CACHE = fileURLToPath(new URL('../../fixtures/capture/work/criterion/target', import.meta.url));

const CARGO_TOML = `[package]
# The capture crate's name and dependencies, so its Cargo.lock fits.
name = "benchbot-criterion-capture"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
bench = false

[dev-dependencies]
criterion = { version = "0.7", default-features = false, features = ["cargo_bench_support"] }

[[bench]]
name = "count"
harness = false
`;

const LIB = (extra: boolean) => `//! Work the benchmarks measure, kept out of line so a profile names it.

/// hash is FNV-1a over 64-bit words${extra ? ', then over the first 1% once more' : ''}.
#[inline(never)]
pub fn hash(xs: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &x in xs {
        h = (h ^ x).wrapping_mul(0x0100_0000_01b3);
    }
${extra ? '    for &x in &xs[..xs.len() / 100] {\n        h = (h ^ x).wrapping_mul(0x0100_0000_01b3);\n    }\n' : ''}    h
}

/// sort sorts in place.
#[inline(never)]
pub fn sort(v: &mut [u32]) {
    v.sort_unstable();
}
`;

const BENCH = `use benchbot_criterion_capture::{hash, sort};
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::Duration;

fn benches(c: &mut Criterion) {
    let words: Vec<u64> = (0..4096u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    c.bench_function("hash", |b| b.iter(|| hash(black_box(&words))));
    let mut group = c.benchmark_group("sort");
    for n in [256u32, 1024] {
        let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &input, |b, input| {
            b.iter_batched(|| input.clone(), |mut v| sort(black_box(&mut v)), BatchSize::SmallInput)
        });
    }
    group.finish();
}

criterion_group! {
    name = count;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_millis(100)).measurement_time(Duration::from_millis(200));
    targets = benches
}
criterion_main!(count);
`;

/** CRITERION_NAMES are the project's benchmarks as benchbot names them from target/criterion. */
export const CRITERION_NAMES = ['hash', 'sort/256', 'sort/1024'];

/** findCargo is cargo's path (PATH or ~/.cargo/bin), or undefined. */
export function findCargo(): string | undefined {
  for (const candidate of [process.env.CARGO, 'cargo', join(homedir(), '.cargo/bin/cargo')]) {
    if (candidate && spawnSync(candidate, ['--version'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

/** criterionMissing says what this machine lacks to count a criterion crate (a test prints it and skips), or undefined. */
export function criterionMissing(): string | undefined {
  if (spawnSync('valgrind', ['--version'], { stdio: 'ignore' }).status !== 0) return 'valgrind is not installed';
  const cargo = findCargo();
  if (cargo === undefined) return 'cargo is not installed (https://rustup.rs)';
  const fetched = spawnSync(cargo, ['fetch', '--quiet'], { cwd: CAPTURE, encoding: 'utf8' });
  if (fetched.status !== 0) return `cargo cannot fetch criterion (crates.io unreachable and not in cargo's cache): ${fetched.stderr.trim().split('\n').pop()}`;
  return undefined;
}

/** writeCriterionProject writes the crate into dir, with its build and bench scripts. */
export function writeCriterionProject(dir: string, options: { extraPass?: boolean } = {}): void {
  mkdirSync(join(dir, 'src'), { recursive: true });
  mkdirSync(join(dir, 'benches'), { recursive: true });
  writeFileSync(join(dir, 'Cargo.toml'), CARGO_TOML);
  cpSync(join(CAPTURE, 'Cargo.lock'), join(dir, 'Cargo.lock'));
  writeFileSync(join(dir, 'src/lib.rs'), LIB(options.extraPass === true));
  writeFileSync(join(dir, 'benches/count.rs'), BENCH);
  const cargo = findCargo() ?? 'cargo';
  // The compiled dependencies come from the cache; only this crate compiles.
  writeFileSync(join(dir, 'build.sh'), `#!/bin/sh\nset -e\nif [ ! -d target ] && [ -d "$BENCHBOT_CRITERION_CACHE/release" ]; then mkdir -p target && cp -Rp "$BENCHBOT_CRITERION_CACHE/release" target/; fi\n${cargo} bench --offline --bench count --no-run --quiet\n`);
  // A script that runs the bench binary itself, passing its arguments on (as bench/instruction-suites.ts's Rust suite does).
  writeFileSync(join(dir, 'bench-binary.sh'), `#!/bin/sh\nset -e\nexe=$(ls -t target/release/deps/count-* | grep -v '\\.d$' | head -1)\nexec "$exe" --bench "$@"\n`);
  chmodSync(join(dir, 'build.sh'), 0o755);
  chmodSync(join(dir, 'bench-binary.sh'), 0o755);
  writeFileSync(join(dir, '.gitignore'), 'target/\n.benchbot/\n.benchbot-*\n');
}

/** criterionBench is the README's recipe as a bench command: cargo bench with criterion's options and a filter of its own. */
export function criterionBench(): string {
  return `${findCargo() ?? 'cargo'} bench --offline --bench count -- --noplot --warm-up-time 0.1 --measurement-time 0.2 'hash|sort'`;
}

/** criterionEnv points build.sh at the compiled dependencies. */
export function criterionEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCHBOT_CRITERION_CACHE: CRITERION_CACHE };
  delete env.CARGO_TARGET_DIR;
  delete env.CRITERION_HOME;
  return env;
}

/** ensureCriterionCache compiles criterion into {@link CRITERION_CACHE} when it is not there (scripts/prepare-tests.sh does it once). */
export function ensureCriterionCache(): void {
  if (existsSync(join(CRITERION_CACHE, 'release'))) return;
  const warm = spawnSync(findCargo() ?? 'cargo', ['bench', '--offline', '--bench', 'capture', '--no-run', '--quiet'], { cwd: CAPTURE, encoding: 'utf8', env: { ...criterionEnv(), CARGO_TARGET_DIR: CRITERION_CACHE } });
  if (warm.status !== 0) throw new Error(`compiling criterion into ${CRITERION_CACHE} failed: ${warm.stderr}`);
}

/** buildCriterionProject runs build.sh (compiling the cache first when it is missing), failing with its output. */
export function buildCriterionProject(dir: string): void {
  ensureCriterionCache();
  const built = spawnSync('./build.sh', { cwd: dir, encoding: 'utf8', env: criterionEnv() });
  if (built.status !== 0) throw new Error(`build.sh in ${dir} exited ${built.status}: ${built.stderr}`);
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/** makeCriterionRepo is a git repository of the crate: tag `base`, and tag `head` where `hash` does 1% more work. */
export function makeCriterionRepo(): { dir: string; baseSha: string; headSha: string } {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-counted-criterion-'));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  writeCriterionProject(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  writeCriterionProject(dir, { extraPass: true });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'head: hash does 1% more');
  git(dir, 'tag', 'head');
  return { dir, baseSha: git(dir, 'rev-parse', 'base'), headSha: git(dir, 'rev-parse', 'head') };
}
