#!/usr/bin/env bash
# What the tests need beyond `npm ci`, installed where missing: the README's
# test command (`npm test`) runs this first, so the same command passes on a
# fresh Debian machine and on a developer's. Each tool is installed only
# when it is not already there, so a prepared machine pays ~1 s.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "prepare-tests: $*"; }
apt_packages=()
command -v hyperfine >/dev/null || apt_packages+=(hyperfine)
[ -f /usr/share/benchmark/compare.py ] || apt_packages+=(libbenchmark-tools)
[ -f /usr/include/benchmark/benchmark.h ] || apt_packages+=(libbenchmark-dev)
command -v g++ >/dev/null || apt_packages+=(g++ make)
command -v git >/dev/null || apt_packages+=(git)
command -v python3 >/dev/null || apt_packages+=(python3 python3-pip)
command -v go >/dev/null || apt_packages+=(golang-go)
# Instruction counts (--instructions) run under valgrind's callgrind: the bisect and nightly tests count real code.
command -v valgrind >/dev/null || apt_packages+=(valgrind)
# Sampled profiles (benchbot profile --with perf, test/cli/profile-perf.test.ts) run perf record.
command -v perf >/dev/null || apt_packages+=(linux-perf)
# The ssh executor is tested against a real OpenSSH server on loopback.
[ -x /usr/sbin/sshd ] || apt_packages+=(openssh-server)
command -v ssh >/dev/null || apt_packages+=(openssh-client)
# A round's result directory is packed by busybox's sh, find, head and tar as on a device host.
command -v busybox >/dev/null || apt_packages+=(busybox)
# The PostgreSQL store adapter is tested against a throwaway PostgreSQL 15 cluster.
[ -x /usr/lib/postgresql/15/bin/initdb ] || apt_packages+=(postgresql-15)
# The dashboard is tested in Debian's chromium, driven by playwright-core (never a
# browser download); its screenshots land in test-results/dashboard for upload.
[ -x /usr/bin/chromium ] || apt_packages+=(chromium)
# Cron lines and systemd units in the docs are checked by systemd-analyze.
command -v systemd-analyze >/dev/null || apt_packages+=(systemd)
if [ ${#apt_packages[@]} -gt 0 ]; then
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    if sudo -n true 2>/dev/null; then sudo_cmd="sudo"; else
      say "missing Debian packages: ${apt_packages[*]}"
      say "install them (sudo apt-get install ${apt_packages[*]}) or run as root; the tests need them"
      exit 1
    fi
  fi
  say "installing Debian packages: ${apt_packages[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi
# compare.py (the peer the statistics are checked against) and the test-vector
# script need scipy.
if ! python3 -c 'import scipy, pandas' 2>/dev/null; then
  say "installing scipy and pandas (pip)"
  python3 -m pip install -q scipy pandas 2>/dev/null || python3 -m pip install -q --break-system-packages scipy pandas
fi
# pytest-benchmark suites are counted under valgrind through a pytest plugin
# (--instructions); the tests count a real pytest project.
if ! python3 -c 'import pytest, pytest_benchmark' 2>/dev/null; then
  say "installing pytest and pytest-benchmark (pip)"
  python3 -m pip install -q pytest pytest-benchmark 2>/dev/null || python3 -m pip install -q --break-system-packages pytest pytest-benchmark
fi
# The /bench command finder is checked against GitHub's renderer, cmark-gfm,
# through its Python binding (test/app/command-gfm-differential.test.ts).
if ! python3 -c 'import cmarkgfm' 2>/dev/null; then
  say "installing cmarkgfm (pip)"
  python3 -m pip install -q cmarkgfm==2025.10.22 2>/dev/null || python3 -m pip install -q --break-system-packages cmarkgfm==2025.10.22
fi

# The criterion tests (instruction counts of a criterion crate, the README's
# criterion recipe) build against criterion 0.7: fetched from crates.io and
# compiled once into fixtures/capture/work/criterion/target (git-ignored;
# about 1.5 minutes on two cores), which each test's crate copies. Without
# cargo those tests say so and skip.
criterion_cache="$PWD/fixtures/capture/work/criterion/target"
if command -v cargo >/dev/null && [ ! -d "$criterion_cache/release" ]; then
  say "compiling criterion for the criterion tests (cargo, once)"
  (cd fixtures/capture/criterion && cargo fetch --quiet && CARGO_TARGET_DIR="$criterion_cache" cargo bench --offline --bench capture --no-run --quiet) ||
    say "cargo could not build criterion; the criterion tests will say why they skip"
fi

# The workflows' linters, and act, which runs the workflows end to end on
# this host (test/e2e/act.test.ts). Go builds act and actionlint from the
# module proxy; the versions are the ones the e2e test was written against.
gobin="$(go env GOPATH)/bin"
export PATH="$gobin:$PATH"
command -v actionlint >/dev/null || { say "installing actionlint (go install)"; go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12; }
command -v act >/dev/null || { say "installing act (go install)"; go install github.com/nektos/act@v0.2.89; }
if ! command -v zizmor >/dev/null; then
  say "installing zizmor (pip)"
  python3 -m pip install -q zizmor==1.32.0 2>/dev/null || python3 -m pip install -q --break-system-packages zizmor==1.32.0
fi
