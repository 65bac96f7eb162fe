/**
 * How fast this machine's disk makes a small append durable, and whether two fdatasyncs in flight
 * at once overlap: the facts behind the store writer's group commit, which keeps one batch on its
 * way to disk at a time (src/store/jsonl/writer.ts; two overlapped, and cost more CPU per create). Each loop writes 3,000 bytes at the end of a scratch file and
 * fdatasyncs it, through node:fs/promises as the store does. Prints syncs per second, their
 * latency, and the process CPU (user + system, all threads) per write + fdatasync: the fixed cost
 * of one batch, which a bigger batch spreads over more creates. Prints figures; asserts nothing.
 *
 *   node scripts/bench/fsync.mjs [directory] [seconds]          # default: the system temp dir, 3 s
 *   node_modules/.bin/deno run -A scripts/bench/fsync.mjs
 *   node_modules/.bin/bun scripts/bench/fsync.mjs
 *
 * Point it at the disk that will hold DATA_DIR: a temp dir may be a different file system.
 */
import { open, rm } from "node:fs/promises";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const directory = mkdtempSync(join(process.argv[2] ?? tmpdir(), "animal-store-fsync-"));
const seconds = Number(process.argv[3] ?? 3);
const line = new Uint8Array(3000).fill(0x41);

/** `loops` write+fdatasync loops on one file for `seconds`; returns syncs/s and latencies. */
async function measure(loops) {
  const path = join(directory, `loops-${loops}.bin`);
  const file = await open(path, "w+");
  let position = 0;
  const latencies = [];
  const end = performance.now() + seconds * 1000;
  const cpuBefore = process.cpuUsage();
  const loop = async () => {
    while (performance.now() < end) {
      const at = position;
      position += line.length;
      await file.write(line, 0, line.length, at);
      const started = performance.now();
      await file.datasync();
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  // The whole process's CPU (every thread): a sync's system time is the writer's cost per batch.
  const cpu = process.cpuUsage(cpuBefore);
  await file.close();
  await rm(path);
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.floor(q * (latencies.length - 1))].toFixed(3);
  const cpuMicros = ((cpu.user + cpu.system) / latencies.length).toFixed(0);
  return { perSecond: latencies.length / seconds, p50: at(0.5), p90: at(0.9), cpuMicros };
}

const runtime = globalThis.Deno ? "deno" : globalThis.Bun ? "bun" : "node";
console.log(`${runtime}: 3,000-byte write + fdatasync loops on ${directory}, ${seconds} s each`);
try {
  for (const loops of [1, 2, 4]) {
    const result = await measure(loops);
    console.log(
      `  ${loops} loop(s) at once: ${result.perSecond.toFixed(0).padStart(6)} fdatasyncs/s` +
        `  (each: p50 ${result.p50} ms, p90 ${result.p90} ms, ${result.cpuMicros} µs CPU)`,
    );
  }
} finally {
  await rm(directory, { recursive: true, force: true });
}
