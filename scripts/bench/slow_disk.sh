#!/usr/bin/env bash
# Durable creates on a slow disk: the service of this checkout runs under strace, which makes each
# fdatasync return DELAY_MS later (only fdatasync stops the service: --seccomp-bpf), and wrk sends
# creates on 64 connections. Prints creates/s and the batch sizes (`animal_store_jsonl_batch_size`,
# from /metrics) of the measured run: with one batch per fdatasync, 64 / delay creates a second.
# Needs strace and ptrace (root, or CAP_SYS_PTRACE); loopback only.
#
#   bash scripts/bench/slow_disk.sh [deno|bun|node] [seconds] [delay-ms]
#   bash scripts/bench/slow_disk.sh deno 10 200
set -euo pipefail
cd "$(dirname "$0")/../.."
runtime=${1:-deno}
seconds=${2:-10}
delay_ms=${3:-200}
for tool in wrk strace; do
  command -v "$tool" >/dev/null || { echo "Cannot measure: $tool is missing (apt-get install -y $tool)" >&2; exit 2; }
done
source scripts/bench/measure.sh

root=$(pwd)
scratch=$(mktemp -d /tmp/animal-store-slow-disk-XXXXXX)
cleanup() {
  # strace blocks fatal signals while it runs a command: the service itself is signalled.
  if [ -e "$scratch/strace.pid" ]; then
    local children
    children=$(cat "/proc/$(cat "$scratch/strace.pid")/task/$(cat "$scratch/strace.pid")/children" 2>/dev/null || true)
    for pid in $children; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

key=bench-slow-disk-key
{
  printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$key"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
  printf 'wrk.body = %s\n' "'{\"name\":\"Rex\",\"categoryId\":9007199254740993,\"status\":\"sold\"}'"
} >"$scratch/post.lua"

run=("$root/node_modules/.bin/bun" "$root/src/main.ts")
if [ "$runtime" = deno ]; then
  run=("$root/node_modules/.bin/deno" run -A "$root/src/main.ts")
elif [ "$runtime" = node ]; then
  "$root/node_modules/.bin/esbuild" src/main.ts --bundle --platform=node --format=esm \
    --target=node20 --outfile="$scratch/service.mjs" --log-level=warning
  run=(node "$scratch/service.mjs")
fi
port=$(free_port)
PORT=$port HOST=127.0.0.1 DATA_DIR="$scratch/data" API_KEYS=$key METRICS=on \
  strace -f -qq --seccomp-bpf -e trace=fdatasync -e "inject=fdatasync:delay_exit=$((delay_ms * 1000))" \
  -o /dev/null "${run[@]}" >/dev/null 2>"$scratch/stderr" &
echo $! >"$scratch/strace.pid"
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done

# The batch-size samples of a scrape: "le=count" pairs, then the sum and the count.
batch_sizes() {
  curl -fs -H "Authorization: Bearer $key" "http://127.0.0.1:$port/metrics" |
    sed -n 's/^animal_store_jsonl_batch_size_bucket{le="\([^"]*\)"} \(.*\)/\1 \2/p; s/^animal_store_jsonl_batch_size_\(sum\|count\) \(.*\)/\1 \2/p'
}

# A warm-up first: the first create goes alone, and the batches settle in the next syncs.
wrk -t1 -c64 -d2s -s "$scratch/post.lua" "http://127.0.0.1:$port/v1/pets" >/dev/null
batch_sizes >"$scratch/before"
output=$(wrk -t1 -c64 -d"${seconds}s" -s "$scratch/post.lua" "http://127.0.0.1:$port/v1/pets")
batch_sizes >"$scratch/after"

echo "$runtime, fdatasync +${delay_ms} ms, wrk -c64 ${seconds}s: $(sed -n 's/^Requests\/sec: *//p' <<<"$output") creates/s (one batch per fdatasync: $((64 * 1000 / delay_ms))/s)"
# Batches of the measured run per size range, from the histogram's cumulative buckets.
paste -d' ' "$scratch/before" "$scratch/after" | awk '
  $1 == "sum" { creates = $4 - $2; next }
  $1 == "count" { batches = $4 - $2; next }
  { count = $4 - $2
    if (count > previous) printf "  batches of %s: %d\n", (low == $1 ? low : low "–" $1), count - previous
    previous = count; low = ($1 == "+Inf") ? "" : $1 + 1 }
  BEGIN { low = 1 }
  END { if (batches > 0) printf "  %d creates in %d batches: %.1f per batch\n", creates, batches, creates / batches }'
