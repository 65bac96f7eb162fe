#!/usr/bin/env bash
# `deno task compile`: one self-contained executable, dist/animal-store-deno, with `deno compile`.
#
# The base of the executable is `denort`, Deno's runtime without the CLI, which `deno compile`
# downloads from dl.deno.land (and caches in DENO_DIR). Without internet, point DENORT_BIN at a
# denort binary of the same Deno version (the zip from the GitHub release page of that version).
#
# Permissions are compiled in: those of `deno task start` (deno.json). With DATA_DIR set (an
# absolute path), reads and writes are scoped to it: the executable may write nothing else and
# read only DATA_DIR, /proc (the data-directory lock checks whether its owner still runs) and
# API_KEYS_FILE, DATABASE_SSL_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE when those are set too. Run
# the executable with the same DATA_DIR.
#
#   deno task compile
#   DATA_DIR=/var/lib/animal-store API_KEYS_FILE=/etc/animal-store/api-keys deno task compile
#   DENORT_BIN=$HOME/denort deno task compile   # offline
#   OUTFILE=/tmp/animal-store deno task compile   # another output path
#
# node_modules is excluded except the runtime dependencies of package.json (TypeBox) and theirs:
# without that, the whole node_modules (Deno, Bun, esbuild, TypeScript: about 270 MB) would be
# embedded.
set -euo pipefail
cd "$(dirname "$0")/.."

outfile=${OUTFILE:-dist/animal-store-deno}
deno=node_modules/.bin/deno
fail() {
  echo "Cannot compile with Deno: $1" >&2
  exit 1
}
[ -x "$deno" ] || fail "$deno is missing; run npm ci first"
if [ -n "${DENORT_BIN:-}" ] && [ ! -f "$DENORT_BIN" ]; then
  fail "DENORT_BIN=$DENORT_BIN is not a file"
fi

permissions=(--allow-net --allow-env --allow-sys=hostname --allow-run)
if [ -n "${DATA_DIR:-}" ]; then
  case "$DATA_DIR" in
    /*) ;;
    *) fail "DATA_DIR must be an absolute path to scope the permissions to it, got \"$DATA_DIR\"" ;;
  esac
  readable="$DATA_DIR,/proc${API_KEYS_FILE:+,$API_KEYS_FILE}${DATABASE_SSL_CA_FILE:+,$DATABASE_SSL_CA_FILE}"
  readable+="${TLS_CERT_FILE:+,$TLS_CERT_FILE}${TLS_KEY_FILE:+,$TLS_KEY_FILE}"
  permissions+=("--allow-read=$readable" "--allow-write=$DATA_DIR")
else
  permissions+=(--allow-read --allow-write)
fi

# The runtime dependencies (package.json "dependencies") and everything they depend on.
# shellcheck disable=SC2016 # JavaScript in single quotes, expanded by node
mapfile -t packages < <(node -e '
  const { readFileSync } = require("node:fs");
  const seen = new Set();
  const visit = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) visit(dependency);
  };
  for (const name of Object.keys(require("./package.json").dependencies ?? {})) visit(name);
  console.log([...seen].join("\n"));
')
includes=()
for package in "${packages[@]}"; do
  [ -n "$package" ] && includes+=(--include "node_modules/$package")
done

mkdir -p "$(dirname "$outfile")"
status=0
log=$(NO_COLOR=1 "$deno" compile "${permissions[@]}" --exclude node_modules "${includes[@]}" \
  --output "$outfile" src/main.ts 2>&1) || status=$?
if [ "$status" -ne 0 ]; then
  # The download of denort is the one failure to expect on a machine without internet; its
  # error is a multi-line chain of causes, so say what it means and what to do in one line.
  if [ -z "${DENORT_BIN:-}" ] && grep -q "denort" <<<"$log" &&
    grep -qiE "error sending request|dns error|connect|timed out|download" <<<"$log"; then
    fail "denort could not be downloaded (no internet?); set DENORT_BIN=/path/to/denort"
  fi
  printf '%s\n' "$log" >&2
  fail "deno compile failed (see above)"
fi
printf '%s\n' "$log"
size=$(wc -c <"$outfile")
echo "$outfile: $((size / 1024 / 1024)) MiB ($size bytes), deno $("$deno" eval -p Deno.version.deno)"
