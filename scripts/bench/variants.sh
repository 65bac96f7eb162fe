#!/usr/bin/env bash
# Durable creates (POST /v1/pets, wrk -c64), or with ENDPOINT=get gets by id (GET /v1/pets/500), on
# several servers at once, in interleaved rounds: each argument is a checkout of the service (a
# directory with src/main.ts, edited or not: an ablation is a worktree with one duty cut out, for
# the measurement only) or a peer's .ts file (for gets, a copy of peers/get_ceiling_server.ts with
# one thing added is how a cost is priced on the bare server). Prints each one's median CPU µs per
# request and the median of its per-round ratio to the first argument: runs of one round are
# seconds apart, so the machine's drift cancels out of each ratio. Give the first twice for the
# noise (its A/A ratio). revisions.sh does the same for two git revisions.
#
#   bash scripts/bench/variants.sh <deno|bun> <rounds> <seconds> <checkout|peer.ts>...
#   bash scripts/bench/variants.sh bun 20 2 . . /tmp/no-log scripts/bench/peers/group_commit_server.ts
#   ENDPOINT=get bash scripts/bench/variants.sh deno 9 3 scripts/bench/peers/get_ceiling_server.ts /tmp/reads.ts .
set -euo pipefail
cd "$(dirname "$0")/../.."
runtime=${1:?deno or bun}
rounds=${2:?rounds}
seconds=${3:?seconds}
shift 3
endpoint=${ENDPOINT:-post}
[ "$endpoint" = post ] || [ "$endpoint" = get ] || { echo "ENDPOINT is post or get" >&2; exit 2; }
command -v wrk >/dev/null || { echo "Cannot benchmark: wrk is missing (apt-get install -y wrk)" >&2; exit 2; }
source scripts/bench/measure.sh

root=$(pwd)
# The peers accept only their fixture's key (peers/pet_fixture.ts); ours is given it as API_KEYS.
key=bench-key-0123456789abcdef
scratch=$(mktemp -d /tmp/animal-store-variants-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

node -e '
  let text = "";
  for (let id = 1; id <= 1000; id++) {
    text += `{"type":"pet","v":1,"pet":{"id":${id},"name":"Pet ${id}","categoryId":${id}}}\n`;
  }
  process.stdout.write(text);
' >"$scratch/pets.jsonl"
cat >"$scratch/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"name":"Rex","categoryId":9007199254740991,"status":"available"}'
LUA

ports=()
for i in $(seq 0 $(($# - 1))); do
  target=${*:$((i + 1)):1}
  if [[ $target == *.ts ]]; then file=$(realpath "$target"); else file=$(realpath "$target")/src/main.ts; fi
  # The peers resolve their frameworks through this checkout's deno.json.
  run=("$root/node_modules/.bin/bun" "$file")
  [ "$runtime" = deno ] && run=("$root/node_modules/.bin/deno" run -A --config "$root/deno.json" "$file")
  mkdir -p "$scratch/data-$i" && cp "$scratch/pets.jsonl" "$scratch/data-$i/"
  port=$(free_port)
  PORT=$port HOST=127.0.0.1 DATA_DIR="$scratch/data-$i" API_KEYS=$key \
    taskset -c 0 "${run[@]}" >/dev/null 2>"$scratch/$i.stderr" &
  pids+=($!)
  ports+=("$port")
done
printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$key" >"$scratch/get.lua"
for port in "${ports[@]}"; do
  ready=false
  for _ in $(seq 100); do
    if [ "$endpoint" = post ]; then
      curl -fs -o /dev/null -X POST -H "Authorization: Bearer $key" -H "Content-Type: application/json" \
        -d '{"name":"a","categoryId":1}' "http://127.0.0.1:$port/v1/pets" && ready=true && break
    else
      curl -fs -o /dev/null -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/pets/500" &&
        ready=true && break
    fi
    sleep 0.1
  done
  $ready || { echo "Cannot measure: nothing answered on port $port within 10 s" >&2; exit 1; }
done
path=/v1/pets
[ "$endpoint" = get ] && path=/v1/pets/500

count=${#pids[@]}
for round in $(seq 0 "$rounds"); do # round 0 warms up
  # Alternate the order, so a drift in the machine's speed does not favour one.
  order=$(seq 0 $((count - 1)))
  [ $((round % 2)) -eq 1 ] && order=$(seq $((count - 1)) -1 0)
  for i in $order; do
    before=$(cpu_ticks "${pids[$i]}")
    output=$(taskset -c 1 wrk -t1 -c64 -d"${seconds}s" -s "$scratch/$endpoint.lua" \
      "http://127.0.0.1:${ports[$i]}$path")
    after=$(cpu_ticks "${pids[$i]}")
    requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$output")
    if grep -q "Non-2xx" <<<"$output"; then
      echo "Cannot measure ${*:$((i + 1)):1}: it answered errors ($(grep Non-2xx <<<"$output"))" >&2
      exit 1
    fi
    [ "$round" -gt 0 ] && us_per_request "$((after - before))" "$requests" >>"$scratch/$i.runs" && echo >>"$scratch/$i.runs"
  done
done
echo "$runtime: $rounds rounds × ${seconds}s, wrk -c64, $([ "$endpoint" = post ] && echo "durable POST" || echo "GET $path")"
for i in $(seq 0 $((count - 1))); do
  ratio=$(paste -d' ' "$scratch/0.runs" "$scratch/$i.runs" | awk '{printf "%.4f\n", $2 / $1}' | median)
  printf '%-60s %7.2f µs CPU/request   ÷ first %.3f\n' "${*:$((i + 1)):1}" \
    "$(median <"$scratch/$i.runs")" "$ratio"
done
