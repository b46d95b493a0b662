#!/usr/bin/env bash
# Measures the disk space a full compaction gives back after JOBS jobs are enqueued and deleted.
#  1. With auto-compaction off: enqueue, DELETE /jobs, then `sluice compact`; data dir sizes.
#  2. With the default SLUICE_AUTO_COMPACT_THRESHOLD: enqueue, DELETE /jobs, and time until the
#     background compaction logs that it finished; data dir sizes.
# Usage: sluice-bench/scripts/compact-after-delete.sh   (JOBS, BATCH, PORT, ADMIN_PORT override)
set -euo pipefail
JOBS=${JOBS:-1000000}
BATCH=${BATCH:-1000}
PORT=${PORT:-17990}
ADMIN_PORT=${ADMIN_PORT:-17991}

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
sluice="$repo/bin/sluice"
work="$(mktemp -d /tmp/sluice-compact-bench.XXXXXX)"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill "$pid"; wait "$pid" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

body="$work/bulk.json"
{
  printf '{"jobs":['
  for ((i = 0; i < BATCH; i++)); do
    [ "$i" -gt 0 ] && printf ','
    printf '{"type":"send_email","queue":"emails","payload":{"user_id":%d,"template":"welcome"}}' "$i"
  done
  printf ']}'
} > "$body"

now_ms() { date +%s%3N; }
size() { du -sb "$1/data" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

start_server() { # root, then env assignments
  local root="$1"; shift
  env "$@" "$sluice" serve --root-dir "$root" --warm-up-jobs 0 --port "$PORT" \
      --admin-port "$ADMIN_PORT" > "$root.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/health" && return 0
    sleep 0.1
  done
  echo "server did not start; log:" >&2; cat "$root.log" >&2; exit 1
}

stop_server() {
  kill "$pid"; wait "$pid" || true; pid=""
}

enqueue_all() {
  local start; start=$(now_ms)
  for ((n = 0; n < JOBS; n += BATCH)); do
    curl -sf -o /dev/null -H 'Content-Type: application/json' --data-binary @"$body" \
        "http://127.0.0.1:$PORT/jobs/bulk"
  done
  echo "  enqueued $JOBS jobs in $(( $(now_ms) - start )) ms"
}

delete_all() {
  local start; start=$(now_ms)
  echo "  DELETE /jobs: $(curl -sf -X DELETE "http://127.0.0.1:$PORT/jobs") in $(( $(now_ms) - start )) ms"
}

echo "1. auto-compaction off, then sluice compact"
root="$work/manual"
start_server "$root" SLUICE_AUTO_COMPACT_THRESHOLD=0
enqueue_all
full=$(size "$root")
echo "  data dir with $JOBS jobs: $full bytes ($(mib "$full"))"
delete_all
sleep 5
deleted=$(size "$root")
echo "  data dir 5 s after the delete: $deleted bytes ($(mib "$deleted"))"
start=$(now_ms)
"$sluice" compact --url "http://127.0.0.1:$ADMIN_PORT"
echo "  sluice compact took $(( $(now_ms) - start )) ms"
compacted=$(size "$root")
echo "  data dir after sluice compact: $compacted bytes ($(mib "$compacted"))"
stop_server

echo "2. default SLUICE_AUTO_COMPACT_THRESHOLD, no command"
root="$work/auto"
start_server "$root"
enqueue_all
full=$(size "$root")
echo "  data dir with $JOBS jobs: $full bytes ($(mib "$full"))"
start=$(now_ms)
delete_all
deadline=$(( $(now_ms) + 600000 ))
until grep -q "full compaction finished" "$root.log"; do
  if grep -q "full compaction failed" "$root.log" || [ "$(now_ms)" -gt "$deadline" ]; then
    echo "automatic compaction did not finish; log:" >&2; cat "$root.log" >&2; exit 1
  fi
  sleep 0.05
done
echo "  compaction finished $(( $(now_ms) - start )) ms after the DELETE was sent"
grep "full compaction" "$root.log" | sed 's/^/  log: /'
reclaimed=$(size "$root")
echo "  data dir after the automatic compaction: $reclaimed bytes ($(mib "$reclaimed"))"
stop_server
