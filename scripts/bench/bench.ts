/**
 * The performance benchmark: our service on Bun, Deno and Node, side by side with what users
 * would otherwise pick, each driven by `wrk`, plus replay (open time and memory) of large data
 * files and CPU profiles of our service under load. Prints figures and writes the chart
 * `docs/performance.svg`; asserts nothing.
 *
 *   npm run bench                                   # both yardsticks and the extras
 *   npm run bench -- --quick                        # the two yardsticks only, 2 rounds × 3 s
 *   npm run bench -- --profile                      # CPU profiles of our service under load
 *   npm run bench -- --replay [--ten-million]       # open time and RSS of 1 M (and 10 M) pets
 *
 * `npm run bench` bundles this file with esbuild for Node 20 and runs it with Node; the servers
 * it measures run on their own runtimes. Needs `wrk` (apt-get install -y wrk) and, for pinning,
 * `taskset` and two cores.
 *
 * Throughput: every configuration runs as its own child process, one at a time, on 127.0.0.1
 * and a free port, pinned to core 0 while wrk (1 thread, 64 keep-alive connections) runs on
 * core 1. Per runtime: (a) `ceiling` — the runtime's bare server answering the fixed bytes of a
 * 20-pet page — and `get-ceiling` — the same bare server answering our get's pet with our get's
 * eleven headers (`peers/get_ceiling_server.ts`); (b) `ours` — the real entry point (`src/main.ts` on Bun and Deno, the
 * `npm run build` bundle on Node) with a data file of `--pets` pets and `API_KEYS`; (c) the
 * as-is peers — `hono`, and `elysia` (Bun) / `fastify` (Node) — doing the same three endpoints
 * as their users write them (key checked by a Set lookup, a TypeBox check, the deprecation
 * headers) over an in-memory store; (d) the same-work peers (`hono-same`, `elysia-same`,
 * `fastify-same`) — the same frameworks also doing our contract's per-request duties in their
 * own idiom (log line, request id, ETag/304, Vary, Cache-Control, nosniff…), see
 * `scripts/bench/peers/`. Measured: the first list page, `GET /v1/pets/{id}`, a deep
 * `status=sold` page reached by following `Link` headers, and durable `POST /v1/pets` for ours
 * with fsync on, ours with fsync off (`scripts/bench/service_nofsync.ts`), the minimal and the
 * same-work group-commit peers and bun:sqlite (WAL, synchronous=FULL). Each endpoint gets a
 * warm-up run before the measured one. Configurations are interleaved over `--rounds` rounds in
 * a rotating order, so a slow patch on the machine hits all of them alike; the tables show
 * medians, min–max and p99 (median of the rounds), then ours against the fastest peer of each
 * yardstick, per server CPU-second, with a verdict per row against issue 22's targets, then
 * issue 28's: the get by id against the get ceiling and the fastest same-work peer, durable POST
 * against the two group-commit peers.
 *
 * Options: `--help` lists them (runtimes, configurations, rounds and durations, the mix, the
 * extras, the chart and JSON outputs, profiles and replay). Runs made on a busy machine are marked
 * "!" in the table (`--quiet-wait` sets how long each run first waits for an idle machine).
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { encodeCursor as ourCursor } from "../../src/http/pagination.ts";
import { writePetFile } from "./data_file.ts";
import { BENCH_KEY, encodeCursor as peerCursor, fixedPageBody } from "./peers/pet_fixture.ts";
import {
  buildNodeBundles,
  hasCommand,
  HOST,
  memoryOf,
  pinning,
  ROOT,
  type Running,
  type Runtime,
  serverCommand,
  type ServerKind,
  startServer,
  stopServer,
} from "./processes.ts";
import { busyPercent, cpuSecondsOf, waitForQuiet } from "./machine_load.ts";
import { printProfileSummary } from "./profile_summary.ts";
import { type ChartBar, type ChartGroup, renderChart } from "./chart.ts";
import {
  rate,
  runWrk,
  writeHeaderScript,
  writeMixScript,
  writeWrkScripts,
  type WrkResult,
} from "./wrk.ts";

type Endpoint = "list" | "get" | "deep" | "mix" | "revalidate" | "gzip" | "post";

const ENDPOINT_NAMES: Record<Endpoint, string> = {
  list: "GET /v1/pets?limit=20",
  get: "GET /v1/pets/{id}",
  deep: "GET /v1/pets?status=sold&limit=20&cursor=… (deep)",
  mix: "mix: random ids and cursors",
  revalidate: "deep page, If-None-Match → 304",
  gzip: "deep page, Accept-Encoding: gzip",
  post: "POST /v1/pets (durable)",
};

/** The rows of the yardstick table, in order. */
const YARDSTICK_ENDPOINTS: readonly Endpoint[] = ["list", "deep", "get", "mix", "post"];

/** Shorter names for the chart. */
const CHART_ENDPOINT_NAMES: Record<Endpoint, string> = {
  list: "first page",
  get: "get by id",
  deep: "deep page",
  mix: "cache-hostile mix",
  revalidate: "304",
  gzip: "gzip page",
  post: "durable POST",
};

/**
 * The targets: ours ÷ the fastest peer per server CPU-second, against each yardstick (for POST:
 * the minimal group-commit peer and the same-work one), and for the get by id ours ÷ the get
 * ceiling. Issue 22 set them; issue 28 replaced the get's as-is target (four headers against the
 * contract's eleven: a bare server sending ours costs about what Elysia's whole get does) with
 * the ceiling's, and kept the same-work one.
 */
const TARGETS: Record<Endpoint, { asIs?: number; sameWork?: number; ceiling?: number }> = {
  list: { asIs: 1.2, sameWork: 1.4 },
  deep: { asIs: 1.2, sameWork: 1.4 },
  get: { sameWork: 1.2, ceiling: 0.85 },
  mix: { asIs: 1.0 },
  revalidate: {},
  gzip: {},
  post: { asIs: 0.9, sameWork: 1.0 },
};

interface Options {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  pets: number;
  runtimes: Runtime[];
  servers: ServerKind[];
  post: boolean;
  /** Pets behind the cache-hostile mix (0: no mix). */
  mixPets: number;
  /** Distinct random paths the mix draws from. */
  mixPaths: number;
  nodeBundle: string | undefined;
  json: string | undefined;
  profile: string | undefined;
  replay: boolean;
  replayPets: number;
  tenMillion: boolean;
  replayRuns: number;
  summarize: string | undefined;
  /** Before each configuration, wait up to `quietWait` seconds for the machine to be idle. */
  quietWait: number;
  /** Also the ceiling, the 304 and gzip clients, fsync off and bun:sqlite (off with --quick). */
  extras: boolean;
  /** Where the SVG chart of the run goes (undefined: none). */
  chart: string | undefined;
}

/** A wrk run plus what the machine was doing around it. */
interface Measured extends WrkResult {
  /** Busy % of the whole machine just before the run, our server idle (other users' work). */
  readonly busyBefore: number;
  /** Share of one core our server used during the run (near 100 when it is the bottleneck). */
  readonly serverCpu: number;
  /** Milliseconds from spawn to the server's first ready answer. */
  readonly readyMs: number;
  /** The server's resident set after the run, in MB (Linux). */
  readonly rssMb: number | undefined;
}

const USAGE = `npm run bench -- [options]

  --runtimes=bun,deno,node     the runtimes measured (default all three)
  --servers=NAMES              configurations, of ceiling, get-ceiling, ours, hono, elysia,
                               fastify, hono-same, elysia-same, fastify-same, group-commit,
                               group-commit-same, sqlite (default all)
  --rounds=N --duration=S      interleaved rounds (default 3) of S seconds per figure (default 5)
  --warmup=S                   warm-up seconds before each measured run (default 1)
  --connections=N --pets=N     wrk connections (default 64); pets in the data file (default 1000)
  --quick                      2 rounds × 3 s, no mix and no extras (the get ceiling stays)
  --no-post --no-mix           leave out durable POST; the 1 M-pet cache-hostile mix
  --mix-pets=N --mix-paths=N   the mix's catalogue (default 1000000) and paths (default 100000)
  --quiet-wait=S               wait up to S seconds for an idle machine before each run (default 30)
  --chart=FILE --no-chart      the chart (default docs/performance.svg)
  --json=FILE                  every run's figures, the yardstick rows and the targets' verdicts
  --node-bundle=FILE           measure this Node bundle instead of building one
  --profile[=DIR]              CPU profiles of our service under load, summarised
  --summarize=FILE.cpuprofile  summarise one profile
  --replay [--replay-pets=N] [--ten-million] [--replay-runs=N]   open time and RSS of big files
  --help                       this text`;

function parseOptions(args: string[]): Options {
  if (args.includes("--help")) {
    console.log(USAGE);
    process.exit(0);
  }
  const options: Options = {
    rounds: 3,
    duration: 5,
    warmup: 1,
    connections: 64,
    pets: 1000,
    runtimes: ["bun", "deno", "node"],
    servers: [
      "ceiling",
      "get-ceiling",
      "ours",
      "hono",
      "elysia",
      "fastify",
      "hono-same",
      "elysia-same",
      "fastify-same",
      "group-commit",
      "group-commit-same",
      "sqlite",
    ],
    post: true,
    mixPets: 1_000_000,
    mixPaths: 100_000,
    nodeBundle: undefined,
    json: undefined,
    profile: undefined,
    replay: false,
    replayPets: 1_000_000,
    tenMillion: false,
    replayRuns: 2,
    summarize: undefined,
    quietWait: 30,
    extras: true,
    chart: join(ROOT, "docs", "performance.svg"),
  };
  // --quick first, so that explicit options after it still win.
  if (args.includes("--quick")) {
    Object.assign(options, { rounds: 2, duration: 3, mixPets: 0, extras: false });
  }
  const numbers = [
    "rounds",
    "duration",
    "warmup",
    "connections",
    "pets",
    "replayPets",
    "replayRuns",
    "quietWait",
    "mixPets",
    "mixPaths",
  ];
  for (const arg of args) {
    const [rawName, value] = arg.replace(/^--/, "").split("=", 2);
    const name = rawName.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    if (numbers.includes(name) && /^[0-9]+$/.test(value ?? "")) {
      (options as unknown as Record<string, number>)[name] = Number(value);
    } else if (name === "runtimes" && value) options.runtimes = value.split(",") as Runtime[];
    else if (name === "servers" && value) options.servers = value.split(",") as ServerKind[];
    else if (name === "noPost") options.post = false;
    else if (name === "noMix") options.mixPets = 0;
    else if (name === "quick") continue;
    else if (name === "chart" && value) options.chart = resolve(ROOT, value);
    else if (name === "noChart") options.chart = undefined;
    else if (name === "nodeBundle" && value) options.nodeBundle = join(ROOT, value);
    else if (name === "json" && value) options.json = value;
    else if (name === "profile") {
      options.profile = value ?? join(tmpdir(), `animal-store-profiles-${Date.now()}`);
    } else if (name === "replay") options.replay = true;
    else if (name === "tenMillion") options.tenMillion = true;
    else if (name === "summarize" && value) options.summarize = value;
    else throw new Error(`Cannot parse option: ${arg}`);
  }
  if (options.duration < 1 || options.rounds < 1 || options.duration > 120 || options.rounds > 20) {
    throw new Error("Cannot run: --duration must be 1 to 120 and --rounds 1 to 20");
  }
  return options;
}

// ---------------------------------------------------------------------------------------------

/** One server to start, and what to measure on it. */
interface Configuration {
  readonly runtime: Runtime;
  readonly kind: ServerKind;
  readonly endpoints: readonly Endpoint[];
  /** Pets the server starts with. */
  readonly pets: number;
}

function configurations(options: Options): Configuration[] {
  const list: Configuration[] = [];
  const wanted = (kind: ServerKind) => options.servers.includes(kind);
  const pets = options.pets;
  for (const runtime of options.runtimes) {
    if (options.extras && wanted("ceiling")) {
      list.push({ runtime, kind: "ceiling", endpoints: ["list"], pets });
    }
    if (wanted("get-ceiling")) {
      list.push({ runtime, kind: "get-ceiling", endpoints: ["get"], pets });
    }
    const gets: Endpoint[] = ["list", "get", "deep"];
    const peers = peersOf(runtime).filter(wanted);
    if (wanted("ours")) {
      const extra: Endpoint[] = options.extras ? ["revalidate", "gzip"] : [];
      list.push({ runtime, kind: "ours", endpoints: [...gets, ...extra], pets });
    }
    for (const kind of peers) list.push({ runtime, kind, endpoints: gets, pets });
    for (const kind of sameWorkPeersOf(runtime).filter(wanted)) {
      list.push({ runtime, kind, endpoints: gets, pets });
    }
    if (options.mixPets > 0) {
      for (const kind of [...(wanted("ours") ? ["ours" as const] : []), ...peers]) {
        list.push({ runtime, kind, endpoints: ["mix"], pets: options.mixPets });
      }
    }
    if (options.post) {
      if (wanted("ours")) list.push({ runtime, kind: "ours", endpoints: ["post"], pets });
      if (options.extras && wanted("ours")) {
        list.push({ runtime, kind: "ours-nofsync", endpoints: ["post"], pets });
      }
      for (const kind of ["group-commit", "group-commit-same"] as const) {
        if (wanted(kind)) list.push({ runtime, kind, endpoints: ["post"], pets });
      }
      if (options.extras && runtime === "bun" && wanted("sqlite")) {
        list.push({ runtime, kind: "sqlite", endpoints: ["post"], pets });
      }
    }
  }
  return list;
}

/** The frameworks a user would pick instead of us on `runtime`, as their users write them. */
function peersOf(runtime: Runtime): ServerKind[] {
  if (runtime === "bun") return ["hono", "elysia"];
  return runtime === "node" ? ["hono", "fastify"] : ["hono"];
}

/** The same frameworks doing our contract's per-request duties too (the same-work yardstick). */
function sameWorkPeersOf(runtime: Runtime): ServerKind[] {
  if (runtime === "bun") return ["hono-same", "elysia-same"];
  return runtime === "node" ? ["hono-same", "fastify-same"] : ["hono-same"];
}

const key = (runtime: Runtime, kind: ServerKind, endpoint: Endpoint) =>
  `${runtime}|${kind}|${endpoint}`;

/** Follows `Link: rel="next"` from the first sold page, `hops` times; the path reached. */
async function deepPagePath(port: number, hops: number): Promise<string> {
  let path = "/v1/pets?status=sold&limit=20";
  for (let hop = 0; hop < hops; hop++) {
    const response = await fetch(`http://${HOST}:${port}${path}`, {
      headers: { authorization: `Bearer ${BENCH_KEY}` },
    });
    await response.arrayBuffer();
    const next = /<([^>]*)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
    if (response.status !== 200 || next === undefined) break;
    path = next.replace(/^https?:\/\/[^/]+/, "");
  }
  return path;
}

/** Warns when a server's first page is not the ceiling's bytes (the comparison would be off). */
async function checkFirstPage(port: number, label: string): Promise<void> {
  const response = await fetch(`http://${HOST}:${port}/v1/pets?limit=20`, {
    headers: { authorization: `Bearer ${BENCH_KEY}` },
  });
  const body = await response.text();
  if (response.status !== 200 || body !== fixedPageBody()) {
    console.log(
      `  ! ${label}: first page differs from the ceiling body (${response.status}, ` +
        `${body.length} vs ${fixedPageBody().length} bytes)`,
    );
  }
}

interface Scratch {
  readonly dir: string;
  /** Data directories to copy for our service, by pet count. */
  readonly templates: Map<number, string>;
  readonly scripts: { get: string; post: string };
  /** The mix's wrk scripts: one for our cursors, one for the peers' cursors. */
  readonly mix: { ours: string; peers: string } | undefined;
  readonly stderrFile: string;
}

async function startConfiguration(
  configuration: Configuration,
  options: Options,
  scratch: Scratch,
  extra: { profileDir?: string } = {},
): Promise<{ running: Running; dataDir: string }> {
  const dataDir = mkdtempSync(join(scratch.dir, "data-"));
  if (configuration.kind === "ours" || configuration.kind === "ours-nofsync") {
    const template = scratch.templates.get(configuration.pets)!;
    copyFileSync(join(template, "pets.jsonl"), join(dataDir, "pets.jsonl"));
  }
  const command = serverCommand(configuration.runtime, configuration.kind, {
    nodeBundle: options.nodeBundle,
    profileDir: extra.profileDir,
  });
  const running = await startServer(command, {
    kind: configuration.kind,
    env: { DATA_DIR: dataDir, PET_COUNT: String(configuration.pets) },
    stderrFile: scratch.stderrFile,
    timeoutMs: 300_000,
  });
  return { running, dataDir };
}

/** What one measured endpoint gives: figures, or why it cannot be measured on this build. */
type Outcome = Measured | { readonly notApplicable: string };

/**
 * The path and wrk script of `endpoint` on a running server, or why it does not apply: the 304
 * and gzip clients need the caching feature (an ETag, a gzip body); before it they print n/a.
 */
async function requestOf(
  endpoint: Endpoint,
  configuration: Configuration,
  port: number,
  scratch: Scratch,
): Promise<{ path: string; script: string } | { notApplicable: string }> {
  const { get, post } = scratch.scripts;
  switch (endpoint) {
    case "list":
      return { path: "/v1/pets?limit=20", script: get };
    case "get":
      return { path: `/v1/pets/${Math.ceil(configuration.pets / 2)}`, script: get };
    case "deep":
      return { path: await deepPagePath(port, 10), script: get };
    case "mix":
      return {
        path: "/v1/pets",
        script: configuration.kind === "ours" ? scratch.mix!.ours : scratch.mix!.peers,
      };
    case "post":
      return { path: "/v1/pets", script: post };
    case "revalidate":
    case "gzip": {
      const path = await deepPagePath(port, 10);
      const first = await fetchAuthorized(port, path, {});
      const etag = first.headers.get("etag");
      if (endpoint === "revalidate") {
        if (etag === null) return { notApplicable: "n/a: no ETag" };
        const again = await fetchAuthorized(port, path, { "if-none-match": etag });
        if (again.status !== 304) return { notApplicable: `n/a: ${again.status}, not 304` };
        const script = writeHeaderScript(scratch.dir, "revalidate", { "If-None-Match": etag });
        return { path, script };
      }
      const zipped = await fetchAuthorized(port, path, { "accept-encoding": "gzip" });
      if (zipped.headers.get("content-encoding") !== "gzip") {
        return { notApplicable: "n/a: no gzip body" };
      }
      return {
        path,
        script: writeHeaderScript(scratch.dir, "gzip", { "Accept-Encoding": "gzip" }),
      };
    }
  }
}

/** One authorized GET whose body is read and dropped (Node's fetch decodes gzip itself). */
async function fetchAuthorized(
  port: number,
  path: string,
  headers: Record<string, string>,
): Promise<Response> {
  const response = await fetch(`http://${HOST}:${port}${path}`, {
    headers: { authorization: `Bearer ${BENCH_KEY}`, ...headers },
  });
  await response.arrayBuffer();
  return response;
}

async function measureConfiguration(
  configuration: Configuration,
  options: Options,
  scratch: Scratch,
): Promise<Map<Endpoint, Outcome>> {
  const results = new Map<Endpoint, Outcome>();
  const { running, dataDir } = await startConfiguration(configuration, options, scratch);
  try {
    const label = `${configuration.runtime} ${configuration.kind}`;
    if (configuration.endpoints.includes("list")) await checkFirstPage(running.port, label);
    for (const endpoint of configuration.endpoints) {
      const request = await requestOf(endpoint, configuration, running.port, scratch);
      if ("notApplicable" in request) {
        results.set(endpoint, request);
        continue;
      }
      const { path, script } = request;
      const run = (seconds: number) =>
        runWrk({ port: running.port, path, script, seconds, connections: options.connections });
      if (options.warmup > 0) await run(options.warmup);
      // Other users of a shared machine skew a run: wait for a quiet moment (bounded).
      const busyBefore = await waitForQuiet(QUIET_BELOW_PERCENT, options.quietWait * 1000);
      const cpuBefore = cpuSecondsOf(running.pid) ?? 0;
      const result = await run(options.duration);
      if (result.requests === 0) {
        // Nothing answered within the run (a stalled disk, a busy machine): no figure to compare.
        results.set(endpoint, { notApplicable: "n/a: no request completed" });
        continue;
      }
      const serverCpu = (100 * ((cpuSecondsOf(running.pid) ?? 0) - cpuBefore)) /
        (result.durationUs / 1e6);
      results.set(endpoint, {
        ...result,
        busyBefore,
        serverCpu,
        readyMs: running.readyMs,
        rssMb: memoryOf(running.pid)?.rssMb,
      });
    }
  } finally {
    await stopServer(running);
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

/** Machine busy % (both cores) under which a moment counts as quiet. */
const QUIET_BELOW_PERCENT = 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: string[]) =>
    "| " + cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((width) => "-".repeat(width + 2)).join("|") + "|");
  for (const row of rows) console.log(line(row));
}

function setupScratch(options: Options, mix = false): Scratch {
  const dir = mkdtempSync(join(tmpdir(), "animal-store-bench-"));
  const templates = new Map<number, string>();
  for (const count of new Set([options.pets, ...(mix ? [options.mixPets] : [])])) {
    const template = join(dir, `template-${count}`);
    mkdirSync(template);
    writePetFile(template, count);
    templates.set(count, template);
  }
  return {
    dir,
    templates,
    scripts: writeWrkScripts(dir),
    mix: mix ? mixScripts(dir, options) : undefined,
    stderrFile: join(dir, "servers.stderr"),
  };
}

/**
 * The cache-hostile mix: `mixPaths` paths, half a pet by a random id, half a 20-pet page after a
 * random id (a quarter of them filtered by status), over `mixPets` pets. Our cursors and the
 * peers' differ in format, so each side gets its own list of the same positions; a seeded
 * generator keeps the positions equal across runs and servers.
 */
function mixScripts(dir: string, options: Options): { ours: string; peers: string } {
  let seed = 0x2545f491;
  const random = (below: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return Math.floor((seed / 2 ** 32) * below);
  };
  const ours: string[] = [];
  const peers: string[] = [];
  for (let i = 0; i < options.mixPaths; i++) {
    const id = 1 + random(options.mixPets);
    if (i % 2 === 0) {
      ours.push(`/v1/pets/${id}`);
      peers.push(`/v1/pets/${id}`);
      continue;
    }
    const afterId = Math.min(id, options.mixPets - 100);
    const status = i % 4 === 1 ? "sold" : undefined;
    const filter = status === undefined ? "" : `status=${status}&`;
    ours.push(`/v1/pets?limit=20&${filter}cursor=${ourCursor({ afterId, status })}`);
    peers.push(`/v1/pets?limit=20&${filter}cursor=${peerCursor(afterId, status)}`);
  }
  return {
    ours: writeMixScript(dir, "mix-ours", ours),
    peers: writeMixScript(dir, "mix-peers", peers),
  };
}

function requireTools(options: Options): void {
  if (!hasCommand("wrk")) {
    throw new Error("Cannot run the benchmark: wrk is not installed (apt-get install -y wrk)");
  }
  if (options.runtimes.includes("node")) buildNodeBundles({ nodeBundle: options.nodeBundle });
}

function machineLine(options: Options): string {
  const pinned = pinning(0).length > 0;
  return `node ${process.versions.node}; wrk -t1 -c${options.connections} -d${options.duration}s ` +
    `(+${options.warmup}s warm-up per endpoint), ${options.rounds} rounds, ${options.pets} pets; ` +
    (pinned
      ? "servers pinned to core 0, wrk to core 1"
      : "NOT pinned (taskset missing or one core)");
}

async function throughput(options: Options): Promise<void> {
  requireTools(options);
  const configs = configurations(options);
  const scratch = setupScratch(options, configs.some((c) => c.endpoints.includes("mix")));
  const runs = new Map<string, Measured[]>();
  const notApplicable = new Map<string, string>();
  console.log(machineLine(options));
  console.log(`machine busy before start: ${(await busyPercent(1000))?.toFixed(0) ?? "?"}%`);
  try {
    for (let round = 0; round < options.rounds; round++) {
      // Rotate the order each round, so no configuration always runs first or after another.
      const order = configs.map((_, i) => configs[(i + round * 3) % configs.length]);
      for (const configuration of order) {
        const results = await measureConfiguration(configuration, options, scratch);
        for (const [endpoint, result] of results) {
          const id = key(configuration.runtime, configuration.kind, endpoint);
          if ("notApplicable" in result) {
            notApplicable.set(id, result.notApplicable);
            console.log(
              `  round ${round + 1}: ${configuration.runtime} ${configuration.kind} ${endpoint}: ` +
                result.notApplicable,
            );
            continue;
          }
          runs.set(id, [...(runs.get(id) ?? []), result]);
          console.log(
            `  round ${round + 1}: ${configuration.runtime.padEnd(5)} ${
              configuration.kind.padEnd(18)
            }` +
              `${endpoint.padEnd(5)} ${rate(result).toFixed(0).padStart(7)} req/s  ` +
              `p99 ${(result.p99Us / 1000).toFixed(2).padStart(7)} ms  ` +
              `server cpu ${result.serverCpu.toFixed(0).padStart(3)}%  ` +
              `busy before ${result.busyBefore.toFixed(0).padStart(3)}%` +
              (result.errors + result.non2xx > 0
                ? `  (${result.errors} errors, ${result.non2xx} non-2xx)`
                : ""),
          );
        }
      }
    }
  } finally {
    rmSync(scratch.dir, { recursive: true, force: true });
  }
  report(options, runs, notApplicable);
}

/** Every server kind, in the order of the tables, and how the tables name it. */
const KIND_NAMES: Record<ServerKind, string> = {
  ceiling: "ceiling (fixed page)",
  "get-ceiling": "ceiling (bare get)",
  ours: "ours",
  "ours-nofsync": "ours, fsync OFF",
  hono: "hono",
  elysia: "elysia",
  fastify: "fastify",
  "hono-same": "hono (same work)",
  "elysia-same": "elysia (same work)",
  "fastify-same": "fastify (same work)",
  "group-commit": "group-commit peer",
  "group-commit-same": "group-commit (same work)",
  sqlite: "bun:sqlite",
  "hono-postgres": "hono + PostgreSQL",
  "fastify-postgres": "fastify + PostgreSQL",
};

function report(
  options: Options,
  runs: Map<string, Measured[]>,
  notApplicable: Map<string, string>,
): void {
  const of = (id: string, figure: (run: Measured) => number) => {
    const list = runs.get(id);
    return list === undefined ? undefined : median(list.map(figure));
  };
  const rateOf = (id: string) => of(id, rate);
  // Requests per second of server CPU time: on a VM whose neighbours take the core away, req/s
  // of one build swing by up to 2× between runs, while the CPU a request costs stays within a
  // few per cent, so ratios of this figure compare the servers' own work more steadily.
  const perCpuSecondOf = (id: string) =>
    of(id, (run) => rate(run) / Math.max(run.serverCpu / 100, 0.01));
  console.log(`\n${machineLine(options)}; ${new Date().toISOString()}\n`);
  const rows: string[][] = [];
  const endpoints = Object.keys(ENDPOINT_NAMES) as Endpoint[];
  for (const runtime of options.runtimes) {
    for (const endpoint of endpoints) {
      for (const kind of Object.keys(KIND_NAMES) as ServerKind[]) {
        const id = key(runtime, kind, endpoint);
        const list = runs.get(id);
        if (list === undefined) {
          const reason = notApplicable.get(id);
          if (reason !== undefined) {
            rows.push([runtime, ENDPOINT_NAMES[endpoint], KIND_NAMES[kind], reason, ...blank(6)]);
          }
          continue;
        }
        const rates = list.map(rate);
        const failures = list.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
        const busy = Math.max(...list.map((run) => run.busyBefore));
        rows.push([
          runtime,
          ENDPOINT_NAMES[endpoint],
          KIND_NAMES[kind],
          median(rates).toFixed(0),
          `${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}`,
          of(id, (run) => run.p99Us / 1000)!.toFixed(2),
          String(failures),
          median(list.map((run) => run.serverCpu)).toFixed(0),
          perCpuSecondOf(id)!.toFixed(0),
          busy >= QUIET_BELOW_PERCENT ? `${busy.toFixed(0)}% !` : `${busy.toFixed(0)}%`,
        ]);
      }
    }
  }
  printTable(
    [
      "runtime",
      "endpoint",
      "server",
      "req/s median",
      "min–max",
      "p99 ms",
      "errors",
      "server cpu %",
      "req per cpu-s",
      "max busy before",
    ],
    rows,
  );
  console.log(
    `\n"server cpu %": share of core 0 the server used (about 100 when it is the bottleneck); ` +
      `"req per cpu-s": requests per second of the server's CPU time (user + system); ` +
      `"max busy before": the machine's load from other processes before a run ("!" when over ` +
      `${QUIET_BELOW_PERCENT}%: those figures are skewed). The mix runs on ${options.mixPets} pets.`,
  );

  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const show = (value: number | undefined, digits = 2) =>
    value === undefined ? "—" : value.toFixed(digits);
  const perCpuSecond = (run: Measured) => rate(run) / Math.max(run.serverCpu / 100, 0.01);
  /**
   * Ours ÷ a peer per server CPU-second: the median of the rounds' ratios (each round measures
   * both once, close in time), or the ratio of medians when their rounds do not pair up.
   */
  const roundRatio = (ours: string, peer: string) => {
    const a = runs.get(ours);
    const b = runs.get(peer);
    if (a === undefined || b === undefined) return undefined;
    if (a.length !== b.length) return ratio(perCpuSecondOf(ours), perCpuSecondOf(peer));
    return median(a.map((run, i) => perCpuSecond(run) / perCpuSecond(b[i])));
  };
  /** The peer of `kinds` with the most requests per CPU-second on `runtime` for `endpoint`. */
  const fastestOf = (runtime: Runtime, endpoint: Endpoint, kinds: readonly ServerKind[]) => {
    let best: { kind: ServerKind; value: number } | undefined;
    for (const kind of kinds) {
      const value = perCpuSecondOf(key(runtime, kind, endpoint));
      if (value !== undefined && (best === undefined || value > best.value)) {
        best = { kind, value };
      }
    }
    return best;
  };

  console.log(
    `\nOurs against the fastest peer of each yardstick, per server CPU-second (ratio: median of ` +
      `the rounds' ratios; targets of issues 22 and 28)\n`,
  );
  const yardstickRows: string[][] = [];
  const chartGroups: ChartGroup[] = [];
  /** Issue 28's targets, one per runtime and comparison, for the table, the chart and --json. */
  const targetVerdicts: TargetVerdict[] = [];
  const judge = (
    runtime: Runtime,
    endpoint: Endpoint,
    against: { kind: ServerKind; value: number } | undefined,
    ratio: number | undefined,
    target: number | undefined,
  ) => {
    if (target === undefined) return;
    targetVerdicts.push({
      runtime,
      endpoint,
      against: against === undefined ? undefined : KIND_NAMES[against.kind],
      oursPerCpuSecond: perCpuSecondOf(key(runtime, "ours", endpoint)),
      againstPerCpuSecond: against?.value,
      ratio,
      target,
      verdict: ratio === undefined ? "n/a" : ratio >= target ? "MET" : "MISSED",
    });
  };
  const verdicts: string[] = [];
  const verdict = (met: boolean | undefined, text: string) =>
    verdicts.push(`${met === undefined ? "n/a   " : met ? "MET   " : "MISSED"} ${text}`);
  const judged = (value: number | undefined, target: number | undefined) =>
    target === undefined
      ? "no target"
      : value === undefined
      ? "n/a"
      : value >= target
      ? "MET"
      : "MISSED";
  for (const runtime of options.runtimes) {
    for (const endpoint of YARDSTICK_ENDPOINTS) {
      const ours = key(runtime, "ours", endpoint);
      const [asIsKinds, sameKinds] = endpoint === "post"
        ? [["group-commit"], ["group-commit-same"]] as ServerKind[][]
        : [peersOf(runtime), endpoint === "mix" ? [] : sameWorkPeersOf(runtime)];
      const asIs = fastestOf(runtime, endpoint, asIsKinds);
      const same = fastestOf(runtime, endpoint, sameKinds);
      if (!runs.has(ours) && asIs === undefined && same === undefined) continue;
      const asIsRatio = asIs === undefined
        ? undefined
        : roundRatio(ours, key(runtime, asIs.kind, endpoint));
      const sameRatio = same === undefined
        ? undefined
        : roundRatio(ours, key(runtime, same.kind, endpoint));
      const targets = TARGETS[endpoint];
      const ceiling = targets.ceiling === undefined
        ? undefined
        : fastestOf(runtime, endpoint, ["get-ceiling"]);
      const ceilingRatio = ceiling === undefined
        ? undefined
        : roundRatio(ours, key(runtime, ceiling.kind, endpoint));
      if (endpoint === "get") {
        judge(runtime, endpoint, ceiling, ceilingRatio, targets.ceiling);
        judge(runtime, endpoint, same, sameRatio, targets.sameWork);
      } else if (endpoint === "post" && runtime !== "node") {
        // Issue 28 sets these for Bun and Deno; on Node both group-commit peers go through a
        // WHATWG Request bridge, and the yardstick table's verdicts say enough.
        judge(runtime, endpoint, same, sameRatio, targets.sameWork);
        judge(runtime, endpoint, asIs, asIsRatio, targets.asIs);
      }
      yardstickRows.push([
        runtime,
        CHART_ENDPOINT_NAMES[endpoint],
        show(perCpuSecondOf(ours), 0),
        asIs === undefined ? "—" : `${asIs.value.toFixed(0)} (${KIND_NAMES[asIs.kind]})`,
        show(asIsRatio),
        targets.asIs === undefined ? "—" : atLeast(targets.asIs),
        judged(asIsRatio, targets.asIs),
        same === undefined ? "—" : `${same.value.toFixed(0)} (${KIND_NAMES[same.kind]})`,
        show(sameRatio),
        targets.sameWork === undefined ? "—" : atLeast(targets.sameWork),
        judged(sameRatio, targets.sameWork),
      ]);
      const bar = (
        peer: { kind: ServerKind; value: number } | undefined,
        ratio: number | undefined,
        target: number | undefined,
      ): ChartBar | undefined =>
        peer === undefined
          ? undefined
          : { value: peer.value, label: KIND_NAMES[peer.kind], ratio, target };
      chartGroups.push({
        runtime,
        endpoint: CHART_ENDPOINT_NAMES[endpoint],
        ours: perCpuSecondOf(ours),
        asIs: bar(asIs, asIsRatio, targets.asIs),
        sameWork: bar(same, sameRatio, targets.sameWork),
        ceiling: bar(ceiling, ceilingRatio, targets.ceiling),
      });
    }
  }
  printTable([
    "runtime",
    "endpoint",
    "ours req/cpu-s",
    "as-is: fastest peer",
    "ours ÷ it",
    "target",
    "verdict",
    "same-work: fastest peer",
    "ours ÷ it",
    "target",
    "verdict",
  ], yardstickRows);
  console.log(
    `\nAs-is peers: the endpoints as each framework's users write them (key by Set lookup, ` +
      `TypeBox check, deprecation headers). Same-work peers: the same frameworks also doing our ` +
      `contract's per-request duties (log line, request id, ETag/304, Vary, Cache-Control, ` +
      `nosniff, X-Request-Id, Location). Durable POST: the minimal group-commit peer (as-is) and ` +
      `the same-work one. scripts/bench/peers/ has each. The get by id has no as-is target ` +
      `any more (issue 28): see the next table.`,
  );
  printTargets(targetVerdicts);

  for (const runtime of options.runtimes) {
    const deep = key(runtime, "ours", "deep");
    for (
      const [endpoint, target, text] of [
        ["revalidate", 1, "a 304 costs no more CPU than the same page's cached 200 (≥ 1.00×)"],
        ["gzip", 0.9, "a cached gzip page within 10% of the identity page (≥ 0.90)"],
      ] as const
    ) {
      const id = key(runtime, "ours", endpoint);
      if (!runs.has(id) && !notApplicable.has(id)) continue;
      const value = ratio(perCpuSecondOf(id), perCpuSecondOf(deep));
      verdict(
        value === undefined ? undefined : value >= target,
        `${runtime}: ${text}, per cpu-s: ${
          value === undefined ? notApplicable.get(id) ?? "—" : show(value)
        }`,
      );
    }
    const mixRun = runs.get(key(runtime, "ours", "mix"));
    if (mixRun !== undefined) {
      const rss = median(mixRun.map((run) => run.rssMb ?? NaN));
      const ready = median(mixRun.map((run) => run.readyMs));
      verdicts.push(
        `info   ${runtime}: ${options.mixPets} pets: RSS ${rss.toFixed(0)} MB after the mix ` +
          `(target: the figure before the byte cache plus at most CACHE_BYTES), spawn→ready ` +
          `${ready.toFixed(0)} ms (includes the runtime's start-up; target for the store alone ` +
          `< 600 ms: see --replay's loadMs)`,
      );
    }
  }

  if (options.post) {
    console.log(
      "\nDurable creates at 64 connections, req/s (ours keeps idempotency keys, the index and " +
        "the cut-back of a failed batch; neither group-commit peer keeps any of them)\n",
    );
    const postRows: string[][] = [];
    const sqlite = rateOf(key("bun", "sqlite", "post"));
    for (const runtime of options.runtimes) {
      const on = rateOf(key(runtime, "ours", "post"));
      if (on === undefined) continue;
      postRows.push([
        runtime,
        on.toFixed(0),
        show(rateOf(key(runtime, "ours-nofsync", "post")), 0),
        show(rateOf(key(runtime, "group-commit", "post")), 0),
        show(rateOf(key(runtime, "group-commit-same", "post")), 0),
        sqlite === undefined ? "—" : `${show(ratio(on, sqlite), 1)}× (${sqlite.toFixed(0)})`,
      ]);
      if (sqlite !== undefined) {
        const overSqlite = ratio(on, sqlite);
        verdict(
          overSqlite === undefined ? undefined : overSqlite >= 5,
          `${runtime}: durable POST ≥ 5× bun:sqlite: ${show(overSqlite, 1)}`,
        );
      }
    }
    printTable([
      "runtime",
      "ours req/s",
      "ours fsync OFF",
      "group-commit peer",
      "group-commit (same work)",
      "ours/bun:sqlite",
    ], postRows);
  }
  if (verdicts.length > 0) {
    console.log("\nOther verdicts (one run on a shared machine is a hint, not a proof)\n");
    for (const line of verdicts) console.log(`  ${line}`);
  }
  if (options.chart !== undefined) {
    const busiest = Math.max(0, ...[...runs.values()].flat().map((run) => run.busyBefore));
    writeFileSync(
      options.chart,
      renderChart({
        title: "Animal Store API against the fastest peer of each yardstick",
        subtitle: `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC; ` +
          `${options.rounds} round${options.rounds === 1 ? "" : "s"} × ${options.duration} s, ` +
          `wrk -c${options.connections}, ` +
          `${options.pets} pets` +
          (busiest >= QUIET_BELOW_PERCENT ? `; machine busy (up to ${busiest.toFixed(0)}%)` : ""),
        groups: chartGroups,
      }),
    );
    console.log(`\nChart: ${options.chart}`);
  }
  if (options.json !== undefined) {
    const figures = {
      /** Every measured run, by "runtime|server|endpoint". */
      runs: Object.fromEntries(runs),
      /** The rows of the yardstick table, as printed. */
      yardsticks: yardstickRows,
      /** Issue 28's targets and their verdicts. */
      targets: targetVerdicts,
    };
    writeFileSync(options.json, JSON.stringify(figures, null, 1));
    console.log(`\nEvery run's figures, the yardsticks and the targets: ${options.json}`);
  }
}

/** One of issue 28's targets on one runtime: ours ÷ a yardstick per server CPU-second. */
interface TargetVerdict {
  readonly runtime: Runtime;
  readonly endpoint: Endpoint;
  /** The yardstick's name (the get ceiling, the fastest same-work peer, a group-commit peer). */
  readonly against: string | undefined;
  readonly oursPerCpuSecond: number | undefined;
  readonly againstPerCpuSecond: number | undefined;
  /** The median of the rounds' ratios. */
  readonly ratio: number | undefined;
  /** The least ratio that meets the target. */
  readonly target: number;
  readonly verdict: "MET" | "MISSED" | "n/a";
}

function printTargets(verdicts: readonly TargetVerdict[]): void {
  if (verdicts.length === 0) return;
  console.log(
    "\nIssue 28's targets, per server CPU-second: the get by id against the bare server sending " +
      "its eleven headers (the ceiling) and the fastest same-work peer; durable POST (Bun, Deno) " +
      "against the same-work and the minimal group-commit peer\n",
  );
  printTable(
    [
      "runtime",
      "endpoint",
      "ours req/cpu-s",
      "against",
      "its req/cpu-s",
      "ours ÷ it",
      "target",
      "verdict",
    ],
    verdicts.map((row) => [
      row.runtime,
      CHART_ENDPOINT_NAMES[row.endpoint],
      row.oursPerCpuSecond === undefined ? "—" : row.oursPerCpuSecond.toFixed(0),
      row.against ?? "— (not measured)",
      row.againstPerCpuSecond === undefined ? "—" : row.againstPerCpuSecond.toFixed(0),
      row.ratio === undefined ? "—" : row.ratio.toFixed(2),
      atLeast(row.target),
      row.verdict,
    ]),
  );
}

/** "≥ 1.2", "≥ 0.85": a target as the tables print it. */
function atLeast(target: number): string {
  return `≥ ${target.toFixed(2).replace(/0$/, "")}`;
}

function blank(count: number): string[] {
  return Array.from({ length: count }, () => "");
}

// ---------------------------------------------------------------------------------------------
// --profile: our service under `--cpu-prof` on each runtime, one process per measured endpoint.

async function profile(options: Options): Promise<void> {
  requireTools(options);
  const scratch = setupScratch(options);
  const base = options.profile!;
  mkdirSync(base, { recursive: true });
  try {
    for (const runtime of options.runtimes) {
      for (const endpoint of ["list", "get", "deep", "post"] as Endpoint[]) {
        const profileDir = join(base, `${runtime}-${endpoint}`);
        mkdirSync(profileDir, { recursive: true });
        const configuration: Configuration = {
          runtime,
          kind: "ours",
          endpoints: [endpoint],
          pets: options.pets,
        };
        const { running, dataDir } = await startConfiguration(configuration, options, scratch, {
          profileDir,
        });
        let result: WrkResult;
        try {
          const request = await requestOf(endpoint, configuration, running.port, scratch);
          if ("notApplicable" in request) throw new Error(request.notApplicable);
          const { path, script } = request;
          result = await runWrk({
            port: running.port,
            path,
            script,
            seconds: options.duration + options.warmup,
            connections: options.connections,
          });
        } finally {
          await stopServer(running);
          rmSync(dataDir, { recursive: true, force: true });
        }
        console.log(
          `\n== ${runtime}: ${ENDPOINT_NAMES[endpoint]} under --cpu-prof: ` +
            `${rate(result).toFixed(0)} req/s (profiling slows it) ==`,
        );
        const files = readdirSync(profileDir).filter((name) => name.endsWith(".cpuprofile"));
        if (files.length === 0) {
          console.log(`  no .cpuprofile written in ${profileDir}`);
          continue;
        }
        printProfileSummary(join(profileDir, files[0]));
      }
    }
  } finally {
    rmSync(scratch.dir, { recursive: true, force: true });
  }
  console.log(`\nProfiles kept in ${base} (open them in Chrome DevTools or speedscope)`);
}

// ---------------------------------------------------------------------------------------------
// --replay: open time (spawn → /readyz 200) and memory of the real service on a large file.

async function replay(options: Options): Promise<void> {
  if (options.runtimes.includes("node")) buildNodeBundles({ nodeBundle: options.nodeBundle });
  const counts = [options.replayPets, ...(options.tenMillion ? [10_000_000] : [])];
  const dir = mkdtempSync(join(tmpdir(), "animal-store-replay-"));
  const stderrFile = join(dir, "servers.stderr");
  const rows: string[][] = [];
  try {
    for (const count of counts) {
      const dataDir = join(dir, `pets-${count}`);
      mkdirSync(dataDir);
      const started = performance.now();
      const bytes = writePetFile(dataDir, count);
      console.log(
        `generated ${count} pets, ${(bytes / 1e6).toFixed(0)} MB, in ` +
          `${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
      for (let run = 1; run <= options.replayRuns; run++) {
        for (const runtime of options.runtimes) {
          const command = serverCommand(runtime, "ours", { nodeBundle: options.nodeBundle });
          const running = await startServer(command, {
            kind: "ours",
            env: { DATA_DIR: dataDir },
            stderrFile,
            captureStdout: true,
            timeoutMs: 300_000,
            pollMs: 5,
          });
          try {
            const memory = memoryOf(running.pid);
            // The start-up line may still be in the child's log buffer or the pipe: wait a little.
            for (let wait = 0; wait < 50 && !running.stdout().includes('"loadMs"'); wait++) {
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            const loadMs = /"loadMs":(\d+)/.exec(running.stdout())?.[1] ?? "?";
            const deep = await fetch(
              `http://${HOST}:${running.port}/v1/pets?status=sold&limit=100`,
              { headers: { authorization: `Bearer ${BENCH_KEY}` } },
            );
            await deep.arrayBuffer();
            const row = [
              String(count),
              runtime,
              String(run),
              running.readyMs.toFixed(0),
              loadMs,
              memory?.rssMb.toFixed(0) ?? "?",
              memory?.peakMb.toFixed(0) ?? "?",
              String(deep.status),
            ];
            rows.push(row);
            console.log(`  ${row.join("  ")}`);
          } finally {
            await stopServer(running, 60_000);
          }
        }
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log();
  printTable(
    ["pets", "runtime", "run", "spawn→ready ms", "store loadMs", "RSS MB", "peak RSS MB", "serves"],
    rows,
  );
}

// ---------------------------------------------------------------------------------------------

const options = parseOptions(process.argv.slice(2));
if (!existsSync(join(ROOT, "src/main.ts"))) {
  throw new Error("Cannot run: start the benchmark from the repository root (npm run bench)");
}
if (options.summarize !== undefined) printProfileSummary(options.summarize, 40);
else if (options.profile !== undefined) await profile(options);
else if (options.replay) await replay(options);
else await throughput(options);
