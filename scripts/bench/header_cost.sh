#!/usr/bin/env bash
# What the headers of a reply cost the runtime alone: a bare server answering one pet's JSON with
# the four headers an as-is peer sends on a get by id, or the eleven our service sends
# (peers/get_ceiling_server.ts), driven by wrk in alternating runs (server on core 0, wrk on
# core 1, 64 connections). Prints the median CPU time per request of each, from /proc/<pid>/stat:
# the floor under any server that sends those headers on that runtime. Loopback only.
#
#   bash scripts/bench/header_cost.sh [bun|deno] [rounds] [seconds]
set -euo pipefail
cd "$(dirname "$0")/../.."
runtime=${1:-bun}
rounds=${2:-5}
seconds=${3:-3}
command -v wrk >/dev/null || { echo "Cannot benchmark: wrk is missing (apt-get install -y wrk)" >&2; exit 2; }
source scripts/bench/measure.sh
scratch=$(mktemp -d /tmp/animal-store-headers-XXXXXX)
trap 'for f in "$scratch"/*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$scratch"' EXIT

run=("$PWD/node_modules/.bin/bun")
[ "$runtime" = deno ] && run=("$PWD/node_modules/.bin/deno" run -A)
start() { # variant → prints the port
  local port
  port=$(free_port)
  HEADERS=$1 PORT=$port taskset -c 0 "${run[@]}" scripts/bench/peers/get_ceiling_server.ts >/dev/null 2>&1 &
  echo $! >"$scratch/$1.pid"
  for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
  echo "$port"
}
declare -A ports=([peer]=$(start peer) [ours]=$(start ours))

measure() { # variant → µs of server CPU per request
  local pid before after requests
  pid=$(cat "$scratch/$1.pid")
  before=$(cpu_ticks "$pid")
  requests=$(taskset -c 1 wrk -t1 -c64 -d"${seconds}s" "http://127.0.0.1:${ports[$1]}/v1/pets/500" |
    sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
  after=$(cpu_ticks "$pid")
  us_per_request "$((after - before))" "$requests"
  echo
}

measure peer >/dev/null # warm-up
measure ours >/dev/null
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 1 ]; then order="peer ours"; else order="ours peer"; fi
  for variant in $order; do measure "$variant" >>"$scratch/$variant.runs"; done
done
peer=$(median <"$scratch/peer.runs")
ours=$(median <"$scratch/ours.runs")
printf '%s: 4 headers %.2f µs CPU/req, 11 headers %.2f µs CPU/req, difference %.2f µs (medians of %s runs × %ss)\n' \
  "$runtime" "$peer" "$ours" "$(awk -v a="$ours" -v b="$peer" 'BEGIN {print a - b}')" "$rounds" "$seconds"
