#!/usr/bin/env bash
# make-demo-repo.sh builds the demo's fixture repository: a small C++ Google
# Benchmark suite (fixtures/demo-repo/commits/*, copied in as overlays) with a
# history of pull-request merges on main, exactly one of which (#14) makes one
# benchmark (BM_RecordHash) about 10% slower.
#
#   scripts/make-demo-repo.sh [--node] DIR
#
# --node builds the same history from fixtures/demo-repo/node-commits/*: the
# suite written for Node.js, for machines without a C++ toolchain (npm run
# demo picks it when g++, make or Google Benchmark are missing).
#
# DIR is wiped and recreated (only if it is empty or a repository this
# script made). Authors, dates and content are fixed, and no global or system
# git config is read, so the commit SHAs are the same on every machine with
# the same git object format. Tags:
#   v1         the initial commit
#   demo-base  merge of #13, the last merge before the regression
#   demo-head  merge of #14, the regression (base..head is that one PR)
# main ends at the merge of #16. The tags' SHAs are printed at the end, one
# `name sha` a line.
set -euo pipefail

variant=commits
if [[ "${1:-}" == --node ]]; then
  variant=node-commits
  shift
fi
if [[ $# -ne 1 || -z "$1" ]]; then
  echo "usage: $0 [--node] DIR" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
templates="$root/fixtures/demo-repo/$variant"
dir="$1"

# Nothing from the user's or the machine's git config (signing, hooks,
# merge.ff, init templates) may change what gets built.
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_TERMINAL_PROMPT=0 LC_ALL=C TZ=UTC
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# The wipe only ever removes an empty folder or a repository this script made.
if [[ -e "$dir" ]] && [[ -n "$(ls -A "$dir" 2>/dev/null)" ]] &&
  ! grep -qs 'maintainer@recordkit.example' "$dir/.git/config"; then
  echo "make-demo-repo.sh: $dir exists and is not a demo repository made by this script; not wiping it" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
git -c init.defaultBranch=main init -q --template= "$dir"
g() { git -C "$dir" "$@"; }
g config user.name "Maintainer"
g config user.email "maintainer@recordkit.example"
g config commit.gpgsign false
g config tag.gpgsign false
g config core.autocrlf false
g config core.fileMode true

# Every commit is one hour after the previous one, from 2024-03-04 09:00 UTC.
clock=1709542800
tick() {
  clock=$((clock + 3600))
  export GIT_AUTHOR_DATE="$clock +0000" GIT_COMMITTER_DATE="$clock +0000"
}

# commit AUTHOR OVERLAY MESSAGE: copies fixtures/demo-repo/commits/OVERLAY over
# the work tree and commits everything as AUTHOR ("Name <email>").
commit() {
  local author="$1" overlay="$2" message="$3"
  [[ -d "$templates/$overlay" ]] || { echo "make-demo-repo.sh: no overlay $templates/$overlay" >&2; exit 1; }
  cp -R "$templates/$overlay/." "$dir/"
  # The mode in the template checkout may have been lost (zip download, core.fileMode=false).
  [[ ! -f "$dir/bench.sh" ]] || chmod 755 "$dir/bench.sh"
  tick
  g add -A
  g commit -q --author="$author" -m "$message"
}

# pr NUMBER BRANCH TITLE AUTHOR OVERLAY:MESSAGE...: one pull request, merged
# into main the way GitHub's merge button does (--no-ff, "Merge pull request").
pr() {
  local number="$1" branch="$2" title="$3" author="$4"
  shift 4
  g checkout -q -b "$branch" main
  local step
  for step in "$@"; do commit "$author" "${step%%:*}" "${step#*:}"; done
  g checkout -q main
  tick
  g merge -q --no-ff --no-edit -m "Merge pull request #$number from $branch" -m "$title" "$branch"
  g branch -q -D "$branch"
}

ana="Ana Lima <ana@recordkit.example>"
bo="Bo Chen <bo@recordkit.example>"
chidi="Chidi Okafor <chidi@recordkit.example>"
dana="Dana Weiss <dana@recordkit.example>"

commit "$ana" 00-initial "Initial benchmark suite: sum, sort, strings, search, hash"
g tag v1

pr 11 dev/readme-usage "Document how to build and run the suite" "$ana" \
  "11-readme-usage:README: how to build and run the suite"
pr 12 dev/matrix-bench "Add a matrix multiply benchmark" "$bo" \
  "12-matrix-bench:Add BM_MatMul, a 48x48 double matrix product" \
  "12-matrix-readme:README: list the benchmarks"
pr 13 dev/hash-tests "Known-answer tests for FNV-1a" "$chidi" \
  "13-hash-header-file:hash: move fnv1a into hash.h" \
  "13-hash-tests:Add make check with FNV-1a known-answer tests"
g tag demo-base
# The regression: record_digest hashes the first tenth of the record twice.
pr 14 dev/header-digest "Seed record digests with a header digest" "$dana" \
  "14-header-digest:hash: seed the record digest with a header digest" \
  "14-digest-readme:README: describe record digests"
g tag demo-head
pr 15 dev/sort-comments "Explain BM_SortInts's input" "$ana" \
  "15-sort-comments:sort: explain the copy, rename work to scratch"
pr 16 dev/contributing "Contributing notes" "$bo" \
  "16-contributing:Add CONTRIBUTING with benchmarking rules" \
  "16-gitignore:.gitignore: perf data"

for ref in v1 demo-base demo-head main; do
  echo "$ref $(g rev-parse "$ref^{commit}")"
done
