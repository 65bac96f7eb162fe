/**
 * The benchmark driver: our service against the peers a user would pick instead (`peers/`), on
 * Bun, Deno and Node, each server a child process pinned to core 0 and driven by `wrk` on core 1.
 * Servers, endpoints and targets are data (`SERVERS`, `ENDPOINTS`, `TARGETS`); one runner
 * measures every configuration in interleaved rounds (the order rotates each round); one report
 * prints the medians and each target's ratio, the median of the rounds' ratios. `--postgres`
 * runs the same loop on a throw-away PostgreSQL cluster; `--revisions=A,B` runs our service at
 * git revisions instead of this checkout (`revisions.sh`). Prints figures; asserts nothing.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { encodeCursor as ourCursor } from "../../src/http/pagination.ts";
import { denoStartFlags } from "../../test/support/server_process.ts";
import { startPostgresCluster } from "../postgres_cluster.mjs";
import * as fixture from "./peers/fixture.ts";
import {
  cpuSecondsOf,
  HOST,
  postgresCpuSeconds,
  postmasterPidOf,
  rate,
  type Running,
  runWrk,
  startServer,
  stopServer,
  type WrkResult,
  wrkScript,
} from "./machine.ts";

type Runtime = "bun" | "deno" | "node";
type Endpoint = "list" | "deep" | "get" | "mix" | "create" | "large-create";

const ENDPOINTS: Record<Endpoint, string> = {
  list: "GET /v1/pets?limit=20",
  deep: "GET /v1/pets?status=sold&limit=20&cursor=…, ten pages in",
  get: "GET /v1/pets/{id}",
  mix: "random ids and cursors over --mix-pets pets, so that no cache carries them",
  create: `POST /v1/pets, ${fixture.SMALL_BODY.length} bytes, durable`,
  "large-create":
    `POST /v1/pets, ${fixture.LARGE_BODY.length} bytes (200 non-ASCII characters), durable`,
};

/** A server: our service (no `peer`), or a file of `peers/` run with `PEER=variant`. */
interface Server {
  readonly name: string;
  readonly peer?: string;
  readonly variant?: string;
  readonly runtimes?: readonly Runtime[];
  readonly endpoints: readonly Endpoint[];
  readonly env?: Record<string, string>;
  readonly instances?: number;
  /** Another checkout whose service runs (`--revisions`). */
  readonly root?: string;
}
const READS: Endpoint[] = ["list", "deep", "get"];
const CREATES: Endpoint[] = ["create", "large-create"];
const [BUN, NODE]: Runtime[][] = [["bun"], ["node"]];
const SERVERS: Server[] = [
  { name: "get-ceiling", peer: "ceiling", endpoints: ["get"] },
  { name: "ours", endpoints: [...READS, "mix", ...CREATES] },
  { name: "hono", peer: "hono", endpoints: [...READS, "mix"] },
  { name: "elysia", peer: "elysia", runtimes: BUN, endpoints: [...READS, "mix"] },
  { name: "fastify", peer: "fastify", runtimes: NODE, endpoints: [...READS, "mix"] },
  { name: "hono-same", peer: "hono", variant: "same-work", endpoints: READS },
  { name: "elysia-same", peer: "elysia", variant: "same-work", runtimes: BUN, endpoints: READS },
  { name: "fastify-same", peer: "fastify", variant: "same-work", runtimes: NODE, endpoints: READS },
  { name: "group-commit", peer: "group_commit", endpoints: CREATES },
  { name: "group-commit-same", peer: "group_commit", variant: "same-work", endpoints: CREATES },
];
const PG: Endpoint[] = [...CREATES, "list"];
const POSTGRES_SERVERS: Server[] = [
  { name: "ours", endpoints: PG },
  { name: "ours-2", instances: 2, endpoints: ["create", "list"] },
  { name: "ours-cache-off", env: { CACHE_BYTES: "0" }, endpoints: ["list"] },
  { name: "hono-pg", peer: "hono", variant: "postgres", runtimes: ["bun", "deno"], endpoints: PG },
  { name: "fastify-pg", peer: "fastify", variant: "postgres", runtimes: NODE, endpoints: PG },
];

/** `ours` ÷ the fastest of `against`, at least `least` (none: information). */
interface Target {
  readonly endpoint: Endpoint;
  readonly ours?: string;
  readonly against: readonly string[];
  readonly least?: number;
  /** Judged at every connection count over one (default: the largest only). */
  readonly many?: boolean;
}
const AS_IS = ["hono", "elysia", "fastify"];
const SAME_WORK = ["hono-same", "elysia-same", "fastify-same"];
const TARGETS: Target[] = [
  { endpoint: "list", against: AS_IS, least: 1.2 },
  { endpoint: "list", against: SAME_WORK, least: 1.4 },
  { endpoint: "deep", against: AS_IS, least: 1.2 },
  { endpoint: "deep", against: SAME_WORK, least: 1.4 },
  { endpoint: "get", against: ["get-ceiling"], least: 0.85 },
  { endpoint: "get", against: SAME_WORK, least: 1.2 },
  { endpoint: "get", against: AS_IS },
  { endpoint: "mix", against: AS_IS, least: 1 },
  { endpoint: "create", against: ["group-commit"], least: 0.9 },
  { endpoint: "create", against: ["group-commit-same"], least: 1 },
  { endpoint: "large-create", against: ["group-commit"] },
  { endpoint: "large-create", against: ["group-commit-same"] },
];
const PG_PEERS = ["hono-pg", "fastify-pg"];
const POSTGRES_TARGETS: Target[] = [
  { endpoint: "create", against: PG_PEERS, least: 2 },
  { endpoint: "large-create", against: PG_PEERS },
  { endpoint: "list", against: PG_PEERS, least: 1.2 },
  { endpoint: "list", ours: "ours-cache-off", against: PG_PEERS },
  { endpoint: "create", ours: "ours-2", against: ["ours"], least: 0.8, many: true },
  { endpoint: "list", ours: "ours-2", against: ["ours"], least: 0.8, many: true },
];

const USAGE = `npm run bench -- [options]    (npm run bench:postgres is npm run bench -- --postgres)

  --runtimes=bun,deno,node   the runtimes (default all three; --postgres: deno)
  --servers=NAMES            of ${SERVERS.map((server) => server.name).join(", ")}
                             (--postgres: ${
  POSTGRES_SERVERS.map((server) => server.name).join(", ")
})
  --endpoints=NAMES          of ${Object.keys(ENDPOINTS).join(", ")}
  --rounds=N --duration=S    interleaved rounds (default 3) of S seconds a figure (default 5)
  --warmup=S                 warm-up seconds before each figure (default 1)
  --connections=N,…          wrk connections (default 64; --postgres: 1,16,64)
  --pets=N                   pets each server starts with (default 1000)
  --mix-pets=N --mix-paths=N the mix's pets (default 1000000; 0: no mix) and paths (100000)
  --quick                    2 rounds × 3 s, no mix
  --postgres                 the PostgreSQL store against Hono (Bun, Deno) or Fastify (Node) on it
  --revisions=REV,…          our service at these git revisions instead of this checkout
  --json=FILE                every run's figures and the targets' verdicts
  --help                     this text`;

const args = process.argv.slice(2);
const option = (name: string, fallback?: string): string | undefined => {
  const found = args.find((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  return found === undefined ? fallback : found.split("=").slice(1).join("=") || "true";
};
const unknown = args.filter((arg) => !USAGE.match(/--[a-z-]+/g)!.includes(arg.split("=")[0]));
if (args.includes("--help") || unknown.length > 0) {
  console.log(`${unknown.length > 0 ? `Unknown option ${unknown[0]}\n\n` : ""}${USAGE}`);
  process.exit(unknown.length > 0 ? 2 : 0);
}
const quick = option("quick") !== undefined;
const postgres = option("postgres") !== undefined;
const rounds = Number(option("rounds", quick ? "2" : "3"));
const seconds = Number(option("duration", quick ? "3" : "5"));
const warmup = Number(option("warmup", "1"));
const pets = Number(option("pets", "1000"));
const mixPets = Number(option("mix-pets", quick || postgres ? "0" : "1000000"));
const mixPaths = Number(option("mix-paths", "100000"));
const connectionCounts = option("connections", postgres ? "1,16,64" : "64")!.split(",").map(Number);
const runtimes = option("runtimes", postgres ? "deno" : "bun,deno,node")!.split(",") as Runtime[];
const endpoints = option("endpoints", Object.keys(ENDPOINTS).join(","))!.split(",") as Endpoint[];
const revisions = option("revisions")?.split(",") ?? [];
const wanted = option("servers")?.split(",");
if (![rounds, seconds, pets, ...connectionCounts].every((n) => Number.isInteger(n) && n >= 1)) {
  throw new Error("Cannot run: rounds, seconds, pets and connections are whole numbers from 1");
}
const ROOT = process.cwd();
const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
const output = (command: string, ...rest: string[]) =>
  execFileSync(command, rest, { encoding: "utf8" }).trim();

const scratch = mkdtempSync(join(tmpdir(), "animal-store-bench-"));
const scratchFile = (name: string, text: string) => {
  writeFileSync(join(scratch, name), text);
  return join(scratch, name);
};
const worktrees: string[] = [];
const cluster = postgres ? await startPostgresCluster() : undefined;
const running = new Set<Running>();
process.on("exit", () => {
  for (const server of running) server.child.kill("SIGKILL");
  cluster?.stop();
  for (const dir of worktrees) execFileSync("git", ["worktree", "remove", "--force", dir]);
  rmSync(scratch, { recursive: true, force: true });
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130));

/** Our service at each of `--revisions`: a detached worktree sharing this node_modules. */
const revisionsOf = (base: Server): Server[] =>
  revisions.map((revision, i) => {
    const root = join(scratch, `${base.name}-${i}`);
    execFileSync("git", ["worktree", "add", "--detach", root, revision], { stdio: "ignore" });
    worktrees.push(root);
    symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
    const again = revisions.indexOf(revision) < i ? `#${i + 1}` : ""; // an A/A pair
    const name = `${base.name}@${output("git", "rev-parse", "--short", revision)}${again}`;
    return { ...base, name, root };
  });
const servers = (postgres ? POSTGRES_SERVERS : SERVERS)
  .filter((server) => wanted === undefined || wanted.includes(server.name))
  .flatMap((server) =>
    server.peer === undefined && revisions.length > 0 ? revisionsOf(server) : [server]
  );

/** Node runs bundles: our service as `npm run build` makes it, the peers with their imports. */
const BUNDLES = join(ROOT, "scripts/bench/node_modules/.cache/animal-store-bench");
const bundleOf = (server: Server) =>
  server.peer !== undefined
    ? join(BUNDLES, `${server.peer}.mjs`)
    : join(server.root ?? BUNDLES, "animal-store-bench.mjs");
if (runtimes.includes("node")) {
  for (const server of servers) {
    const peer = server.peer !== undefined;
    execFileSync(bin("esbuild"), [
      peer ? `scripts/bench/peers/${server.peer}.ts` : "src/main.ts",
      ...["--bundle", "--platform=node", "--format=esm", "--target=node22", "--log-level=warning"],
      "--banner:js=import { createRequire as bannerCreateRequire } from 'node:module'; " +
      "const require = bannerCreateRequire(import.meta.url);",
      ...(peer ? ["--packages=external"] : []),
      `--outfile=${bundleOf(server)}`,
    ], { cwd: server.root ?? ROOT, stdio: "inherit" });
  }
}

function commandOf(runtime: Runtime, server: Server): string[] {
  if (runtime === "node") return [process.execPath, bundleOf(server)];
  const file = server.peer !== undefined
    ? join(ROOT, `scripts/bench/peers/${server.peer}.ts`)
    : join(server.root ?? ROOT, "src/main.ts");
  if (runtime === "bun") return [bin("bun"), file];
  return [bin("deno"), "run", ...(server.peer !== undefined ? ["-A"] : denoStartFlags()), file];
}

/** `count` pets as our store writes them: the peers' pets (`peers/fixture.ts`). */
const dataFiles = new Map<number, string>();
function dataFile(count: number): string {
  if (!dataFiles.has(count)) {
    const lines: string[] = [];
    for (let id = 1; id <= count; id++) {
      lines.push(`{"type":"pet","v":1,"pet":${JSON.stringify(fixture.benchPet(id))}}\n`);
    }
    dataFiles.set(count, scratchFile(`pets-${count}.jsonl`, lines.join("")));
  }
  return dataFiles.get(count)!;
}

const AUTH = { Authorization: `Bearer ${fixture.BENCH_KEY}` };
const script = (name: string, options: Parameters<typeof wrkScript>[0]) =>
  scratchFile(`${name}.lua`, wrkScript({ ...options, headers: { ...AUTH, ...options.headers } }));
const GET = script("get", { method: "GET", headers: {} });
const post = (name: string, body: string) => {
  const bodyFile = scratchFile(`${name}.json`, body);
  const headers = { "Content-Type": "application/json" };
  return script(name, { method: "POST", headers, bodyFile, countCloses: true });
};
const CREATE_SCRIPTS = {
  create: post("create", fixture.SMALL_BODY),
  "large-create": post("large", fixture.LARGE_BODY),
};

/** The mix: half a pet by a random id, half a page after a random cursor (a quarter by status). */
const mixScripts = new Map<boolean, string>();
function mixScript(ours: boolean): string {
  let seed = 0x2545f491;
  const random = (below: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * below);
  };
  const paths: string[] = [];
  for (let i = 0; i < mixPaths; i++) {
    const id = 1 + random(mixPets);
    const afterId = Math.min(id, mixPets - 100);
    const status = i % 4 === 1 ? "sold" as const : undefined;
    const cursor = ours ? ourCursor({ afterId, status }) : fixture.encodeCursor(afterId, status);
    paths.push(
      i % 2 === 0
        ? `/v1/pets/${id}`
        : `/v1/pets?limit=20&${status === undefined ? "" : "status=sold&"}cursor=${cursor}`,
    );
  }
  const name = ours ? "mix-ours" : "mix-peers";
  const pathsFile = scratchFile(`${name}.paths`, paths.join("\n") + "\n");
  return script(name, { method: "GET", headers: {}, pathsFile });
}

async function call(port: number, path: string, init: RequestInit & { key?: false } = {}) {
  const response = await fetch(`http://${HOST}:${port}${path}`, {
    ...init,
    headers: {
      ...(init.key === false ? {} : AUTH),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

/** The path and wrk script of `endpoint` on a running server. */
async function requestOf(endpoint: Endpoint, server: Server, port: number) {
  if (endpoint === "create" || endpoint === "large-create") {
    return { path: "/v1/pets", script: CREATE_SCRIPTS[endpoint] };
  }
  if (endpoint === "list") return { path: "/v1/pets?limit=20", script: GET };
  if (endpoint === "get") return { path: `/v1/pets/${Math.ceil(pets / 2)}`, script: GET };
  if (endpoint === "mix") {
    const ours = server.peer === undefined;
    if (!mixScripts.has(ours)) mixScripts.set(ours, mixScript(ours));
    return { path: "/v1/pets", script: mixScripts.get(ours)! };
  }
  let path = "/v1/pets?status=sold&limit=20";
  for (let hop = 0; hop < 10; hop++) {
    const { status, headers } = await call(port, path);
    const next = /<([^>]*)>;\s*rel="next"/.exec(headers.get("link") ?? "")?.[1];
    if (status !== 200 || next === undefined) break;
    path = next.replace(/^https?:\/\/[^/]+/, "");
  }
  return { path, script: GET };
}

/**
 * `--postgres`: seeds the pets through the API (every third sold) and checks the duties both
 * sides are measured doing; a lapse is printed, since its figures would compare less work.
 */
async function seedAndCheck(name: string, port: number): Promise<void> {
  const post = (body: string) => call(port, "/v1/pets", { method: "POST", body });
  for (let i = 0; i < pets; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, pets - i) }, (_, j) => {
      const sold = (i + j) % 3 === 0 ? ',"status":"sold"' : "";
      return post(`{"name":"Seed ${i + j}","categoryId":${i + j}${sold}}`);
    }));
  }
  const created = await post('{"name":"Once","categoryId":7}');
  const id = created.status === 201 ? JSON.parse(created.body).id : undefined;
  const checks: [boolean, string][] = [
    [(await call(port, "/v1/pets", { key: false })).status === 401, "401 without a key"],
    [(await post('{"name":""}')).status === 400, "400 for an invalid NewPet"],
    [created.headers.get("location") === `/v1/pets/${id}`, "201 with Location"],
    [created.body === JSON.stringify({ id, name: "Once", categoryId: 7 }), "the Pet JSON"],
    [/rel="next"/.test((await call(port, "/v1/pets?limit=2")).headers.get("link") ?? ""), "Link"],
  ];
  for (const [ok, what] of checks) if (!ok) console.log(`  ! ${name}: ${what} is missing`);
}

// --- the runner -------------------------------------------------------------------------------

interface Measured extends WrkResult {
  readonly round: number;
  readonly serverCpuSeconds: number;
  readonly databaseCpuSeconds?: number;
  readonly petsPerCommit?: number;
}
const results = new Map<string, Measured[]>();
const keyOf = (runtime: string, server: string, endpoint: Endpoint, connections: number) =>
  `${runtime}|${server}|${endpoint}|${connections}`;
/** Requests per second of server CPU: steadier than req/s on a VM whose neighbours steal. */
const perCpuSecond = (run: Measured) => run.requests / Math.max(run.serverCpuSeconds, 0.01);

type Configuration = { runtime: Runtime; server: Server; endpoints: Endpoint[]; pets: number };
const configurations: Configuration[] = runtimes.flatMap((runtime) =>
  servers.filter((server) => server.runtimes?.includes(runtime) ?? true).flatMap((server) => {
    const measured = server.endpoints.filter((endpoint) => endpoints.includes(endpoint));
    const reads = measured.filter((endpoint) => endpoint !== "mix");
    // The mix on a server of its own, started with --mix-pets pets.
    return [
      ...(reads.length > 0 ? [{ runtime, server, endpoints: reads, pets }] : []),
      ...(measured.includes("mix") && mixPets > 0
        ? [{ runtime, server, endpoints: ["mix" as const], pets: mixPets }]
        : []),
    ];
  })
);

const postmaster = cluster && postmasterPidOf(cluster.adminSql("SHOW data_directory").trim());
const sql = (query: string, database?: string) => cluster!.adminSql(query, database).trim();

async function measure(configuration: Configuration, round: number): Promise<void> {
  const { runtime, server } = configuration;
  const database = `bench_${round}_${configurations.indexOf(configuration)}`;
  const env: Record<string, string> = {
    ...server.env,
    API_KEYS: fixture.BENCH_KEY,
    PET_COUNT: String(configuration.pets),
    PEER: server.variant ?? "as-is",
  };
  if (cluster !== undefined) {
    sql(`CREATE DATABASE ${database}`);
    env.DATABASE_URL = cluster.adminUrl.replace(/\/postgres$/, `/${database}`);
  }
  const instances: Running[] = [];
  try {
    for (let i = 0; i < (server.instances ?? 1); i++) {
      const dataDir = mkdtempSync(join(scratch, "data-"));
      if (server.peer === undefined && cluster === undefined) {
        copyFileSync(dataFile(configuration.pets), join(dataDir, "pets.jsonl"));
      }
      const instance = await startServer(commandOf(runtime, server), {
        env: { ...env, DATA_DIR: dataDir },
        readyPath: server.peer === undefined ? "/readyz" : "/v1/pets?limit=1",
        anyAnswer: server.peer === "ceiling" || server.peer === "group_commit",
        headers: AUTH,
        stderrFile: join(scratch, "servers.stderr"),
      });
      instances.push(instance);
      running.add(instance);
    }
    if (cluster !== undefined) await seedAndCheck(server.name, instances[0].port);
    for (const endpoint of configuration.endpoints) {
      const request = await requestOf(endpoint, server, instances[0].port);
      for (const connections of connectionCounts) {
        const id = keyOf(runtime, server.name, endpoint, connections);
        // The connections split between the instances (the remainder to the first ones).
        const used = instances.slice(0, Math.min(instances.length, connections));
        const drive = (time: number) =>
          Promise.all(used.map((instance, i) => {
            const share = Math.floor(connections / used.length) +
              (i < connections % used.length ? 1 : 0);
            return runWrk({ ...request, port: instance.port, seconds: time, connections: share });
          }));
        if (warmup > 0) await drive(warmup);
        const cpu = () =>
          used.reduce((sum, instance) => sum + (cpuSecondsOf(instance.pid) ?? 0), 0);
        const databaseCpu = () => postmaster ? postgresCpuSeconds(postmaster) : 0;
        // Pets and the transactions that wrote them (each row's xmin): pets per commit.
        const commits = () =>
          sql("SELECT count(*), count(DISTINCT xmin::text) FROM pets", database).split("|").map(
            Number,
          );
        const before = { cpu: cpu(), database: databaseCpu(), commits: postmaster && commits() };
        const runs = await drive(seconds);
        const sum = (figure: (run: WrkResult) => number) =>
          runs.reduce((all, run) => all + figure(run), 0);
        const durationUs = Math.max(...runs.map((run) => run.durationUs));
        const after = postmaster && commits();
        const result: Measured = {
          round,
          requests: (sum(rate) * durationUs) / 1e6,
          durationUs,
          p99Us: Math.max(...runs.map((run) => run.p99Us)),
          errors: sum((run) => run.errors),
          non2xx: sum((run) => run.non2xx),
          closed: sum((run) => run.closed),
          serverCpuSeconds: cpu() - before.cpu,
          databaseCpuSeconds: postmaster ? databaseCpu() - before.database : undefined,
          petsPerCommit: after && before.commits && endpoint !== "list"
            ? (after[0] - before.commits[0]) / Math.max(1, after[1] - before.commits[1])
            : undefined,
        };
        results.set(id, [...(results.get(id) ?? []), result]);
        console.log(
          `  round ${round + 1}: ${runtime} ${server.name} ${endpoint} c${connections}: ` +
            `${rate(result).toFixed(0)} req/s, ${perCpuSecond(result).toFixed(0)} per cpu-s, ` +
            `${connections + result.closed} connections opened` +
            (result.errors + result.non2xx > 0
              ? `, ${result.errors} errors, ${result.non2xx} non-2xx`
              : ""),
        );
      }
    }
  } finally {
    for (const instance of instances) {
      await stopServer(instance);
      running.delete(instance);
    }
    if (cluster !== undefined) sql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

const versions = `${output(bin("deno"), "--version").split("\n")[0]}, ` +
  `bun ${output(bin("bun"), "--version")}, node ${process.versions.node}`;
console.log(
  `${postgres ? "PostgreSQL " : ""}benchmark: ${configurations.length} servers, ${rounds} rounds ` +
    `× ${seconds} s (+${warmup} s warm-up), wrk -t1 -c${connectionCounts.join(",")}; ${versions}`,
);
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round, so that no configuration always runs first or after another.
  for (let i = 0; i < configurations.length; i++) {
    await measure(configurations[(i + round * 3) % configurations.length], round);
  }
}

// --- the report -------------------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
const figure = (id: string, of: (run: Measured) => number) => median(results.get(id)!.map(of));
const printTable = (header: string[], rows: string[][]) => {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ")} |`;
  const rule = `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`;
  console.log([line(header), rule, ...rows.map(line)].join("\n"));
};

const now = new Date().toISOString();
console.log(`\n${now}; ${versions}; medians of ${rounds} rounds\n`);
const header = ["runtime", "server", "endpoint", "conns", "req/s (min–max)", "per server cpu-s"];
const rows = [...results].map(([id, runs]) => {
  const [runtime, server, endpoint, connections] = id.split("|");
  const rates = runs.map(rate);
  const [low, high] = [Math.min(...rates), Math.max(...rates)].map((value) => value.toFixed(0));
  const database = (run: Measured) => run.requests / Math.max(run.databaseCpuSeconds!, 0.01);
  const commits = runs[0].petsPerCommit === undefined
    ? ""
    : figure(id, (run) => run.petsPerCommit!);
  return [
    ...[
      runtime,
      server,
      endpoint,
      connections,
      `${median(rates).toFixed(0)} (${low}–${high})`,
    ],
    figure(id, perCpuSecond).toFixed(0),
    ...(postgres
      ? [figure(id, database).toFixed(0), commits === "" ? "" : commits.toFixed(1)]
      : []),
    figure(id, (run) => run.p99Us / 1000).toFixed(1),
    figure(id, (run) => Number(connections) + run.closed).toFixed(0),
    String(runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0)),
  ];
}).sort((a, b) => `${a[0]} ${a[2]}`.localeCompare(`${b[0]} ${b[2]}`) || +a[3] - +b[3]);
const extra = postgres ? ["per database cpu-s", "pets per commit"] : [];
printTable([...header, ...extra, "p99 ms", "connections opened", "errors"], rows);

/** With --revisions: each against the first, and against the get ceiling when it ran. */
const named = servers.filter((server) => server.root !== undefined).map((server) => server.name);
const targets: Target[] = named.length > 0
  ? named.flatMap((ours, i) => [
    ...endpoints.filter(() => i > 0).map((endpoint) => ({ endpoint, ours, against: [named[0]] })),
    { endpoint: "get" as const, ours, against: ["get-ceiling"] },
  ])
  : postgres
  ? POSTGRES_TARGETS
  : TARGETS;
const figureOf = postgres ? rate : perCpuSecond;
const largest = Math.max(...connectionCounts);
const verdicts = runtimes.flatMap((runtime) =>
  targets.flatMap((target) =>
    connectionCounts.filter((n) => target.many ? n > 1 : n === largest).flatMap((connections) => {
      const ours = target.ours ?? "ours";
      const [oursId, ...others] = [ours, ...target.against].map((name) =>
        keyOf(runtime, name, target.endpoint, connections)
      );
      const candidates = others.filter((id) => results.has(id) && id !== oursId);
      if (!results.has(oursId) || candidates.length === 0) return [];
      const fastest = candidates.reduce((a, b) =>
        figure(a, figureOf) >= figure(b, figureOf) ? a : b
      );
      const ratio = median(results.get(oursId)!.flatMap((run) => {
        const other = results.get(fastest)!.find((peer) => peer.round === run.round);
        return other === undefined ? [] : [figureOf(run) / figureOf(other)];
      }));
      const least = target.least === undefined ? "—" : `≥ ${target.least}`;
      const verdict = target.least === undefined
        ? "info"
        : ratio >= target.least
        ? "MET"
        : "MISSED";
      const against = fastest.split("|")[1];
      return [[
        runtime,
        target.endpoint,
        String(connections),
        ours,
        against,
        ratio.toFixed(2),
        least,
        verdict,
      ]];
    })
  )
);
const per = postgres ? "second" : "server CPU-second";
console.log(
  `\nTargets: ours ÷ the fastest of its yardstick per ${per}, the median of the rounds' ` +
    `ratios (one run on a shared machine is a hint, not a proof)\n`,
);
printTable(
  ["runtime", "endpoint", "conns", "ours", "against", "ours ÷ it", "target", "verdict"],
  verdicts,
);
const jsonFile = option("json");
if (jsonFile !== undefined) {
  const figures = { versions, runs: Object.fromEntries(results), targets: verdicts };
  writeFileSync(resolve(ROOT, jsonFile), JSON.stringify(figures, null, 1));
  console.log(`\nEvery run's figures and the targets: ${jsonFile}`);
}
process.exit(0);
