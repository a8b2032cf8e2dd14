#!/bin/bash
# Warm `schemaseek search ... --demo --json`, two versions of the code interleaved on one machine.
#   git worktree add /tmp/base <commit>
#   bash bench/ab_warm_demo.sh /tmp/base/src src [runs]
# Each side gets its own data and cache directories, filled by one cold run first; prints
# "side user sys wall" per run, then the CPU (user + sys) of every run per side.
set -euo pipefail
BASE_SRC=$(realpath "$1"); NEW_SRC=$(realpath "$2"); RUNS=${3:-5}
PYTHON="$(cd "$(dirname "$0")/.." && pwd)/.venv/bin/python"  # not resolved: a venv is a link
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
run() { # side src
  SCHEMASEEK_DATA_DIR="$WORK/$1/data" SCHEMASEEK_CACHE_DIR="$WORK/$1/cache" PYTHONPATH="$2" \
    /usr/bin/time -f "%U %S %e" "$PYTHON" -m schemaseek search "royalty payments for Sony" \
    --demo --json 2>&1 >/dev/null | tail -1
}
run base "$BASE_SRC" >/dev/null; run new "$NEW_SRC" >/dev/null
uptime
for _ in $(seq "$RUNS"); do
  echo "base $(run base "$BASE_SRC")"; echo "new $(run new "$NEW_SRC")"
done | awk '{print} {c[$1]=c[$1]" "($2+$3)} END{for(k in c) print k, "CPU s:", c[k]}'
uptime
