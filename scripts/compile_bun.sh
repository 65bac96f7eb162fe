#!/usr/bin/env bash
# `npm run compile`: one self-contained executable, dist/animal-store, with `bun build --compile`.
#
# Works offline: the base of the executable is the Bun runtime that `npm ci` installed, and the
# whole service (TypeScript sources, TypeBox, every page and document it serves, which are all
# TypeScript modules) is bundled into it. Nothing is read from disk at run time but DATA_DIR and
# API_KEYS_FILE. Extra arguments go to `bun build`, e.g. `--target=bun-linux-arm64` to build for
# another platform (that one downloads the target's runtime, so it needs internet).
#
#   OUTFILE=/tmp/animal-store npm run compile   # another output path (default dist/animal-store)
set -euo pipefail
cd "$(dirname "$0")/.."

outfile=${OUTFILE:-dist/animal-store}
bun=node_modules/.bin/bun
if [ ! -x "$bun" ]; then
  echo "Cannot compile with Bun: $bun is missing; run npm ci first" >&2
  exit 1
fi
mkdir -p "$(dirname "$outfile")"

# Bun's own progress lines are noise in CI logs; on failure they are printed in full.
if ! log=$("$bun" build --compile --minify src/main.ts --outfile "$outfile" "$@" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "Cannot compile with Bun: bun build failed (see above)" >&2
  exit 1
fi
size=$(wc -c <"$outfile")
echo "$outfile: $((size / 1024 / 1024)) MiB ($size bytes), bun $("$bun" --version)"
