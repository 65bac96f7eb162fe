#!/usr/bin/env bash
# A/B benchmark of two git revisions of the service on one runtime: both are checked out into
# temporary worktrees, started on the same 1,000-pet data file (pinned to core 0), and driven by
# wrk (core 1, 64 connections) in alternating runs, so machine noise hits both alike. Prints the
# median requests per second of each, and the median CPU time the server process spent per
# request (user + system, from /proc/<pid>/stat): on a VM whose neighbours steal time, req/s
# swing by 2× between runs, while CPU per request stays steady, so it is the figure to trust;
# then the median of each round's B ÷ A of that figure, which a drift over the rounds moves less.
# For checking that a hot-path change helps; loopback only.
#
#   bash scripts/bench/revisions.sh <rev-a> <rev-b> [deno|bun|node] [rounds] [seconds]
#   bash scripts/bench/revisions.sh HEAD~3 HEAD deno 5 3
#   ENDPOINTS="list get deep post" bash scripts/bench/revisions.sh …   # post: durable creates
#   LOG_TO=pipe bash scripts/bench/revisions.sh …   # the log into a pipe read by cat, not /dev/null
#   ENDPOINTS=get bash scripts/bench/revisions.sh ceiling HEAD bun 7 3
#     # `ceiling` stands for the get ceiling (peers/get_ceiling_server.ts, from this checkout):
#     # ours ÷ the ceiling in requests per CPU-second is the ceiling's µs ÷ ours (get only)
set -euo pipefail
cd "$(dirname "$0")/../.."
rev_a=${1:?revision A}
rev_b=${2:?revision B}
runtime=${3:-deno}
rounds=${4:-5}
seconds=${5:-3}
command -v wrk >/dev/null || { echo "Cannot benchmark: wrk is missing (apt-get install -y wrk)" >&2; exit 2; }
source scripts/bench/measure.sh
if [ "$rev_a" = ceiling ] || [ "$rev_b" = ceiling ]; then
  [ "${ENDPOINTS:-list deep}" = get ] || { echo "The ceiling answers a get only: set ENDPOINTS=get" >&2; exit 2; }
fi

root=$(pwd)
scratch=$(mktemp -d /tmp/animal-store-ab-XXXXXX)
cleanup() {
  # start() runs in a command substitution (a subshell), so the servers' pids are kept in files.
  for file in "$scratch"/*.pid; do [ -e "$file" ] && kill "$(cat "$file")" 2>/dev/null; done
  for name in a b; do git -C "$root" worktree remove --force "$scratch/$name" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT

key=bench-revisions-key
printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$key" >"$scratch/auth.lua"
{
  cat "$scratch/auth.lua"
  printf 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
  printf 'wrk.body = %s\n' "'{\"name\":\"Rex\",\"categoryId\":9007199254740993,\"status\":\"sold\"}'"
} >"$scratch/post.lua"
node -e '
  const statuses = ["available", "pending", "sold", undefined];
  let text = "";
  for (let id = 1; id <= 1000; id++) {
    const status = statuses[id % 4];
    const pet = `{"id":${id},"name":"Pet ${id}","categoryId":${id}${status ? `,"status":"${status}"` : ""}}`;
    text += `{"type":"pet","v":1,"pet":${pet}}\n`;
  }
  process.stdout.write(text);
' >"$scratch/pets.jsonl"

start() { # name revision → prints the port
  local name=$1 revision=$2 port
  if [ "$revision" = ceiling ]; then
    start_ceiling "$name"
    return
  fi
  git -C "$root" worktree add --detach "$scratch/$name" "$revision" >/dev/null 2>&1
  ln -s "$root/node_modules" "$scratch/$name/node_modules"
  mkdir -p "$scratch/data-$name" && cp "$scratch/pets.jsonl" "$scratch/data-$name/"
  port=$(free_port)
  local run=("$root/node_modules/.bin/bun" "$scratch/$name/src/main.ts")
  if [ "$runtime" = deno ]; then
    run=("$root/node_modules/.bin/deno" run -A "$scratch/$name/src/main.ts")
  elif [ "$runtime" = node ]; then
    # Node runs the esbuild bundle, as `npm run start:node` does.
    (cd "$scratch/$name" && "$root/node_modules/.bin/esbuild" src/main.ts --bundle \
      --platform=node --format=esm --target=node20 --outfile="$scratch/$name.mjs" \
      --log-level=warning)
    run=(node "$scratch/$name.mjs")
  fi
  if [ "${LOG_TO:-null}" = pipe ]; then
    # The log goes where a shipper would read it: a pipe, drained by cat on the client's core.
    PORT=$port HOST=127.0.0.1 DATA_DIR="$scratch/data-$name" API_KEYS=$key \
      taskset -c 0 "${run[@]}" > >(taskset -c 1 cat >/dev/null) 2>"$scratch/$name.stderr" &
  else
    PORT=$port HOST=127.0.0.1 DATA_DIR="$scratch/data-$name" API_KEYS=$key \
      taskset -c 0 "${run[@]}" >/dev/null 2>"$scratch/$name.stderr" &
  fi
  echo $! >"$scratch/$name.pid"
  for _ in $(seq 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "$port"
}

start_ceiling() { # name → prints the port; the bare server of peers/get_ceiling_server.ts
  local name=$1 port
  port=$(free_port)
  local run=("$root/node_modules/.bin/bun" "$root/scripts/bench/peers/get_ceiling_server.ts")
  if [ "$runtime" = deno ]; then
    run=("$root/node_modules/.bin/deno" run -A "$root/scripts/bench/peers/get_ceiling_server.ts")
  elif [ "$runtime" = node ]; then
    "$root/node_modules/.bin/esbuild" "$root/scripts/bench/peers/get_ceiling_server.ts" --bundle \
      --platform=node --format=esm --target=node20 --outfile="$scratch/$name.mjs" --log-level=warning
    run=(node "$scratch/$name.mjs")
  fi
  PORT=$port HOST=127.0.0.1 taskset -c 0 "${run[@]}" >/dev/null 2>"$scratch/$name.stderr" &
  echo $! >"$scratch/$name.pid"
  for _ in $(seq 100); do
    curl -fs -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
  echo "$port"
}

port_a=$(start a "$rev_a")
port_b=$(start b "$rev_b")
# A deep page of sold pets: the fifth `next` link, made by each revision (cursor formats may differ).
deep_page() {
  local page=/v1/pets?status=sold\&limit=20
  for _ in 1 2 3 4 5; do
    page=$(curl -fsi -H "Authorization: Bearer $key" "http://127.0.0.1:$1$page" |
      sed -n 's/^link: <\([^>]*\)>; rel="next".*/\1/ip' | tr -d '\r')
  done
  echo "$page"
}
if [ "$rev_a" != ceiling ] && [ "$rev_b" != ceiling ]; then
  deep_a=$(deep_page "$port_a")
  deep_b=$(deep_page "$port_b")
fi

measure() { # name path → "req/s µs-of-server-CPU-per-request"; path "POST" = durable creates
  local name=$1 path=$2 port_var=port_$1 pid before after output requests script=auth.lua
  if [ "$path" = POST ]; then path=/v1/pets script=post.lua; fi
  pid=$(cat "$scratch/$name.pid")
  before=$(cpu_ticks "$pid")
  output=$(taskset -c 1 wrk -t1 -c64 -d"${seconds}s" -s "$scratch/$script" \
    "http://127.0.0.1:${!port_var}$path")
  after=$(cpu_ticks "$pid")
  requests=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' <<<"$output")
  printf '%s %s\n' "$(sed -n 's/^Requests\/sec: *//p' <<<"$output")" \
    "$(us_per_request "$((after - before))" "$requests")"
}

short() { if [ "$1" = ceiling ]; then echo ceiling; else git rev-parse --short "$1"; fi; }
echo "$runtime: A=$rev_a ($(short "$rev_a")) B=$rev_b ($(short "$rev_b")), $rounds rounds × ${seconds}s, wrk -c64"
for endpoint in ${ENDPOINTS:-list deep}; do
  case $endpoint in
    list) path_a="/v1/pets?limit=20" path_b="/v1/pets?limit=20" ;;
    get) path_a=/v1/pets/500 path_b=/v1/pets/500 ;;
    deep) path_a=$deep_a path_b=$deep_b ;;
    post) path_a=POST path_b=POST ;;
  esac
  : >"$scratch/a.runs"
  : >"$scratch/b.runs"
  measure a "$path_a" >/dev/null # warm-up
  measure b "$path_b" >/dev/null
  for round in $(seq "$rounds"); do
    # Alternate who goes first, so a drift in the machine's speed does not favour one.
    if [ $((round % 2)) -eq 1 ]; then order="a b"; else order="b a"; fi
    for name in $order; do
      path_var=path_$name
      measure "$name" "${!path_var}" >>"$scratch/$name.runs"
    done
  done
  printf '%-5s A %8.0f req/s %7.2f µs CPU/req   B %8.0f req/s %7.2f µs CPU/req   (medians of %s runs)\n' \
    "$endpoint" \
    "$(cut -d' ' -f1 "$scratch/a.runs" | median)" "$(cut -d' ' -f2 "$scratch/a.runs" | median)" \
    "$(cut -d' ' -f1 "$scratch/b.runs" | median)" "$(cut -d' ' -f2 "$scratch/b.runs" | median)" \
    "$rounds"
  # Each round's B ÷ A, from runs seconds apart: a drift of the machine over the rounds cancels
  # out of each ratio, where it stays in the two medians above.
  ratios=$(paste -d' ' <(cut -d' ' -f2 "$scratch/a.runs") <(cut -d' ' -f2 "$scratch/b.runs") |
    awk '{printf "%.4f\n", $2 / $1}')
  printf '%-5s B ÷ A, CPU per request: %.3f (median of the rounds\x27 ratios; %s to %s)\n' \
    "$endpoint" "$(median <<<"$ratios")" "$(sort -n <<<"$ratios" | head -1)" \
    "$(sort -n <<<"$ratios" | tail -1)"
  if [ "$rev_a" = ceiling ] || [ "$rev_b" = ceiling ]; then
    # Requests per CPU-second are the inverse of µs per request: ours ÷ ceiling = ceiling µs ÷ ours µs.
    ceiling=a ours=b
    [ "$rev_b" = ceiling ] && ceiling=b ours=a
    awk -v c="$(cut -d' ' -f2 "$scratch/$ceiling.runs" | median)" \
      -v o="$(cut -d' ' -f2 "$scratch/$ours.runs" | median)" \
      'BEGIN {printf "      ours ÷ ceiling, per CPU-second: %.2f\n", c / o}'
  fi
done
