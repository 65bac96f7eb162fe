#!/usr/bin/env bash
# A/B of two git revisions of the service on one runtime: both run from detached worktrees in
# interleaved rounds of the benchmark driver (`npm run bench -- --revisions=A,B`, our service
# only), so that the machine's noise hits both alike. The last table gives B ÷ A in requests per
# server CPU-second (above 1: B spends less CPU a request), the median of the rounds' ratios: a
# drift of the machine over the rounds cancels out of each ratio. Give one revision twice for the
# noise (its A/A). `ceiling` as A runs the get ceiling (peers/ceiling.ts) instead: ours ÷ it.
# An uncommitted change (an ablation) is measured by committing it on a scratch branch first.
#
#   bash scripts/bench/revisions.sh <rev-a> <rev-b> [deno|bun|node] [rounds] [seconds] [-- options]
#   bash scripts/bench/revisions.sh main HEAD bun 9 3
#   ENDPOINTS=get,create bash scripts/bench/revisions.sh HEAD HEAD deno 15 2   # the A/A noise
#   ENDPOINTS=get bash scripts/bench/revisions.sh ceiling HEAD bun 9 3
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 2 ] || { sed -n '2,13s/^# \{0,1\}//p' "$0" >&2; exit 2; }
a=$1 b=$2
shift 2
positional=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do positional+=("$1"); shift; done
[ $# -gt 0 ] && shift
servers=ours revisions=$a,$b
if [ "$a" = ceiling ]; then servers=ours,get-ceiling revisions=$b; fi
exec npm run bench --silent -- --revisions="$revisions" --servers="$servers" --mix-pets=0 \
  --runtimes="${positional[0]:-deno}" --rounds="${positional[1]:-5}" --duration="${positional[2]:-3}" \
  --endpoints="$(tr ' ' , <<<"${ENDPOINTS:-list deep}")" "$@"
