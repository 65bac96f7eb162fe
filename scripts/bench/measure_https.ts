/**
 * The list page over HTTPS against plain HTTP, per runtime: two services on the same data file
 * (copies), one with TLS_CERT_FILE and TLS_KEY_FILE (a self-signed P-256 pair made with openssl),
 * one without, each driven by wrk (1 thread, keep-alive connections: TLS costs the handshake
 * once per connection, then the record encryption per response) in interleaved rounds with a
 * rotating order, so a slow patch on the machine hits both alike. Prints medians and the ratio;
 * asserts nothing.
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_https.ts                    # 3 rounds of 5 s
 *   node_modules/.bin/deno run -A scripts/bench/measure_https.ts --runtimes=deno --rounds=1 --seconds=2
 *
 * Options: --runtimes=deno,bun,node --rounds=3 --seconds=5 --connections=64 --pets=1000.
 * Node runs the `npm run build` bundle: build it first. Needs wrk and openssl.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { writePetFile } from "./data_file.ts";
import { BENCH_KEY } from "./peers/pet_fixture.ts";
import { rate, runWrk, writeWrkScripts } from "./wrk.ts";
import {
  type RuntimeName,
  type ServiceProcess,
  startService,
  temporaryDirectory,
} from "../../test/support/server_process.ts";
import { makeCertificate } from "../../test/support/tls_pair.ts";

function option(name: string, fallback: string): string {
  const prefix = `--${name}=`;
  return process.argv.find((arg) => arg.startsWith(prefix))?.slice(prefix.length) ?? fallback;
}

const runtimes = option("runtimes", "deno,bun,node").split(",") as RuntimeName[];
const rounds = Number(option("rounds", "3"));
const seconds = Number(option("seconds", "5"));
const connections = Number(option("connections", "64"));
const pets = Number(option("pets", "1000"));
const PATH = "/v1/pets?limit=20";

function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const dir = temporaryDirectory("animal-store-https-bench-");
try {
  const pair = makeCertificate(dir.path, "bench");
  const scripts = writeWrkScripts(dir.path);
  console.log(
    `list page ${PATH}, ${pets} pets, ${rounds} rounds of ${seconds} s, ${connections} connections`,
  );
  console.log("runtime  http req/s  https req/s  https/http  (medians; errors or non-2xx flagged)");
  for (const runtime of runtimes) {
    const services: Record<"http" | "https", ServiceProcess | undefined> = {
      http: undefined,
      https: undefined,
    };
    try {
      for (const scheme of ["http", "https"] as const) {
        const dataDir = join(dir.path, `${runtime}-${scheme}`);
        mkdirSync(dataDir);
        writePetFile(dataDir, pets);
        services[scheme] = await startService({
          dataDir,
          runtime,
          env: {
            API_KEYS: BENCH_KEY,
            ...(scheme === "https"
              ? { TLS_CERT_FILE: pair.certFile, TLS_KEY_FILE: pair.keyFile }
              : {}),
          },
        });
      }
      const rates: Record<"http" | "https", number[]> = { http: [], https: [] };
      let flagged = "";
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? (["http", "https"] as const) : (["https", "http"] as const);
        for (const scheme of order) {
          const result = await runWrk({
            port: services[scheme]!.port,
            scheme,
            path: PATH,
            script: scripts.get,
            seconds,
            connections,
          });
          if (result.errors + result.non2xx > 0) {
            flagged += ` ${scheme}: ${result.errors} errors, ${result.non2xx} non-2xx;`;
          }
          rates[scheme].push(rate(result));
        }
      }
      const http = median(rates.http);
      const https = median(rates.https);
      console.log(
        `${runtime.padEnd(8)} ${http.toFixed(0).padStart(10)}  ${https.toFixed(0).padStart(11)}  ${
          (https / http).toFixed(2).padStart(10)
        }${flagged}`,
      );
    } finally {
      await services.http?.stop();
      await services.https?.stop();
    }
  }
} finally {
  dir.remove();
}
