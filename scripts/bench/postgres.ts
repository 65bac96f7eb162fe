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
 * Options: `--help` lists them (runtime, rounds, durations, clients, which configurations and
 * endpoints, `--baseline=REV` for an A/B against another revision in the same rounds, the chart).
 *
 * Each round starts every configuration afresh (a new database on the cluster from
 * scripts/postgres_cluster.mjs, fsync on), seeds `--pets` pets through the API (every third one
 * sold), checks that it does the contract's duties (401 without a key, 400 for a bad body, 201
 * with `Location`, an `Idempotency-Key` replayed and refused for another body, the next page's
 * `Link`), then drives it with `wrk` at each client count: durable `POST /v1/pets`, then the
 * first list page (`limit=20`). For creates it also counts how many pets each transaction wrote
 * (the rows' `xmin`): our batches against the peer's one insert per commit. With two instances
 * the clients are split between them (one client goes to the first); their rates are added.
 * Configurations rotate round by round; the table shows medians and the range of the rounds.
 *
 * Each figure is given three ways: requests per second, per second of the service's CPU (its
 * processes, user + system, from /proc/<pid>/stat) and per second of the database's CPU (the
 * postmaster and every process it forked, exited backends included: `postgres_cpu.ts`).
 *
 * Mind the machine: on 2 cores the services (pinned to core 0), PostgreSQL (unpinned) and wrk
 * (core 1) share the CPUs, so two instances cannot add CPU here: the two-instance rows show what
 * coordinating through the database costs, not the scale-out a second machine would give.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
  buildServiceBundle,
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

const USAGE = `npm run bench:postgres -- [options]

  --runtime=deno|bun|node  the runtime of every server (default deno)
  --rounds=N               rounds; configurations rotate round by round (default 3)
  --duration=S             seconds per figure (default 5), after --warmup=S (default 1)
  --pets=N                 pets seeded through the API before each configuration (default 1000)
  --clients=1,16,64        wrk connections per figure
  --endpoints=create,list  what is measured (default both)
  --only=NAMES             configurations to run, of ours1, ours2, nocache, peer,
                           baseline (default all)
  --baseline=REV,…         also run our service from these git revisions, rotated with the
                           others: an A/B of a change under the same machine noise
  --baseline-instances=N   instances of each baseline (default 1)
  --chart=FILE             the chart (default docs/performance-postgres.svg); --no-chart for none
  --label=TEXT             added to the chart's subtitle (e.g. "smoke run, loaded machine")
  --json=FILE              every run's figures and the verdicts
  --help                   this text`;

const options = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, value = "true"] = arg.replace(/^--/, "").split("=");
    return [name, value];
  }),
);
const KNOWN_OPTIONS = [
  "runtime",
  "rounds",
  "duration",
  "warmup",
  "pets",
  "clients",
  "endpoints",
  "only",
  "baseline",
  "baseline-instances",
  "chart",
  "no-chart",
  "label",
  "json",
  "help",
];
const unknown = Object.keys(options).filter((name) => !KNOWN_OPTIONS.includes(name));
if (options.help !== undefined || unknown.length > 0) {
  if (unknown.length > 0) {
    console.error(`Unknown option(s): ${unknown.join(", ")}\n`);
  }
  console.log(USAGE);
  process.exit(unknown.length > 0 ? 2 : 0);
}
const runtime = (options.runtime ?? "deno") as Runtime;
const rounds = Number(options.rounds ?? 3);
const seconds = Number(options.duration ?? 5);
const warmup = Number(options.warmup ?? 1);
const seedPets = Number(options.pets ?? 1000);
const clientCounts = (options.clients ?? "1,16,64").split(",").map(Number);
const measuredEndpoints = (options.endpoints ?? "create,list").split(
  ",",
) as Endpoint[];
const chartFile = options["no-chart"] === "true"
  ? undefined
  : resolve(ROOT, options.chart ?? "docs/performance-postgres.svg");

/** The same-work peer a user would run on PostgreSQL on this runtime. */
const PEER: ServerKind = runtime === "node" ? "fastify-postgres" : "hono-postgres";
const PEER_NAME = runtime === "node" ? "Fastify + PostgreSQL" : "Hono + PostgreSQL";

type Endpoint = "create" | "list";

interface Configuration {
  /** Its name for `--only` and its database's. */
  readonly id: string;
  readonly name: string;
  readonly kind: ServerKind;
  readonly instances: number;
  /** What it is measured on (default: both). */
  readonly endpoints?: readonly Endpoint[];
  readonly env?: Record<string, string>;
  /** Another checkout whose service runs (`--baseline`), of this revision; default this one. */
  readonly root?: string;
  readonly revision?: string;
}
const OURS_ONE: Configuration = {
  id: "ours1",
  name: "ours, 1 instance",
  kind: "ours",
  instances: 1,
};
const OURS_TWO: Configuration = {
  id: "ours2",
  name: "ours, 2 instances",
  kind: "ours",
  instances: 2,
};
/**
 * Ours answers a full page it served before from its byte cache without asking the database (a
 * full page never changes: pets are never edited and ids only grow), and the peer queries for
 * every page; with the cache off, ours queries for every page too, which shows how much of the
 * list's lead is the cache.
 */
const OURS_NO_CACHE: Configuration = {
  id: "nocache",
  name: "ours, 1 instance, cache off",
  kind: "ours",
  instances: 1,
  endpoints: ["list"],
  env: { CACHE_BYTES: "0" },
};
const PEER_ONE: Configuration = {
  id: "peer",
  name: PEER_NAME,
  kind: PEER,
  instances: 1,
};
/** `--baseline=REV,…`: our service at other revisions, each from a worktree of its own. */
const baselineInstances = Number(options["baseline-instances"] ?? 1);
const BASELINES: Configuration[] = (options.baseline?.split(",") ?? []).map((revision, i) => ({
  id: "baseline",
  name: `ours at ${revision}, ${baselineInstances} instance${baselineInstances === 1 ? "" : "s"}`,
  kind: "ours",
  instances: baselineInstances,
  revision,
  root: join(tmpdir(), `animal-store-bench-pg-baseline-${process.pid}-${i}`),
}));
const only = options.only?.split(",");
const configurations = [OURS_ONE, OURS_TWO, OURS_NO_CACHE, PEER_ONE, ...BASELINES].filter(
  (configuration) => only === undefined || only.includes(configuration.id),
);
const ENDPOINTS: Record<
  Endpoint,
  { name: string; path: string; method: "post" | "get" }
> = {
  create: { name: "creates", path: "/v1/pets", method: "post" },
  list: { name: "list pages", path: "/v1/pets?limit=20", method: "get" },
};

/** One measured figure: wrk's result and the CPU the service and the database spent on it. */
interface Measured extends WrkResult {
  readonly serviceCpuSeconds: number;
  readonly databaseCpuSeconds: number;
  /** Creates: pets written per transaction (from the rows' `xmin`). */
  readonly petsPerCommit?: number;
}

if (!hasCommand("wrk")) {
  console.error("Cannot benchmark: wrk is missing (apt-get install -y wrk)");
  process.exit(2);
}
if (runtime === "node") buildNodeBundles({});
for (const baseline of BASELINES) {
  // A detached worktree of the revision, sharing this checkout's node_modules.
  execFileSync("git", ["worktree", "add", "--detach", baseline.root!, baseline.revision!], {
    cwd: ROOT,
    stdio: "ignore",
  });
  symlinkSync(join(ROOT, "node_modules"), join(baseline.root!, "node_modules"));
  if (runtime === "node") {
    buildServiceBundle(baseline.root!, join(baseline.root!, "dist", "animal-store.mjs"));
  }
}

const scratch = mkdtempSync(join(tmpdir(), "animal-store-bench-pg-"));
const scripts = writeWrkScripts(scratch);
const cluster = await startPostgresCluster();
/** The services running now: killed if the benchmark is stopped. */
const running = new Set<Running>();
process.on("exit", () => {
  for (const service of running) service.child.kill("SIGKILL");
  cluster.stop();
  rmSync(scratch, { recursive: true, force: true });
  for (const baseline of BASELINES) {
    execFileSync("git", ["worktree", "remove", "--force", baseline.root!], { cwd: ROOT });
  }
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => process.exit(130));
}
const dataDirectory = cluster.adminSql("SHOW data_directory").trim();
const postmasterPid = postmasterPidOf(dataDirectory);

/** results["configuration|endpoint|clients"] = one figure per round */
const results = new Map<string, Measured[]>();
const resultKey = (configuration: Configuration, endpoint: Endpoint, clients: number) =>
  `${configuration.name}|${endpoint}|${clients}`;
const warnings: string[] = [];

const databaseOf = (configuration: Configuration, round: number) =>
  `bench_${round}_${configuration.id}_${configurations.indexOf(configuration)}`;

/**
 * The pets in the table and the transactions that wrote them (each row's `xmin`): the
 * difference of two readings gives how many pets went into one commit.
 */
function petsAndTransactions(
  database: string,
): { pets: number; transactions: number } {
  const [pets, transactions] = cluster.adminSql(
    "SELECT count(*), count(DISTINCT xmin::text) FROM pets",
    database,
  ).trim().split("|").map(Number);
  return { pets, transactions };
}

async function startConfiguration(configuration: Configuration, round: number) {
  const database = databaseOf(configuration, round);
  cluster.adminSql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  cluster.adminSql(`CREATE DATABASE ${database}`);
  const url = cluster.adminUrl.replace(/\/postgres$/, `/${database}`);
  const services: Running[] = [];
  for (let i = 0; i < configuration.instances; i++) {
    const root = configuration.root;
    const command = serverCommand(runtime, configuration.kind, {
      root,
      nodeBundle: root === undefined ? undefined : join(root, "dist", "animal-store.mjs"),
    });
    const service = await startServer(command, {
      kind: configuration.kind,
      env: {
        DATABASE_URL: url,
        DATA_DIR: mkdtempSync(join(scratch, "data-")),
        ...configuration.env,
      },
      stderrFile: join(scratch, "servers.stderr"),
    });
    services.push(service);
    running.add(service);
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
      const endpoints = (configuration.endpoints ?? ["create", "list"] as const)
        .filter((
          endpoint,
        ) => measuredEndpoints.includes(endpoint));
      for (const endpoint of endpoints) {
        for (const clients of clientCounts) {
          if (warmup > 0) await drive(services, endpoint, clients, warmup);
          const database = databaseOf(configuration, round);
          const before = endpoint === "create" ? petsAndTransactions(database) : undefined;
          const run = await drive(services, endpoint, clients, seconds);
          const after = before === undefined ? undefined : petsAndTransactions(database);
          const result: Measured = {
            ...run,
            petsPerCommit: before === undefined || after === undefined
              ? undefined
              : (after.pets - before.pets) /
                Math.max(1, after.transactions - before.transactions),
          };
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
              (result.petsPerCommit === undefined
                ? ""
                : `, ${result.petsPerCommit.toFixed(1)} pets per commit`) +
              (result.errors + result.non2xx > 0
                ? `, ${result.errors} errors, ${result.non2xx} non-2xx`
                : ""),
          );
        }
      }
    } finally {
      for (const service of services) {
        await stopServer(service);
        running.delete(service);
      }
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
  `\n| ${runtime} | endpoint | clients | req/s | min–max | per service cpu-s | ` +
    `per database cpu-s | p99 ms | pets per commit | errors |`,
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const endpoint of ["create", "list"] as const) {
  for (const clients of clientCounts) {
    for (const configuration of configurations) {
      const runs = results.get(resultKey(configuration, endpoint, clients)) ?? [];
      if (runs.length === 0) continue;
      const cell = (of: (run: Measured) => number, digits = 0) =>
        figure(configuration, endpoint, clients, of)!.toFixed(digits);
      const rates = runs.map(perSecond);
      const cells = [
        configuration.name,
        ENDPOINTS[endpoint].name,
        clients,
        cell(perSecond),
        `${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}`,
        cell(perServiceCpu),
        cell(perDatabaseCpu),
        cell((run) => run.p99Us / 1000, 1),
        endpoint === "create" ? cell((run) => run.petsPerCommit ?? NaN, 1) : "",
        runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0),
      ];
      console.log(`| ${cells.join(" | ")} |`);
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
const verdicts: {
  text: string;
  ratio: number | undefined;
  target: number;
  info?: true;
}[] = [
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
