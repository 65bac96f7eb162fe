#!/usr/bin/env bash
# Tests every step of the Containerfile outside a container (there is no container engine here):
#   stage 1: the same build context (.dockerignore), the same `npm ci`, the same build command
#            (`npm run compile`, then `--help`);
#   stage 2: the executable needs nothing but glibc (all the distroless base has), and runs from
#            /app with the image's ENV, as the image's user (uid:gid 65532:65532, no groups, no
#            capabilities) on a data directory that user owns: /readyz answers 200, the key it
#            generates works, `healthcheck` (the HEALTHCHECK) exits 0, SIGTERM (the STOPSIGNAL)
#            exits 0 and releases the lock.
# Switching user needs root (setpriv); run as another user, it checks as that non-root user.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)

work=$(mktemp -d /tmp/animal-store-container.XXXXXX)
chmod 755 "$work"
service_pid=
cleanup() {
  if [ -n "$service_pid" ] && kill -0 "$service_pid" 2>/dev/null; then kill -KILL "$service_pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n--- %s\n' "$*"; }
fail() {
  echo "container check: FAILED: $*" >&2
  exit 1
}

step "stage 1: build context (COPY package.json package-lock.json, src, scripts/compile_bun.sh)"
mkdir -p "$work/build/scripts"
cp package.json package-lock.json "$work/build/"
cp -R src "$work/build/src"
cp scripts/compile_bun.sh "$work/build/scripts/"
cd "$work/build"

# The build stage's Node (FROM node:NN-...): the same major here checks the build as the image
# runs it (.ci/run puts it first on PATH); another one is named, not refused.
image_node=$(sed -n 's|^FROM docker\.io/library/node:\([0-9]*\)-.* AS build$|\1|p' "$root/Containerfile")
[ -n "$image_node" ] || fail "no node:NN build stage in the Containerfile"
step "stage 1: FROM node:$image_node (here: node $(node --version), npm $(npm --version))"
[ "$(node -p 'process.versions.node.split(".")[0]')" = "$image_node" ] ||
  echo "  not the image's Node $image_node: put a Node $image_node first on PATH to build as the image does"

step "stage 1: RUN npm ci --no-audit --no-fund"
npm ci --no-audit --no-fund --loglevel=error

step "stage 1: RUN npm run compile && ./dist/animal-store --help && mkdir -p /empty-data"
npm run compile --silent
./dist/animal-store --help >/dev/null
mkdir -p "$work/empty-data"

step "stage 2: the executable links only glibc (distroless base-nossl has nothing else)"
libraries=$(ldd dist/animal-store | awk '{print $1}')
while read -r library; do echo "  $library"; done <<<"$libraries"
unexpected=$(echo "$libraries" |
  grep -vE '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|/lib/ld-linux-aarch64\.so\.1|lib(c|m|pthread|dl|rt)\.so\.[0-9]+)$' || true)
[ -z "$unexpected" ] || fail "the executable needs libraries beyond glibc: $unexpected"

step "stage 2: COPY the executable to /app, the empty data directory to /data (owned 65532)"
mkdir -p "$work/image/app"
cp dist/animal-store "$work/image/app/animal-store"
cp -R "$work/empty-data" "$work/image/data"
uid=65532
gid=65532
if [ "$(id -u)" -eq 0 ]; then
  chown "$uid:$gid" "$work/image/data"
  as_image_user=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all
    --bounding-set=-all --no-new-privs)
else
  uid=$(id -u)
  gid=$(id -g)
  as_image_user=()
  echo "  (not root: running as uid $uid instead of 65532)"
fi
cd "$work/image/app"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# ENV of the image (PORT stays free here), nothing else: distroless has no HOME, no PATH to speak of.
image_env=(env -i "PORT=$port" HOST=0.0.0.0 DATA_DIR="$work/image/data" PATH=/usr/bin:/bin)

step "stage 2: ENTRYPOINT [\"/app/animal-store\"] CMD [\"serve\"] as uid $uid"
"${as_image_user[@]}" "${image_env[@]}" ./animal-store serve >"$work/serve.log" 2>&1 &
service_pid=$!
ready=
for _ in $(seq 1 100); do
  if node -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))' \
    "http://127.0.0.1:$port/readyz"; then
    ready=1
    break
  fi
  sleep 0.1
done
[ -n "$ready" ] || { cat "$work/serve.log"; fail "/readyz did not answer 200"; }
echo "  /readyz: 200"
[ "$(stat -c %u "$work/image/data/api-key")" = "$uid" ] || fail "the generated key is not owned by $uid"
[ "$(stat -c %a "$work/image/data/api-key")" = 600 ] || fail "the generated key is not mode 0600"
key=$(cat "$work/image/data/api-key")
# shellcheck disable=SC2016 # JavaScript in single quotes, expanded by node
node -e '
  const [url, key] = process.argv.slice(1);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const body = JSON.stringify({ name: "Rex", categoryId: 1 });
  fetch(url, { method: "POST", headers, body }).then(async (r) => {
    console.log(`  POST /v1/pets with the generated key: ${r.status} ${await r.text()}`);
    process.exit(r.status === 201 ? 0 : 1);
  }, (e) => { console.error(e); process.exit(1); });
' "http://127.0.0.1:$port/v1/pets" "$key" || fail "creating a pet failed"

step "stage 2: HEALTHCHECK CMD [\"/app/animal-store\", \"healthcheck\"] as uid $uid"
"${as_image_user[@]}" "${image_env[@]}" ./animal-store healthcheck || fail "healthcheck failed"
echo "  healthcheck: exit 0"

step "stage 2: STOPSIGNAL SIGTERM"
kill -TERM "$service_pid"
status=0
wait "$service_pid" || status=$?
service_pid=
[ "$status" -eq 0 ] || { cat "$work/serve.log"; fail "exit $status after SIGTERM"; }
[ ! -e "$work/image/data/animal-store.lock" ] || fail "the lock was not released"
grep -q '"msg":"stopped"' "$work/serve.log" || fail "no \"stopped\" log line"
echo "  exit 0, lock released"
"${as_image_user[@]}" "${image_env[@]}" ./animal-store verify | sed 's/^/  /'

printf '\ncontainer check: ok (%s)\n' "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo "no git")"
