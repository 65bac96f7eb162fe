/**
 * Child processes for `scripts/bench/bench.ts`: the command line of each server configuration, started
 * pinned to core 0 on 127.0.0.1 and a free port, waited for until it answers, and stopped with
 * a deadline. Also the esbuild bundles Node needs (it cannot run TypeScript).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { denoStartFlags, freePort } from "../../test/support/server_process.ts";
import { BENCH_KEY } from "./peers/pet_fixture.ts";

export type Runtime = "bun" | "deno" | "node";

/**
 * What runs: our service, our service with fsync off, or a peer; a `-same` peer is the
 * framework doing our contract's per-request duties too (the same-work yardstick). `ceiling` is
 * the runtime's bare server answering a fixed page, `get-ceiling` one answering our get's pet
 * with our get's headers; a `-postgres` peer keeps its pets in PostgreSQL (`DATABASE_URL`).
 */
export type ServerKind =
  | "ceiling"
  | "get-ceiling"
  | "ours"
  | "ours-nofsync"
  | "hono"
  | "elysia"
  | "fastify"
  | "hono-same"
  | "elysia-same"
  | "fastify-same"
  | "sqlite"
  | "group-commit"
  | "group-commit-same"
  | "hono-postgres"
  | "fastify-postgres";

export const HOST = "127.0.0.1";

/** The repository root (npm runs scripts there). */
export const ROOT = process.cwd();

/** Where bundles for Node go: under the benchmark's own node_modules, so the peers' bare imports resolve. */
export const BUNDLE_DIR = join(
  ROOT,
  "scripts",
  "bench",
  "node_modules",
  ".cache",
  "animal-store-bench",
);

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);

/** The same permissions as `deno task start` (deno.json). */
const DENO_SERVICE_FLAGS = denoStartFlags();

const PEER_FILES: Partial<Record<ServerKind, string>> = {
  ceiling: "bare_server",
  "get-ceiling": "get_ceiling_server",
  hono: "hono_server",
  elysia: "elysia_server",
  fastify: "fastify_server",
  "hono-same": "hono_same_work_server",
  "elysia-same": "elysia_same_work_server",
  "fastify-same": "fastify_same_work_server",
  sqlite: "sqlite_server",
  "group-commit": "group_commit_server",
  "group-commit-same": "group_commit_same_work_server",
  "hono-postgres": "hono_postgres_server",
  "fastify-postgres": "fastify_postgres_server",
};

/** The peers Node runs, bundled with their frameworks left as imports. */
const PEER_BUNDLES = [
  "bare_server",
  "get_ceiling_server",
  "hono_server",
  "fastify_server",
  "hono_same_work_server",
  "fastify_same_work_server",
  "group_commit_server",
  "group_commit_same_work_server",
  "fastify_postgres_server",
];

export function hasCommand(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The prefix that pins a process to `core` (none on one core or without taskset). */
export function pinning(core: number): string[] {
  return availableParallelism() >= 2 && hasCommand("taskset")
    ? ["taskset", "-c", String(core)]
    : [];
}

/** `npm run build`'s banner: a `require` for the CommonJS packages bundled (node-postgres). */
const REQUIRE_BANNER = "--banner:js=import { createRequire as bannerCreateRequire } from " +
  "'node:module'; const require = bannerCreateRequire(import.meta.url);";

/**
 * Builds what Node runs: the service bundle exactly as `npm run build` makes it (into our cache
 * directory, so a build here never replaces `dist/` under other users), the fsync-off entry,
 * and the Node peers (frameworks left as imports from node_modules).
 */
export function buildNodeBundles(options: { nodeBundle?: string }): void {
  const esbuild = bin("esbuild");
  const common = ["--bundle", "--platform=node", "--format=esm", "--target=node20", REQUIRE_BANNER];
  if (options.nodeBundle === undefined) {
    buildServiceBundle(ROOT, join(BUNDLE_DIR, "animal-store.mjs"));
  }
  execFileSync(esbuild, [
    "scripts/bench/service_nofsync.ts",
    ...common,
    `--outfile=${join(BUNDLE_DIR, "service_nofsync.mjs")}`,
    "--log-level=warning",
  ], { cwd: ROOT, stdio: "inherit" });
  for (const name of PEER_BUNDLES) {
    execFileSync(esbuild, [
      `scripts/bench/peers/${name}.ts`,
      ...common,
      "--packages=external",
      `--outfile=${join(BUNDLE_DIR, `${name}.mjs`)}`,
      "--log-level=warning",
    ], { cwd: ROOT, stdio: "inherit" });
  }
}

/** The service of the checkout at `root` bundled for Node into `outfile`, as `npm run build` does. */
export function buildServiceBundle(root: string, outfile: string): void {
  execFileSync(bin("esbuild"), [
    "src/main.ts",
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--target=node20",
    REQUIRE_BANNER,
    `--outfile=${outfile}`,
    "--log-level=warning",
  ], { cwd: root, stdio: "inherit" });
}

/**
 * The command line (without pinning) of one configuration; `root` is another checkout of the
 * repository whose service runs instead of this one's (Node: give its bundle as `nodeBundle`).
 */
export function serverCommand(
  runtime: Runtime,
  kind: ServerKind,
  options: { nodeBundle?: string; profileDir?: string; root?: string },
): string[] {
  const prof = options.profileDir === undefined
    ? []
    : runtime === "deno"
    ? ["--cpu-prof", "--cpu-prof-dir", options.profileDir]
    : ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`];
  const peer = PEER_FILES[kind];
  if (peer !== undefined) {
    if (runtime === "bun") {
      return [bin("bun"), ...prof, join(ROOT, `scripts/bench/peers/${peer}.ts`)];
    }
    if (runtime === "deno") {
      return [bin("deno"), "run", "-A", ...prof, join(ROOT, `scripts/bench/peers/${peer}.ts`)];
    }
    return [process.execPath, ...prof, join(BUNDLE_DIR, `${peer}.mjs`)];
  }
  const source = join(
    options.root ?? ROOT,
    kind === "ours" ? "src/main.ts" : "scripts/bench/service_nofsync.ts",
  );
  if (runtime === "bun") return [bin("bun"), ...prof, source];
  if (runtime === "deno") {
    return [bin("deno"), "run", ...DENO_SERVICE_FLAGS, ...prof, source];
  }
  const bundle = kind === "ours"
    ? options.nodeBundle ?? join(BUNDLE_DIR, "animal-store.mjs")
    : join(BUNDLE_DIR, "service_nofsync.mjs");
  return [process.execPath, ...prof, bundle];
}

/** A free loopback port, as the test harness finds one. */
export { freePort };

/** A started server. */
export interface Running {
  readonly child: ChildProcess;
  readonly port: number;
  readonly pid: number;
  /** Milliseconds from spawn to the first successful readiness answer. */
  readonly readyMs: number;
  /** Everything the child printed on stdout, when `captureStdout` was set. */
  stdout(): string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts one configuration pinned to core 0, with `env`, and resolves once it answers: ours on
 * `/readyz` with 200, a peer on a list request with 200 (the ceiling and the sqlite peer on any
 * answer). Stdout goes to /dev/null unless captured (our service logs every request there, as in
 * production: its cost is part of what is measured). Gives up after `timeoutMs`.
 */
export async function startServer(
  command: string[],
  options: {
    kind: ServerKind;
    env: Record<string, string>;
    stderrFile: string;
    captureStdout?: boolean;
    timeoutMs?: number;
    pollMs?: number;
  },
): Promise<Running> {
  const port = await freePort();
  const [file, ...args] = [...pinning(0), ...command];
  const started = performance.now();
  const stderr = openSync(options.stderrFile, "a");
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env, PORT: String(port), HOST, API_KEYS: BENCH_KEY },
    stdio: ["ignore", options.captureStdout ? "pipe" : "ignore", stderr],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    if (output.length < 1 << 20) output += chunk.toString();
  });
  let exited = false;
  child.once("exit", () => (exited = true));
  const readyPath = options.kind === "ours" || options.kind === "ours-nofsync"
    ? "/readyz"
    : "/v1/pets?limit=1";
  const anyAnswer = options.kind === "ceiling" || options.kind === "sqlite" ||
    options.kind === "group-commit" || options.kind === "group-commit-same";
  const deadline = started + (options.timeoutMs ?? 60_000);
  while (performance.now() < deadline) {
    if (exited) {
      throw new Error(
        `${command.join(" ")} exited before it was ready (stderr in ${options.stderrFile})`,
      );
    }
    try {
      const response = await fetch(`http://${HOST}:${port}${readyPath}`, {
        headers: { authorization: `Bearer ${BENCH_KEY}` },
        signal: AbortSignal.timeout(2_000),
      });
      await response.arrayBuffer();
      if (response.status === 200 || (anyAnswer && response.status < 500)) {
        return {
          child,
          port,
          pid: child.pid!,
          readyMs: performance.now() - started,
          stdout: () => output,
        };
      }
    } catch {
      // Not listening yet.
    }
    await sleep(options.pollMs ?? 20);
  }
  child.kill("SIGKILL");
  throw new Error(`${command.join(" ")} was not ready within ${options.timeoutMs ?? 60_000} ms`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the child has exited. */
export async function stopServer(running: Running, graceMs = 15_000): Promise<void> {
  const { child } = running;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Resident set size and its peak, in MB, from /proc (Linux). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } | undefined {
  const path = `/proc/${pid}/status`;
  if (!existsSync(path)) return undefined;
  const status = readFileSync(path, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
  return { rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 };
}
