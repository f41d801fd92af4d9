#!/usr/bin/env bash
# `npm test` N runs in a row (default 10) on a fresh clone of this
# checkout's HEAD, with `npm run bench` looping beside it the whole time:
# issue 26's done-when ("npm test passes ten runs in a row with the
# machine loaded by a parallel npm run bench"). Stops at the first failing
# run. Writes each run's output and one line a run to OUT (default
# var/loaded-runs), and prints that summary at the end.
#   bash scripts/loaded-test-runs.sh [RUNS] [OUT]
set -u
RUNS="${1:-10}"
OUT="$(realpath -m "${2:-var/loaded-runs}")"
REPO="$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)"
CLONE="$(mktemp -d /tmp/loaded-runs.XXXXXX)"
# Readable by all: the Dockerfile test runs the checkout's tsx as uid 1000, as in an image.
chmod 755 "$CLONE"
mkdir -p "$OUT"
git clone -q "$REPO" "$CLONE" && cd "$CLONE" || exit 1
echo "commit $(git log --oneline -1)" > "$OUT/results"
npm ci --no-audit --no-fund > "$OUT/npm-ci.log" 2>&1 || { echo "npm ci failed: $OUT/npm-ci.log"; exit 1; }
STOP="$OUT/stop"
rm -f "$STOP"
( while [ ! -f "$STOP" ]; do npm run bench > "$OUT/bench.$(date +%s).log" 2>&1; echo "bench rc $? $(date +%T)" >> "$OUT/results"; done ) &
BENCH=$!
status=0
for i in $(seq 1 "$RUNS"); do
  start=$(date +%s)
  npm test > "$OUT/test.$i.log" 2>&1
  rc=$?
  counts=$(grep -E '^\s+[0-9]+ (passing|failing|pending)' "$OUT/test.$i.log" | tr -s ' ' | tr '\n' ' ')
  echo "run $i rc $rc $(( $(date +%s) - start ))s ${counts}load $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/results"
  if [ "$rc" -ne 0 ]; then status=1; break; fi
done
touch "$STOP"
wait "$BENCH"
cat "$OUT/results"
rm -rf "$CLONE"
exit "$status"
