/**
 * Bench-only entry: the service exactly as `src/commands/serve.ts` builds it (same settings,
 * keys, logger, runtime adapter and app), except that the store's file layer skips fdatasync (`no_sync_file_layer.ts`).
 * UNSAFE — a 201 is then not durable — and never shipped: `scripts/bench/bench.ts` runs it only to
 * measure the same service's POST throughput without the fdatasync, the denominator of the
 * "durable POST ≥ 0.8 of fsync off" target. Runs on Deno and Bun from source; on Node from an
 * esbuild bundle. SIGTERM/SIGINT stop it cleanly (so `--cpu-prof` can write its profile).
 */
import process from "node:process";
import { createApp } from "../../src/app.ts";
import { loadApiKeys } from "../../src/config/api_keys.ts";
import { loadConfig } from "../../src/config/config.ts";
import { KeyRing } from "../../src/http/auth.ts";
import { createJsonLogger } from "../../src/log.ts";
import { detectRuntime } from "../../src/runtime/server.ts";
import { openJsonlStore } from "../../src/store/jsonl/jsonl_store.ts";
import { noSyncFileLayer } from "./no_sync_file_layer.ts";

const runtime = await detectRuntime();
const log = createJsonLogger(runtime.output("stdout"));
const config = loadConfig(process.env);
const keys = new KeyRing(loadApiKeys(config).digests);
const app = createApp({ config, keys, log, brotli: runtime.brotliEncoder?.() });
const server = await runtime.serve({
  handle: app.handle,
  port: config.port,
  host: config.host,
});
const store = await openJsonlStore({
  dataDir: config.dataDir,
  files: noSyncFileLayer(),
  onWarning: (message) => log.warn({ msg: message }),
});
app.ready(store);
log.info({
  msg: "bench service (fsync OFF) listening",
  port: server.port,
  pets: store.size,
});

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  app.drain();
  await server.shutdown(10_000);
  await store.close();
  await log.flush();
  process.exit(0);
}
runtime.onSignal("SIGTERM", () => void stop());
runtime.onSignal("SIGINT", () => void stop());
