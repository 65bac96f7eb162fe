/**
 * The PostgreSQL store's benchmark (issue 8): creates and list pages per second with one and with
 * two service instances on one PostgreSQL database, side by side with the JSON-lines store, in
 * one run. Prints figures; asserts nothing.
 *
 *   npm run bench:postgres                              # Deno, 3 rounds of 5 s per endpoint
 *   npm run bench:postgres -- --runtime=bun --rounds=2 --duration=3
 *
 * Each round starts every configuration afresh (a new data directory, a new database on a
 * throw-away cluster from scripts/postgres_cluster.mjs, fsync on), seeds `--pets` pets through the
 * API, then drives it with `wrk` (64 keep-alive connections in all; with two instances, two wrk
 * processes of 32, one per instance, whose rates are added): durable `POST /v1/pets`, the first
 * list page (`limit=20`), and a filtered page (`status=sold&limit=20`). Configurations are
 * interleaved round by round; the table shows the median and the min–max of the rounds.
 *
 * Mind the machine: on 2 cores, the services (pinned to core 0), PostgreSQL (unpinned) and wrk
 * (core 1) share the CPUs, so two instances cannot add CPU here: the two-instance rows show what
 * coordinating through the database costs, not the scale-out a second machine would give.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { startPostgresCluster } from "../postgres_cluster.mjs";
import { BENCH_KEY } from "./peers/pet_fixture.ts";
import {
  buildNodeBundles,
  hasCommand,
  HOST,
  type Running,
  type Runtime,
  serverCommand,
  startServer,
  stopServer,
} from "./processes.ts";
import { NEW_PET_BODY, rate, runWrk, writeWrkScripts, type WrkResult } from "./wrk.ts";

const options = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, value = "true"] = arg.replace(/^--/, "").split("=");
    return [name, value];
  }),
);
const runtime = (options.runtime ?? "deno") as Runtime;
const rounds = Number(options.rounds ?? 3);
const seconds = Number(options.duration ?? 5);
const seedPets = Number(options.pets ?? 1000);
const CONNECTIONS = 64;

type Configuration = { name: string; backend: "jsonl" | "postgres"; instances: number };
const configurations: Configuration[] = [
  { name: "JSON-lines file, 1 instance", backend: "jsonl", instances: 1 },
  { name: "PostgreSQL, 1 instance", backend: "postgres", instances: 1 },
  { name: "PostgreSQL, 2 instances", backend: "postgres", instances: 2 },
];
const endpoints = [
  { name: "POST /v1/pets", path: "/v1/pets", method: "post" as const },
  { name: "GET /v1/pets?limit=20", path: "/v1/pets?limit=20", method: "get" as const },
  {
    name: "GET ?status=sold&limit=20",
    path: "/v1/pets?status=sold&limit=20",
    method: "get" as const,
  },
];

if (!hasCommand("wrk")) {
  console.error("Cannot benchmark: wrk is missing (apt-get install -y wrk)");
  process.exit(2);
}
if (runtime === "node") buildNodeBundles({});

const scratch = mkdtempSync(join(tmpdir(), "animal-store-bench-pg-"));
const scripts = writeWrkScripts(scratch);
const cluster = await startPostgresCluster();
process.on("exit", () => {
  cluster.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** results[configuration][endpoint] = one figure per round */
const results = configurations.map(() => endpoints.map(() => [] as WrkResult[]));

async function startConfiguration(configuration: Configuration, round: number) {
  const env: Record<string, string> = {};
  if (configuration.backend === "postgres") {
    const name = `bench_${round}_${configuration.instances}`;
    cluster.adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    cluster.adminSql(`CREATE DATABASE ${name}`);
    env.DATABASE_URL = cluster.adminUrl.replace(/\/postgres$/, `/${name}`);
  }
  const services: Running[] = [];
  for (let i = 0; i < configuration.instances; i++) {
    services.push(
      await startServer(serverCommand(runtime, "ours", {}), {
        kind: "ours",
        env: { ...env, DATA_DIR: mkdtempSync(join(scratch, "data-")) },
        stderrFile: join(scratch, "servers.stderr"),
      }),
    );
  }
  // Seed through the API, so both stores hold the same pets (every third one sold).
  for (let i = 0; i < seedPets; i += 50) {
    await Promise.all(
      Array.from(
        { length: Math.min(50, seedPets - i) },
        (_, j) =>
          fetch(`http://${HOST}:${services[0].port}/v1/pets`, {
            method: "POST",
            headers: { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" },
            body: `{"name":"Seed ${i + j}","categoryId":${i + j}${
              (i + j) % 3 === 0 ? ',"status":"sold"' : ""
            }}`,
          }).then((response) => response.arrayBuffer()),
      ),
    );
  }
  return services;
}

/** wrk against every instance at once, the connections split evenly; the rates are added. */
async function drive(
  services: Running[],
  endpoint: (typeof endpoints)[number],
): Promise<WrkResult> {
  const runs = await Promise.all(services.map((service) =>
    runWrk({
      port: service.port,
      path: endpoint.path,
      script: endpoint.method === "post" ? scripts.post : scripts.get,
      seconds,
      connections: CONNECTIONS / services.length,
    })
  ));
  const durationUs = Math.max(...runs.map((run) => run.durationUs));
  return {
    requests: runs.reduce((sum, run) => sum + rate(run), 0) * durationUs / 1e6,
    durationUs,
    p50Us: Math.max(...runs.map((run) => run.p50Us)),
    p99Us: Math.max(...runs.map((run) => run.p99Us)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
  };
}

console.log(
  `PostgreSQL store benchmark: ${runtime}, ${rounds} rounds × ${seconds} s per endpoint, ` +
    `${CONNECTIONS} connections, ${seedPets} seeded pets; body ${NEW_PET_BODY}`,
);
for (let round = 0; round < rounds; round++) {
  // A rotating order: a slow patch of the machine does not always hit the same configuration.
  for (let k = 0; k < configurations.length; k++) {
    const c = (round + k) % configurations.length;
    const services = await startConfiguration(configurations[c], round);
    try {
      for (const [e, endpoint] of endpoints.entries()) {
        const result = await drive(services, endpoint);
        results[c][e].push(result);
        console.log(
          `round ${round + 1}: ${configurations[c].name}, ${endpoint.name}: ` +
            `${Math.round(rate(result))} req/s, p99 ${(result.p99Us / 1000).toFixed(1)} ms` +
            (result.errors + result.non2xx > 0
              ? `, ${result.errors} errors, ${result.non2xx} non-2xx`
              : ""),
        );
      }
    } finally {
      for (const service of services) await stopServer(service);
    }
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const k = (value: number) => `${(value / 1000).toFixed(1)}k`;
console.log(`\n| configuration (${runtime}) | ${endpoints.map((e) => e.name).join(" | ")} |`);
console.log(`|---|${endpoints.map(() => "---").join("|")}|`);
for (const [c, configuration] of configurations.entries()) {
  const cells = results[c].map((runs) => {
    const rates = runs.map(rate);
    const p99 = median(runs.map((run) => run.p99Us)) / 1000;
    return `${k(median(rates))} (${k(Math.min(...rates))}–${k(Math.max(...rates))}), p99 ${
      p99.toFixed(1)
    } ms`;
  });
  console.log(`| ${configuration.name} | ${cells.join(" | ")} |`);
}
process.exit(0);
