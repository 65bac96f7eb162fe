/**
 * The service's resident memory (VmRSS) under br and gzip churn, the figures of docs/caching.md
 * ("Memory"): the service on TARGET_RUNTIME (deno, bun, node or executable; default deno), 15
 * pets with names of 120 characters, then `GET /v1/pets` (about 2.7 KB, compressed on every
 * request) 60,000 times in br and then 20,000 times in gzip at 3 concurrent, with `CACHE_BYTES=0`
 * and with the default. Prints RSS after start, after the br requests and after the gzip ones.
 *
 *   TARGET_RUNTIME=deno node_modules/.bin/deno run -A scripts/bench/measure_service_memory.ts
 *   TARGET_RUNTIME=bun node_modules/.bin/deno run -A scripts/bench/measure_service_memory.ts
 *   npm run build && TARGET_RUNTIME=node node_modules/.bin/deno run -A \
 *     scripts/bench/measure_service_memory.ts
 *
 * `--br=N` and `--gzip=N` change the counts.
 */
import process from "node:process";
import { addLongNamedPets, encodingChurn } from "../../test/support/encoding_churn.ts";
import { residentBytes } from "../../test/support/process_stats.ts";
import {
  startService,
  targetRuntime,
  temporaryDirectory,
} from "../../test/support/server_process.ts";

const KEY = "measure-memory-key";
const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  Number(
    args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ??
      fallback,
  );
const br = option("br", 60_000);
const gzip = option("gzip", 20_000);
const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

for (const cacheBytes of ["0", undefined]) {
  const dir = temporaryDirectory();
  const env: Record<string, string> = { API_KEYS: KEY };
  if (cacheBytes !== undefined) env.CACHE_BYTES = cacheBytes;
  const service = await startService({ dataDir: dir.path, env });
  try {
    await addLongNamedPets(service, KEY);
    const start = residentBytes(service);
    let started = performance.now();
    await encodingChurn(service, KEY, { br });
    const afterBr = residentBytes(service);
    const brSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    await encodingChurn(service, KEY, { gzip });
    const afterGzip = residentBytes(service);
    const gzipSeconds = (performance.now() - started) / 1000;
    console.log(
      `${targetRuntime()} CACHE_BYTES=${cacheBytes ?? "default"}: RSS after start ${
        mib(start)
      } MiB, ` +
        `after ${br} br ${mib(afterBr)} (${(br / brSeconds).toFixed(0)} req/s), ` +
        `after ${gzip} gzip ${mib(afterGzip)} (${(gzip / gzipSeconds).toFixed(0)} req/s)`,
    );
  } finally {
    await service.stop();
    dir.remove();
  }
}
