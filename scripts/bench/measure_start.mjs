#!/usr/bin/env node
// Start time of the service: from spawning the command to the first 200 from GET /readyz (store
// loaded, ready to serve), on an empty temporary data directory; median of 11 starts.
//
//   node scripts/bench/measure_start.mjs dist/animal-store
//   node scripts/bench/measure_start.mjs node dist/animal-store.mjs
//   node scripts/bench/measure_start.mjs node_modules/.bin/deno run -A src/main.ts
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

const command = process.argv.slice(2);
if (command.length === 0) {
  console.error("Usage: node scripts/bench/measure_start.mjs <command> [args...]");
  process.exit(2);
}
const RUNS = 11;

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function measureOnce() {
  const dataDir = mkdtempSync(join(tmpdir(), "animal-store-start-"));
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir };
  const started = performance.now();
  const child = spawn(command[0], command.slice(1), { env: { ...env, API_KEYS: "k" } });
  child.stdout.resume();
  child.stderr.resume();
  const exited = new Promise((resolve) => child.on("exit", resolve));
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) return performance.now() - started;
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited early`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const times = [];
for (let run = 0; run < RUNS; run++) times.push(await measureOnce());
times.sort((a, b) => a - b);
const ms = (value) => `${Math.round(value)} ms`;
console.log(
  `${command.join(" ")}: start to ready ${ms(times[RUNS >> 1])} median ` +
    `(min ${ms(times[0])}, max ${ms(times[RUNS - 1])}, ${RUNS} starts)`,
);
