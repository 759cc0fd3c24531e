#!/usr/bin/env bash
# `npm run demo`: builds the demo repository (a small benchmark suite whose
# merge #14 makes BM_RecordHash ~10% slower), then runs the real A/B that a
# pull request would get: benchbot run base vs head on this machine, stored
# in .benchbot-demo/benchbot.db. It prints the terminal report and writes the
# PR comment (markdown) to .benchbot-demo/pr-comment.md.
#
# Two variants of the same suite and history: C++ with Google Benchmark (the
# default; needs g++, make and Google Benchmark), and Node.js (needs nothing
# beyond `npm ci`). When the C++ prerequisites are missing, the demo installs
# them if it can without asking (root, or passwordless sudo, with apt-get),
# and otherwise runs the Node.js variant. It says which one it ran.
#
# Environment:
#   BENCHBOT_DEMO_VARIANT      auto (default), cpp or node
#   BENCHBOT_DEMO_DIR          where the repository and the store go (default .benchbot-demo)
#   BENCHBOT_DEMO_MAX_LOAD     --max-load for the run (default 8: a laptop is rarely idle)
#   BENCHBOT_DEMO_PREREQ_PATH  the PATH the prerequisite check and the installer look in
#                              (default $PATH; tests point it at an empty one)
# Arguments are passed on to `benchbot run` (e.g. --max-runs 20).
#
# Exit status: 0 when benchbot found the regression the demo demonstrates
# (in CI the same verdict exits 1 and fails the check), 1 when this
# machine's noise hid it, 2 on an error.
set -euo pipefail
cd "$(dirname "$0")/.."
demo="${BENCHBOT_DEMO_DIR:-.benchbot-demo}"
variant="${BENCHBOT_DEMO_VARIANT:-auto}"
check_path="${BENCHBOT_DEMO_PREREQ_PATH-$PATH}"
say() { echo "npm run demo: $*" >&2; }

case "$variant" in
  auto | cpp | node) ;;
  *) say "BENCHBOT_DEMO_VARIANT=$variant: use auto, cpp or node"; exit 2 ;;
esac

# missing_packages prints the Debian packages the C++ variant still needs, on one line.
missing_packages() {
  local missing=() cxx
  cxx=$(PATH="$check_path" command -v g++ || true)
  [[ -n "$cxx" ]] || missing+=(g++)
  PATH="$check_path" command -v make >/dev/null || missing+=(make)
  if [[ -n "$cxx" ]]; then
    # The headers and the library, as the suite uses them: compile and link a program.
    local probe
    probe=$(mktemp -d)
    printf '#include <benchmark/benchmark.h>\nstatic void BM_x(benchmark::State& s) { for (auto _ : s) {} }\nBENCHMARK(BM_x);\nBENCHMARK_MAIN();\n' > "$probe/probe.cpp"
    PATH="$check_path" "$cxx" -std=c++17 -o "$probe/probe" "$probe/probe.cpp" -lbenchmark -lpthread >/dev/null 2>&1 || missing+=(libbenchmark-dev)
    rm -rf "$probe"
  else
    missing+=(libbenchmark-dev)
  fi
  echo "${missing[*]:-}"
}

# install_packages installs Debian packages where that needs no question: as root, or with passwordless sudo.
install_packages() {
  local apt sudo_cmd=()
  apt=$(PATH="$check_path" command -v apt-get || true)
  [[ -n "$apt" ]] || return 1
  if [[ "$(id -u)" -ne 0 ]]; then
    local sudo
    sudo=$(PATH="$check_path" command -v sudo || true)
    [[ -n "$sudo" ]] && "$sudo" -n true 2>/dev/null || return 1
    sudo_cmd=("$sudo" -n)
  fi
  say "installing the C++ demo's prerequisites with apt-get: $* (Debian packages; nothing else is changed)"
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive "$apt" update -qq >&2 &&
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive "$apt" install -y -qq "$@" >&2
}

if [[ "$variant" != node ]]; then
  missing=$(missing_packages)
  if [[ -n "$missing" ]]; then
    # shellcheck disable=SC2086 # one word per package
    if install_packages $missing; then
      missing=$(missing_packages)
      [[ -z "$missing" ]] || say "apt-get ran, but these are still missing: $missing"
    fi
  fi
  if [[ -n "$missing" ]]; then
    if [[ "$variant" == cpp ]]; then
      say "the C++ variant needs $missing, which are not installed and could not be installed without asking; install them (sudo apt-get install g++ make libbenchmark-dev) or run the Node.js variant (BENCHBOT_DEMO_VARIANT=node npm run demo)"
      exit 2
    fi
    say "no C++ toolchain with Google Benchmark here (missing: $missing), and no way to install it without asking (root or passwordless sudo with apt-get)"
    variant=node
  else
    variant=cpp
  fi
fi

if [[ "$variant" == cpp ]]; then
  bash scripts/make-demo-repo.sh "$demo/repo" >/dev/null
  build=(--build 'make -s')
  say "running the C++ variant: Google Benchmark, built with g++ and make (BENCHBOT_DEMO_VARIANT=node npm run demo runs the same suite written for Node.js)"
else
  bash scripts/make-demo-repo.sh --node "$demo/repo" >/dev/null
  build=()
  say "running the Node.js variant: the same suite, history and ~10% regression in merge #14, written for Node.js (it needs nothing beyond npm ci; for the C++ one install g++ make libbenchmark-dev, e.g. sudo apt-get install g++ make libbenchmark-dev, and run npm run demo again)"
fi
say "demo repository: $demo/repo (base = merge #13, head = merge #14); runs stored in $demo/benchbot.db"
comment="$demo/pr-comment.md"
rm -f "$comment"

# A laptop or a shared box is rarely idle: the demo tolerates more load than
# benchbot's default guard (0.5 + 10% of cores), which suits a dedicated runner.
status=0
node bin/benchbot.js run \
  --repo "$demo/repo" --base demo-base --head demo-head \
  "${build[@]}" --bench ./bench.sh \
  --store "$demo/benchbot.db" \
  --max-load "${BENCHBOT_DEMO_MAX_LOAD:-8}" \
  --output text --export-markdown "$comment" "$@" || status=$?
[[ ! -s "$comment" ]] || say "the PR comment a pull request would get (markdown) is in $comment"

case "$status" in
  1)
    say "benchbot found the regression merge #14 makes, so the demo worked and exits 0; in CI the same verdict exits 1 and fails the check, which is what stops the pull request"
    exit 0
    ;;
  0)
    say "benchbot found no regression this time: this machine's noise hid the ~10% slowdown of BM_RecordHash (see the undecided rows above); run it again on a quieter machine, or with more rounds (npm run demo -- --max-runs 80)"
    exit 1
    ;;
  *)
    say "benchbot run failed (exit status $status); see the message above"
    exit 2
    ;;
esac
