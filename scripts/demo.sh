#!/usr/bin/env bash
# `npm run demo`: builds the demo repository (a small C++ Google Benchmark
# suite whose merge #14 makes BM_RecordHash ~10% slower), then runs the real
# A/B that a pull request would get: benchbot run base vs head on this
# machine, stored in the embedded SQLite store, reported as the PR comment.
set -euo pipefail
cd "$(dirname "$0")/.."
demo="${BENCHBOT_DEMO_DIR:-.benchbot-demo}"
bash scripts/make-demo-repo.sh "$demo/repo" >/dev/null
echo "demo repository: $demo/repo (base = merge #13, head = merge #14)" >&2
# A laptop or a shared box is rarely idle: the demo tolerates more load than
# benchbot's default guard (0.5 + 10% of cores), which suits a dedicated runner.
exec node bin/benchbot.js run \
  --repo "$demo/repo" --base demo-base --head demo-head \
  --build 'make -s' --bench ./bench.sh \
  --store "$demo/benchbot.db" \
  --max-load "${BENCHBOT_DEMO_MAX_LOAD:-8}" \
  --output markdown "$@"
