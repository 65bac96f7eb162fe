/**
 * What HTTP caching buys, per runtime, on one data file: a 304's rate against its 200's, a
 * cached gzip (and br) page's rate against identity, and the RSS with the response cache filled.
 * Prints figures; asserts nothing. Needs `wrk`; pins the service to core 0 and wrk to core 1
 * when `taskset` and two cores are there (as scripts/bench.ts does).
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_caching.ts                       # 1 M pets
 *   node_modules/.bin/deno run -A scripts/bench/measure_caching.ts --pets=10000 --duration=2 --quick
 *
 * Options: --runtimes=deno,bun,node --pets=1000000 --duration=5 --connections=64
 * --cache-bytes=<CACHE_BYTES, default: the service's default> --quick (fill only 200 pages).
 *
 * Node runs the `npm run build` bundle, made here into a temporary directory. The 200 and 304
 * are measured on the first full page of 20 (immutable, so served from the cache), the codings
 * on the first full page of 100. "RSS filled" is after walking every page of 100 in identity,
 * gzip and br, each asked for twice (the second request admits it), which fills the default
 * 64 MiB cache at 1 M pets (10 000 pages of about 7 KB).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { writePetFile } from "./data_file.ts";
import { BENCH_KEY } from "./peers/pet_fixture.ts";
import {
  HOST,
  memoryOf,
  type Runtime,
  serverCommand,
  startServer,
  stopServer,
} from "./processes.ts";
import { rate, runWrk, writeWrkScripts } from "./wrk.ts";

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const [name, value] = arg.replace(/^--/, "").split("=");
    return [name, value ?? "true"] as const;
  }),
);
const runtimes = (args.get("runtimes") ?? "deno,bun,node").split(",") as Runtime[];
const pets = Number(args.get("pets") ?? 1_000_000);
const seconds = Number(args.get("duration") ?? 5);
const connections = Number(args.get("connections") ?? 64);
const quick = args.has("quick");
const cacheBytes = args.get("cache-bytes");

/** One GET with node:http: the status, headers and body length as sent (no decompression). */
function get(port: number, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; etag: string | undefined; bytes: number; link?: string }>(
    (resolve, reject) => {
      const outgoing = request(
        { host: HOST, port, path, headers: { authorization: `Bearer ${BENCH_KEY}`, ...headers } },
        (incoming) => {
          let bytes = 0;
          incoming.on("data", (chunk: Buffer) => (bytes += chunk.byteLength));
          incoming.on("end", () =>
            resolve({
              status: incoming.statusCode ?? 0,
              etag: incoming.headers.etag,
              bytes,
              link: String(incoming.headers.link ?? ""),
            }));
          incoming.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end();
    },
  );
}

/** A wrk GET script that sends `headers` besides the key. */
function scriptWith(dir: string, name: string, headers: Record<string, string>): string {
  const base = readFileSync(writeWrkScripts(dir).get, "utf8");
  const lines = Object.entries(headers)
    .map(([header, value]) => `wrk.headers["${header}"] = ${JSON.stringify(value)}\n`).join("");
  const path = join(dir, `${name}.lua`);
  writeFileSync(path, lines + base);
  return path;
}

async function measure(port: number, path: string, script: string): Promise<string> {
  await runWrk({ port, path, script, seconds: 1, connections }); // warm-up
  const result = await runWrk({ port, path, script, seconds, connections });
  const note = result.non2xx > 0 ? ` (${result.non2xx} outside 2xx/3xx)` : "";
  return `${Math.round(rate(result))} req/s, p99 ${(result.p99Us / 1000).toFixed(2)} ms${note}`;
}

const work = mkdtempSync(join(tmpdir(), "animal-store-caching-"));
try {
  const dataDir = join(work, "data");
  execFileSync("mkdir", ["-p", dataDir]);
  console.log(`writing ${pets} pets…`);
  writePetFile(dataDir, pets);
  let nodeBundle: string | undefined;
  if (runtimes.includes("node")) {
    nodeBundle = join(work, "animal-store.mjs");
    execFileSync(join("node_modules", ".bin", "esbuild"), [
      "src/main.ts",
      "--bundle",
      "--platform=node",
      "--format=esm",
      "--target=node20",
      `--outfile=${nodeBundle}`,
      "--log-level=warning",
    ], { stdio: "inherit" });
  }
  for (const runtime of runtimes) {
    const command = runtime === "node" ? ["node", nodeBundle!] : serverCommand(runtime, "ours", {});
    const env: Record<string, string> = { DATA_DIR: dataDir };
    if (cacheBytes !== undefined) env.CACHE_BYTES = cacheBytes;
    const server = await startServer(command, {
      kind: "ours",
      env,
      stderrFile: join(work, `${runtime}.stderr`),
      timeoutMs: 180_000,
    });
    try {
      const { port } = server;
      console.log(`\n${runtime}: ready in ${Math.round(server.readyMs)} ms`);
      console.log(`  RSS after start: ${memoryOf(server.pid)?.rssMb.toFixed(0)} MB`);
      const dir = mkdtempSync(join(work, "wrk-"));
      const page20 = "/v1/pets?limit=20";
      const first = await get(port, page20);
      const plain = scriptWith(dir, "plain", {});
      const conditional = scriptWith(dir, "conditional", { "If-None-Match": first.etag! });
      const check = await get(port, page20, { "if-none-match": first.etag! });
      console.log(`  200 of ${page20} (${first.bytes} B): ${await measure(port, page20, plain)}`);
      console.log(
        `  304 of ${page20} (status ${check.status}): ${await measure(port, page20, conditional)}`,
      );
      const page100 = "/v1/pets?limit=100";
      for (const coding of ["identity", "gzip", "br"]) {
        const headers: Record<string, string> = coding === "identity"
          ? {}
          : { "Accept-Encoding": coding };
        const sample = await get(port, page100, headers);
        const script = scriptWith(dir, `page100-${coding}`, headers);
        console.log(
          `  ${coding.padEnd(8)} ${page100} (${sample.bytes} B): ${await measure(
            port,
            page100,
            script,
          )}`,
        );
      }
      // Fill the cache: every page of 100, in each coding, each asked for twice.
      const started = performance.now();
      let pages = 0;
      for (const coding of ["identity", "gzip", "br"]) {
        let path: string | undefined = page100;
        const headers: Record<string, string> = coding === "identity"
          ? {}
          : { "accept-encoding": coding };
        while (path !== undefined && !(quick && pages >= 200)) {
          // Twice: a page enters the cache the second time it is asked for (cache/admission.ts).
          await get(port, path, headers);
          const response = await get(port, path, headers);
          pages += 2;
          const next = /<([^>]+)>; rel="next"/.exec(response.link ?? "")?.[1];
          path = next === undefined ? undefined : next.slice(next.indexOf("/v1/"));
        }
      }
      const memory = memoryOf(server.pid);
      console.log(
        `  RSS after ${pages} page requests (cache filled) in ${
          Math.round((performance.now() - started) / 1000)
        } s: ${memory?.rssMb.toFixed(0)} MB (peak ${memory?.peakMb.toFixed(0)} MB)`,
      );
    } finally {
      await stopServer(server);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
