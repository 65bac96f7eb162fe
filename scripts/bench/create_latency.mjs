// Latency of durable creates from clients that pause between them (an open-ish load, where a group
// commit's wait for callers could only add latency), on one or more checkouts of the service, in
// interleaved rounds. Each client sends POST /v1/pets, reads the answer, pauses a random 0 to
// PAUSE ms, and goes again; each checkout's service runs on Deno or Bun, pinned to core 0, on an
// empty data directory. Prints, per checkout, the creates made and the mean, p50, p90 and p99
// latency in ms over all its rounds. Run it on core 1 so it does not share the service's core:
//
//   taskset -c 1 node scripts/bench/create_latency.mjs <deno|bun> <clients> <pause-ms> <seconds> <rounds> <checkout>...
//   taskset -c 1 node scripts/bench/create_latency.mjs deno 8 2 4 2 /tmp/before .
//
// Prints figures; asserts nothing. Loopback only.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const [runtime, clients, pauseMs, seconds, rounds, ...checkouts] = process.argv
  .slice(2);
if (!["deno", "bun"].includes(runtime) || checkouts.length === 0) {
  console.error(
    "usage: node scripts/bench/create_latency.mjs <deno|bun> <clients> <pause-ms> <seconds> <rounds> <checkout>...",
  );
  process.exit(2);
}
const KEY = "create-latency-key";
const BODY = JSON.stringify({ name: "Rex", categoryId: 7, status: "sold" });
const root = resolve(import.meta.dirname, "../..");

/** A free loopback port. */
function freePort() {
  return new Promise((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Starts `checkout`'s service on an empty data directory; resolves once it is ready. */
async function startService(checkout) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "create-latency-"));
  const bin = join(root, "node_modules", ".bin", runtime);
  const args = runtime === "deno" ? [bin, "run", "-A", "src/main.ts"] : [bin, "src/main.ts"];
  const child = spawn("taskset", ["-c", "0", ...args], {
    cwd: checkout,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      API_KEYS: KEY,
      PORT: String(port),
      HOST: "127.0.0.1",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once("exit", done));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let attempt = 0;; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (attempt === 100) {
      await stop();
      throw new Error(`${checkout}: the service was not ready within 10 s`);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  return { url: `http://127.0.0.1:${port}/v1/pets`, stop };
}

/** Latencies (ms) of the creates `clients` pausing clients make in `seconds`. */
async function drive(url) {
  const latencies = [];
  const end = performance.now() + Number(seconds) * 1000;
  const headers = {
    authorization: `Bearer ${KEY}`,
    "content-type": "application/json",
  };
  await Promise.all(Array.from({ length: Number(clients) }, async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: BODY,
      });
      await response.arrayBuffer();
      if (response.status !== 201) {
        throw new Error(`a create was answered ${response.status}`);
      }
      latencies.push(performance.now() - started);
      if (Number(pauseMs) > 0) {
        await new Promise((done) => setTimeout(done, Math.random() * Number(pauseMs)));
      }
    }
  }));
  return latencies;
}

const all = checkouts.map(() => []);
for (let round = 0; round < Number(rounds); round++) {
  // A rotating order, so a slow patch of the machine does not always hit the same checkout.
  for (let k = 0; k < checkouts.length; k++) {
    const index = (k + round) % checkouts.length;
    const service = await startService(resolve(checkouts[index]));
    try {
      all[index].push(...await drive(service.url));
    } finally {
      await service.stop();
    }
  }
}
console.log(
  `${runtime}: ${clients} clients pausing 0–${pauseMs} ms, ${rounds} round(s) × ${seconds} s`,
);
checkouts.forEach((checkout, index) => {
  const sorted = all[index].sort((a, b) => a - b);
  if (sorted.length === 0) {
    return console.log(`  ${checkout}: no create was made`);
  }
  const at = (share) => sorted[Math.floor(share * (sorted.length - 1))].toFixed(2);
  const mean = (sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length)
    .toFixed(2);
  console.log(
    `  ${checkout}: ${sorted.length} creates, mean ${mean} ms, p50 ${at(0.5)}, p90 ${
      at(0.9)
    }, p99 ${at(0.99)}`,
  );
});
