/**
 * The PostgreSQL store's benchmark (issues 8 and 28): creates and list pages per second of our
 * service with one and with two instances on one database, against the same-work peer a user
 * would put on PostgreSQL instead — Hono on Bun and Deno, Fastify on Node
 * (`peers/hono_postgres_app.ts`, `peers/fastify_postgres_server.ts`, their database access in
 * `peers/pet_table.ts`) — all on one throw-away cluster. Prints figures and verdicts, writes the
 * chart `docs/performance-postgres.svg`; asserts nothing.
 *
 *   npm run bench:postgres                                  # Deno, 3 rounds of 5 s per figure
 *   npm run bench:postgres -- --runtime=bun --rounds=1 --duration=2
 *
 * Options: --runtime=deno|bun|node --rounds=3 --duration=5 --warmup=1 --pets=1000
 * --clients=1,16,64 --chart=FILE (default docs/performance-postgres.svg) --no-chart --json=FILE
 * --label=TEXT (added to the chart's subtitle, e.g. "smoke run, loaded machine")
 *
 * Each round starts every configuration afresh (a new database on the cluster from
 * scripts/postgres_cluster.mjs, fsync on), seeds `--pets` pets through the API (every third one
 * sold), checks that it does the contract's duties (401 without a key, 400 for a bad body, 201
 * with `Location`, an `Idempotency-Key` replayed and refused for another body, the next page's
 * `Link`), then drives it with `wrk` at each client count: durable `POST /v1/pets`, then the
 * first list page (`limit=20`). With two instances the clients are split between them (one
 * client goes to the first); their rates are added. Configurations rotate round by round; the
 * table shows medians.
 *
 * Each figure is given three ways: requests per second, per second of the service's CPU (its
 * processes, user + system, from /proc/<pid>/stat) and per second of the database's CPU (the
 * postmaster and every process it forked, exited backends included: `postgres_cpu.ts`).
 *
 * Mind the machine: on 2 cores the services (pinned to core 0), PostgreSQL (unpinned) and wrk
 * (core 1) share the CPUs, so two instances cannot add CPU here: the two-instance rows show what
 * coordinating through the database costs, not the scale-out a second machine would give.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { startPostgresCluster } from "../postgres_cluster.mjs";
import { type ChartGroup, renderChart } from "./chart.ts";
import { cpuSecondsOf } from "./machine_load.ts";
import { BENCH_KEY } from "./peers/pet_fixture.ts";
import { postgresCpuSeconds, postmasterPidOf } from "./postgres_cpu.ts";
import {
  buildNodeBundles,
  hasCommand,
  HOST,
  ROOT,
  type Running,
  type Runtime,
  serverCommand,
  type ServerKind,
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
const warmup = Number(options.warmup ?? 1);
const seedPets = Number(options.pets ?? 1000);
const clientCounts = (options.clients ?? "1,16,64").split(",").map(Number);
const chartFile = options["no-chart"] === "true"
  ? undefined
  : resolve(ROOT, options.chart ?? "docs/performance-postgres.svg");

/** The same-work peer a user would run on PostgreSQL on this runtime. */
const PEER: ServerKind = runtime === "node" ? "fastify-postgres" : "hono-postgres";
const PEER_NAME = runtime === "node" ? "Fastify + PostgreSQL" : "Hono + PostgreSQL";

type Endpoint = "create" | "list";

interface Configuration {
  readonly name: string;
  readonly kind: ServerKind;
  readonly instances: number;
  /** What it is measured on (default: both). */
  readonly endpoints?: readonly Endpoint[];
  readonly env?: Record<string, string>;
}
const OURS_ONE: Configuration = { name: "ours, 1 instance", kind: "ours", instances: 1 };
const OURS_TWO: Configuration = { name: "ours, 2 instances", kind: "ours", instances: 2 };
/**
 * Ours answers a full page it served before from its byte cache without asking the database (a
 * full page never changes: pets are never edited and ids only grow), and the peer queries for
 * every page; with the cache off, ours queries for every page too, which shows how much of the
 * list's lead is the cache.
 */
const OURS_NO_CACHE: Configuration = {
  name: "ours, 1 instance, cache off",
  kind: "ours",
  instances: 1,
  endpoints: ["list"],
  env: { CACHE_BYTES: "0" },
};
const PEER_ONE: Configuration = { name: PEER_NAME, kind: PEER, instances: 1 };
const configurations = [OURS_ONE, OURS_TWO, OURS_NO_CACHE, PEER_ONE];
const ENDPOINTS: Record<Endpoint, { name: string; path: string; method: "post" | "get" }> = {
  create: { name: "creates", path: "/v1/pets", method: "post" },
  list: { name: "list pages", path: "/v1/pets?limit=20", method: "get" },
};

/** One measured figure: wrk's result and the CPU the service and the database spent on it. */
interface Measured extends WrkResult {
  readonly serviceCpuSeconds: number;
  readonly databaseCpuSeconds: number;
}

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
const dataDirectory = cluster.adminSql("SHOW data_directory").trim();
const postmasterPid = postmasterPidOf(dataDirectory);

/** results["configuration|endpoint|clients"] = one figure per round */
const results = new Map<string, Measured[]>();
const resultKey = (configuration: Configuration, endpoint: Endpoint, clients: number) =>
  `${configuration.name}|${endpoint}|${clients}`;
const warnings: string[] = [];

async function startConfiguration(configuration: Configuration, round: number) {
  const database = `bench_${round}_${configuration.kind.replace(/-/g, "_")}_` +
    configuration.instances;
  cluster.adminSql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  cluster.adminSql(`CREATE DATABASE ${database}`);
  const url = cluster.adminUrl.replace(/\/postgres$/, `/${database}`);
  const services: Running[] = [];
  for (let i = 0; i < configuration.instances; i++) {
    services.push(
      await startServer(serverCommand(runtime, configuration.kind, {}), {
        kind: configuration.kind,
        env: {
          DATABASE_URL: url,
          DATA_DIR: mkdtempSync(join(scratch, "data-")),
          ...configuration.env,
        },
        stderrFile: join(scratch, "servers.stderr"),
      }),
    );
  }
  // Seed through the API, so every configuration holds the same pets (every third one sold).
  for (let i = 0; i < seedPets; i += 50) {
    await Promise.all(
      Array.from(
        { length: Math.min(50, seedPets - i) },
        (_, j) =>
          request(services[0].port, "POST", "/v1/pets", {
            body: `{"name":"Seed ${i + j}","categoryId":${i + j}${
              (i + j) % 3 === 0 ? ',"status":"sold"' : ""
            }}`,
          }),
      ),
    );
  }
  return services;
}

/** One request with the bench key (unless `key` is false); the status, headers and body. */
async function request(
  port: number,
  method: string,
  path: string,
  init: { body?: string; headers?: Record<string, string>; key?: boolean } = {},
) {
  const response = await fetch(`http://${HOST}:${port}${path}`, {
    method,
    headers: {
      ...(init.key === false ? {} : { authorization: `Bearer ${BENCH_KEY}` }),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    body: init.body,
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/**
 * Checks that a server does the duties both sides are measured doing; each lapse is printed
 * and kept for the end, since its figures would then compare less work with more.
 */
async function checkDuties(name: string, port: number): Promise<void> {
  const lapses: string[] = [];
  const expect = (ok: boolean, what: string) => ok || lapses.push(what);
  expect(
    (await request(port, "GET", "/v1/pets", { key: false })).status === 401,
    "401 without key",
  );
  const bad = await request(port, "POST", "/v1/pets", { body: '{"name":""}' });
  expect(bad.status === 400, `400 for an invalid NewPet (got ${bad.status})`);
  const idempotencyKey = { "idempotency-key": `check-${Date.now()}` };
  const body = '{"name":"Once","categoryId":7}';
  const first = await request(port, "POST", "/v1/pets", { body, headers: idempotencyKey });
  const again = await request(port, "POST", "/v1/pets", { body, headers: idempotencyKey });
  const other = await request(port, "POST", "/v1/pets", {
    body: '{"name":"Twice","categoryId":7}',
    headers: idempotencyKey,
  });
  const id = first.status === 201 ? JSON.parse(first.body).id : undefined;
  expect(
    first.status === 201 && first.headers.get("location") === `/v1/pets/${id}`,
    "201 + Location",
  );
  expect(
    first.body === JSON.stringify({ id, name: "Once", categoryId: 7 }),
    `the Pet JSON (got ${first.body})`,
  );
  expect(
    again.status === 201 && JSON.parse(again.body).id === id &&
      again.headers.get("idempotent-replayed") === "true",
    `a replay of the same key and body (got ${again.status} ${again.body})`,
  );
  expect(other.status === 422, `422 for the key with another body (got ${other.status})`);
  const page = await request(port, "GET", "/v1/pets?limit=2");
  expect(
    page.status === 200 && JSON.parse(page.body).length === 2 &&
      /rel="next"/.test(page.headers.get("link") ?? ""),
    "a 2-pet page with the next page's Link",
  );
  for (const lapse of lapses) {
    const line = `! ${name}: ${lapse} is missing`;
    console.log(line);
    warnings.push(line);
  }
}

/**
 * wrk with `clients` connections split between the instances (as many instances as clients at
 * most); the rates are added, and the CPU of the services and the database is read around it.
 */
async function drive(services: Running[], endpoint: Endpoint, clients: number, time: number) {
  const used = services.slice(0, Math.min(services.length, clients));
  const serviceCpu = () => used.reduce((sum, s) => sum + (cpuSecondsOf(s.pid) ?? 0), 0);
  const serviceBefore = serviceCpu();
  const databaseBefore = postgresCpuSeconds(postmasterPid);
  const runs = await Promise.all(used.map((service, i) =>
    runWrk({
      port: service.port,
      path: ENDPOINTS[endpoint].path,
      script: ENDPOINTS[endpoint].method === "post" ? scripts.post : scripts.get,
      seconds: time,
      // The remainder goes to the first instances, so the connections add up to `clients`.
      connections: Math.floor(clients / used.length) + (i < clients % used.length ? 1 : 0),
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
    serviceCpuSeconds: serviceCpu() - serviceBefore,
    databaseCpuSeconds: postgresCpuSeconds(postmasterPid) - databaseBefore,
  };
}

const perCpuSecond = (run: Measured, cpuSeconds: number) =>
  run.requests / Math.max(cpuSeconds, 0.01);

console.log(
  `PostgreSQL benchmark: ${runtime}, ${rounds} round(s) × ${seconds} s per figure ` +
    `(+${warmup} s warm-up), clients ${clientCounts.join(", ")}, ${seedPets} seeded pets; ` +
    `peer ${PEER_NAME}; body ${NEW_PET_BODY}`,
);
for (let round = 0; round < rounds; round++) {
  // A rotating order: a slow patch of the machine does not always hit the same configuration.
  for (let k = 0; k < configurations.length; k++) {
    const configuration = configurations[(round + k) % configurations.length];
    const services = await startConfiguration(configuration, round);
    try {
      await checkDuties(configuration.name, services[0].port);
      for (const endpoint of configuration.endpoints ?? ["create", "list"] as const) {
        for (const clients of clientCounts) {
          if (warmup > 0) await drive(services, endpoint, clients, warmup);
          const result = await drive(services, endpoint, clients, seconds);
          const id = resultKey(configuration, endpoint, clients);
          results.set(id, [...(results.get(id) ?? []), result]);
          console.log(
            `round ${round + 1}: ${configuration.name}, ${ENDPOINTS[endpoint].name}, ` +
              `${clients} clients: ${Math.round(rate(result))}/s, ` +
              `${Math.round(perCpuSecond(result, result.serviceCpuSeconds))} per service cpu-s, ` +
              `${
                Math.round(perCpuSecond(result, result.databaseCpuSeconds))
              } per database cpu-s, ` +
              `p99 ${(result.p99Us / 1000).toFixed(1)} ms` +
              (result.errors + result.non2xx > 0
                ? `, ${result.errors} errors, ${result.non2xx} non-2xx`
                : ""),
          );
        }
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
/** The median over the rounds of one figure of a configuration. */
const figure = (
  configuration: Configuration,
  endpoint: Endpoint,
  clients: number,
  of: (run: Measured) => number,
) => {
  const runs = results.get(resultKey(configuration, endpoint, clients));
  return runs === undefined ? undefined : median(runs.map(of));
};
const perSecond = (run: Measured) => rate(run);
const perServiceCpu = (run: Measured) => perCpuSecond(run, run.serviceCpuSeconds);
const perDatabaseCpu = (run: Measured) => perCpuSecond(run, run.databaseCpuSeconds);

console.log(
  `\n| ${runtime} | endpoint | clients | req/s | per service cpu-s | per database cpu-s | ` +
    `p99 ms | errors |`,
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|");
for (const endpoint of ["create", "list"] as const) {
  for (const clients of clientCounts) {
    for (const configuration of configurations) {
      const runs = results.get(resultKey(configuration, endpoint, clients)) ?? [];
      if (runs.length === 0) continue;
      const cell = (of: (run: Measured) => number) =>
        figure(configuration, endpoint, clients, of)!.toFixed(0);
      console.log(
        `| ${configuration.name} | ${ENDPOINTS[endpoint].name} | ${clients} | ${
          cell(perSecond)
        } | ` +
          `${cell(perServiceCpu)} | ${cell(perDatabaseCpu)} | ` +
          `${
            (figure(configuration, endpoint, clients, (run) => run.p99Us)! / 1000).toFixed(1)
          } | ` +
          `${runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0)} |`,
      );
    }
  }
}

/** Issue 28's targets for the PostgreSQL store, judged on requests per second. */
const top = Math.max(...clientCounts);
const ratioOf = (a: Configuration, b: Configuration, endpoint: Endpoint, clients: number) => {
  const over = figure(a, endpoint, clients, perSecond);
  const under = figure(b, endpoint, clients, perSecond);
  return over === undefined || under === undefined ? undefined : over / under;
};
/** Two instances "collapse" when together they serve less than this share of what one serves. */
const NO_COLLAPSE = 0.8;
const verdicts: { text: string; ratio: number | undefined; target: number; info?: true }[] = [
  {
    text: `creates/s, ours (1 instance) ÷ ${PEER_NAME} at ${top} clients`,
    ratio: ratioOf(OURS_ONE, PEER_ONE, "create", top),
    target: 2,
  },
  {
    text: `list pages/s, ours (1 instance) ÷ ${PEER_NAME} at ${top} clients`,
    ratio: ratioOf(OURS_ONE, PEER_ONE, "list", top),
    target: 1.2,
  },
  {
    text: `list pages/s with our cache off, ours ÷ ${PEER_NAME} at ${top} clients (how much ` +
      `of the lead is the cache)`,
    ratio: ratioOf(OURS_NO_CACHE, PEER_ONE, "list", top),
    target: 1.2,
    info: true,
  },
  ...(["create", "list"] as const).flatMap((endpoint) =>
    clientCounts.filter((clients) => clients > 1).map((clients) => ({
      text: `no collapse: ${ENDPOINTS[endpoint].name}/s, 2 instances ÷ 1 at ${clients} clients`,
      ratio: ratioOf(OURS_TWO, OURS_ONE, endpoint, clients),
      target: NO_COLLAPSE,
    }))
  ),
];
console.log(
  `\nVerdicts (req/s; "no collapse": two instances serve at least ${NO_COLLAPSE} of one; ` +
    `a smoke run on a loaded machine is a hint, not a proof)\n`,
);
for (const { text, ratio, target, info } of verdicts) {
  const verdict = info
    ? "info  "
    : ratio === undefined
    ? "n/a   "
    : ratio >= target
    ? "MET   "
    : "MISSED";
  console.log(`  ${verdict} ${text}: ${ratio?.toFixed(2) ?? "—"} (target ≥ ${target})`);
}
for (const line of warnings) console.log(`  ${line}`);

if (chartFile !== undefined) {
  const groups: ChartGroup[] = (["create", "list"] as const).flatMap((endpoint) =>
    clientCounts.map((clients) => {
      const ours = figure(OURS_ONE, endpoint, clients, perSecond);
      const peer = figure(PEER_ONE, endpoint, clients, perSecond);
      const two = figure(OURS_TWO, endpoint, clients, perSecond);
      const noCache = figure(OURS_NO_CACHE, endpoint, clients, perSecond);
      const target = clients === top ? (endpoint === "create" ? 2 : 1.2) : undefined;
      return {
        runtime: String(clients),
        endpoint: `${clients === 1 ? "client" : "clients"}: ${ENDPOINTS[endpoint].name}`,
        ours,
        asIs: peer === undefined ? undefined : { value: peer, label: PEER_NAME, target },
        sameWork: two === undefined ? undefined : {
          value: two,
          label: "ours, 2 instances",
          text: `ours, 2 instances: ${ours === undefined ? "—" : (two / ours).toFixed(2)}× one`,
        },
        ceiling: noCache === undefined ? undefined : {
          value: noCache,
          label: "ours, cache off",
          text: `ours, cache off: ${peer === undefined ? "—" : (noCache / peer).toFixed(2)}× ` +
            `the peer`,
        },
      };
    })
  );
  writeFileSync(
    chartFile,
    renderChart({
      title: `PostgreSQL store on ${runtime}: ours against ${PEER_NAME}`,
      subtitle: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ${rounds} ` +
        `round${rounds === 1 ? "" : "s"} × ${seconds} s per figure, ${seedPets} seeded pets, ` +
        `fsync on` + (options.label === undefined ? "" : `; ${options.label}`),
      groups,
      legend: { asIs: PEER_NAME, sameWork: "ours, 2 instances", ceiling: "ours, cache off" },
      footnote: "Requests per second (medians of the rounds); longer is better. Written by " +
        "npm run bench:postgres.",
    }),
  );
  console.log(`\nChart: ${chartFile}`);
}
if (options.json !== undefined) {
  writeFileSync(
    options.json,
    JSON.stringify({ runtime, runs: Object.fromEntries(results), verdicts }, null, 1),
  );
  console.log(`Every run's figures and the verdicts: ${options.json}`);
}
process.exit(0);
