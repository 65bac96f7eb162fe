/**
 * Soak test, loopback only and bounded: starts the service on one runtime (the test suites'
 * `startService`, on a temporary data directory), runs many clients doing mixed reads and
 * writes for a fixed time (and at most a fixed number of requests), then reports errors (must
 * be 0), latency percentiles and the server's RSS at start and end (/proc/<pid>/status VmRSS).
 *
 *   deno run -A scripts/soak.ts --runtime deno --seconds 60 [--clients 32] [--max-requests N]
 *     [--writes 20]  (percent of creates; 0 = read-only)
 *   (node: `npm run build` first; --minutes 10 for a longer run)
 *
 * Exits 1 when any request failed.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import {
  type RuntimeName,
  startService,
  temporaryDirectory,
} from "../test/support/server_process.ts";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
}

const runtime = flag("runtime", "deno") as RuntimeName;
const minutes = Number(flag("minutes", "0"));
const seconds = minutes > 0 ? minutes * 60 : Number(flag("seconds", "60"));
const clients = Number(flag("clients", "32"));
const maxRequests = Number(flag("max-requests", "5000000"));
/** Share of creates, in percent; `--writes 0` is a read-only soak (RSS must stay flat). */
const writePercent = Number(flag("writes", "20"));
const KEY = "soak-key";

function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

const dir = temporaryDirectory("animal-store-soak-");
const service = await startService({ dataDir: dir.path, env: { API_KEYS: KEY }, runtime });
const pid = service.child.pid!;
const headers = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

const latencies = new Float64Array(maxRequests);
let count = 0;
let errors = 0;
const errorSamples: string[] = [];
/** Ids answered 201, so reads ask only for pets known to exist. */
const ids: number[] = [];
let stop = false;

async function one(kind: number, n: number): Promise<void> {
  const started = performance.now();
  let expected = 200;
  let response: Response;
  try {
    if (kind < writePercent) { // kind -1: always a create (warm-up)
      expected = 201;
      response = await fetch(`${service.url}/v1/pets`, {
        method: "POST",
        headers: n % 5 === 0 ? { ...headers, "idempotency-key": `soak-${n}` } : headers,
        body: JSON.stringify({
          name: `soak-${n}`,
          categoryId: n,
          status: ["available", "pending", "sold"][n % 3],
        }),
      });
    } else if (kind < writePercent + 10 && ids.length > 0) {
      response = await fetch(`${service.url}/v1/pets/${ids[n % ids.length]}`, { headers });
    } else {
      const status = ["", "&status=available", "&status=sold"][n % 3];
      response = await fetch(`${service.url}/v1/pets?limit=${1 + (n % 100)}${status}`, { headers });
    }
    const body = await response.text();
    if (response.status === 201) ids.push(JSON.parse(body).id);
  } catch (error) {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(String(error));
    return;
  }
  if (response.status !== expected) {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(`status ${response.status} (kind ${kind})`);
    return;
  }
  if (count < maxRequests) latencies[count++] = performance.now() - started;
}

async function client(id: number): Promise<void> {
  for (let n = id; !stop && count < maxRequests; n += clients) await one(n % 100, n);
}

// Warm up (JIT, first file writes, some pets to read) before the starting RSS is taken.
for (let n = 0; n < 1000; n++) await one(n % 5 === 0 ? -1 : 99, n);
count = 0;
const rssStart = rssKiB(pid);
const samples: number[] = [rssStart];
const sampler = setInterval(() => samples.push(rssKiB(pid)), 10_000);
const started = performance.now();
const timer = setTimeout(() => (stop = true), seconds * 1000);
await Promise.all(Array.from({ length: clients }, (_, id) => client(id)));
clearTimeout(timer);
clearInterval(sampler);
const elapsed = (performance.now() - started) / 1000;
const rssEnd = rssKiB(pid);
const exit = await service.stop();
dir.remove();

const sorted = latencies.slice(0, count).sort();
const ms = (value: number) => `${value.toFixed(2)} ms`;
const report = {
  runtime,
  seconds: Math.round(elapsed),
  clients,
  writePercent,
  requests: count,
  requestsPerSecond: Math.round(count / elapsed),
  errors,
  p50: ms(percentile(sorted, 0.5)),
  p99: ms(percentile(sorted, 0.99)),
  max: ms(sorted[sorted.length - 1] ?? 0),
  rssStartMiB: +(rssStart / 1024).toFixed(1),
  rssEndMiB: +(rssEnd / 1024).toFixed(1),
  rssSamplesMiB: samples.map((kib) => +(kib / 1024).toFixed(0)),
  petsCreated: ids.length,
  exit,
};
console.log(JSON.stringify(report));
if (errorSamples.length > 0) console.error(`first errors: ${errorSamples.join("; ")}`);
process.exit(errors === 0 && exit === 0 ? 0 : 1);
