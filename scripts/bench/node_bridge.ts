/**
 * Benchmark of the Node bridge (`src/runtime/node.ts`): requests per second and p99 latency of
 * the app served by our adapter, against the same app behind a naive node:http → Request
 * conversion, and against a bare node:http server (the ceiling). Figures come from `wrk`.
 *
 *   node_modules/.bin/esbuild scripts/bench/node_bridge.ts --bundle --platform=node \
 *     --format=esm --outfile=/tmp/bench_node_bridge.mjs
 *   node /tmp/bench_node_bridge.mjs                  # the benchmark (about 1.5 minutes)
 *   node /tmp/bench_node_bridge.mjs check            # behaviour checks of our adapter over HTTP
 *   node /tmp/bench_node_bridge.mjs serve ours       # one server; prints {"port": N}
 *
 * Options: --duration=5 --warmup=1 --rounds=3 --connections=64 --threads=1 --no-post
 * --profile-dir=DIR (runs the `ours` servers under `node --cpu-prof`, profiles written to DIR).
 *
 * Each server runs in its own child process, one at a time, on 127.0.0.1 and a free port. With
 * two cores or more the server is pinned to core 0 and wrk to core 1 (`taskset`), so the load
 * generator does not steal the server's CPU. Rounds are interleaved (every case once per round,
 * in a rotating order) so a slow patch on the machine hits every case alike. Every child and
 * every wrk run has a deadline; nothing listens beyond loopback.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";
import process from "node:process";
import {
  BENCH_KEY,
  LIST_PATH,
  SERVER_KINDS,
  type ServerKind,
  startServer,
} from "./bridge_servers.ts";

const HOST = "127.0.0.1";
const NEW_PET_BODY = '{"name":"Rex","categoryId":9007199254740993,"status":"available"}';

interface Options {
  duration: number;
  warmup: number;
  rounds: number;
  connections: number;
  threads: number;
  post: boolean;
  profileDir: string | undefined;
}

interface BenchCase {
  readonly name: string;
  readonly server: ServerKind;
  readonly script: string;
}

interface WrkResult {
  requests: number;
  durationUs: number;
  p99Us: number;
  errors: number;
  non2xx: number;
}

function parseOptions(args: string[]): Options {
  const options: Options = {
    duration: 5,
    warmup: 1,
    rounds: 3,
    connections: 64,
    threads: 1,
    post: true,
    profileDir: undefined,
  };
  for (const arg of args) {
    const [name, value] = arg.replace(/^--/, "").split("=", 2);
    if (name === "no-post") options.post = false;
    else if (name === "profile-dir") options.profileDir = value;
    else if (name in options && /^[1-9][0-9]*$/.test(value ?? "")) {
      (options as unknown as Record<string, number>)[name] = Number(value);
    } else {
      throw new Error(`Cannot parse option: ${arg}`);
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// Child mode: one server.

async function serveChild(kind: string): Promise<void> {
  if (!(SERVER_KINDS as readonly string[]).includes(kind)) {
    throw new Error(`Cannot serve: unknown server ${kind}`);
  }
  const server = await startServer(kind as ServerKind, { host: HOST });
  process.stdout.write(JSON.stringify({ port: server.port }) + "\n");
  const stop = async () => {
    await server.close();
    // exit() (not a signal death) lets `--cpu-prof` write its profile.
    process.exit(0);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  // Started by the benchmark: go when it goes, even if it was killed before it could stop us.
  process.once("disconnect", stop);
}

// ---------------------------------------------------------------------------------------------
// Parent mode: the benchmark.

function hasCommand(name: string): boolean {
  try {
    execFileSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** The command prefix that pins a process to `core`, or none on a single core or without taskset. */
function pinning(core: number): string[] {
  return availableParallelism() >= 2 && hasCommand("taskset")
    ? ["taskset", "-c", String(core)]
    : [];
}

function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  onTimeout: () => void,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} did not finish within ${ms} ms`));
    }, ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Starts a server child and resolves with its port once it listens. */
async function startChild(
  kind: ServerKind,
  options: Options,
): Promise<{ child: ChildProcess; port: number }> {
  const nodeFlags = kind === "ours" && options.profileDir !== undefined
    ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`]
    : [];
  const [pin, ...pinArgs] = [...pinning(0), process.execPath];
  const child = spawn(pin, [...pinArgs, ...nodeFlags, process.argv[1], "serve", kind], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const port = new Promise<number>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n")[0];
      if (output.includes("\n")) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once(
      "exit",
      (code) => reject(new Error(`Server ${kind} exited with code ${code} before listening`)),
    );
  });
  return {
    child,
    port: await withDeadline(port, 10_000, `Server ${kind} start`, () => child.kill("SIGKILL")),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await withDeadline(exited, 5_000, "Server stop", () => child.kill("SIGKILL")).catch(() => {});
}

/** A wrk Lua script for one case; `done` prints the figures as one JSON line. */
function wrkScript(method: "GET" | "POST"): string {
  const body = method === "POST"
    ? `wrk.body = '${NEW_PET_BODY}'\nwrk.headers["Content-Type"] = "application/json"\n`
    : "";
  return `wrk.method = "${method}"
wrk.headers["Authorization"] = "Bearer ${BENCH_KEY}"
${body}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"p99Us":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`;
}

function runWrk(
  port: number,
  script: string,
  seconds: number,
  options: Options,
): Promise<WrkResult> {
  const args = [
    ...pinning(1),
    "wrk",
    `-t${options.threads}`,
    `-c${options.connections}`,
    `-d${seconds}s`,
    "--timeout",
    "2s",
    "-s",
    script,
    `http://${HOST}:${port}${LIST_PATH}`,
  ];
  const wrk = spawn(args[0], args.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  wrk.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const finished = new Promise<WrkResult>((resolve, reject) => {
    wrk.once("error", reject);
    wrk.once("exit", (code) => {
      const line = output.split("\n").find((text) => text.startsWith("BENCH_RESULT "));
      if (code !== 0 || line === undefined) {
        return reject(new Error(`wrk failed (code ${code}):\n${output}`));
      }
      resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as WrkResult);
    });
  });
  return withDeadline(finished, (seconds + 15) * 1000, "wrk", () => wrk.kill("SIGKILL"));
}

async function runCase(benchCase: BenchCase, options: Options): Promise<WrkResult> {
  const { child, port } = await startChild(benchCase.server, options);
  try {
    // Warm-up: lets the JIT settle before the measured run.
    if (options.warmup > 0) await runWrk(port, benchCase.script, options.warmup, options);
    return await runWrk(port, benchCase.script, options.duration, options);
  } finally {
    await stopChild(child);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function bench(options: Options): Promise<void> {
  if (!hasCommand("wrk")) {
    throw new Error("Cannot run the benchmark: wrk is not installed (apt-get install -y wrk)");
  }
  const scratch = mkdtempSync(join(tmpdir(), "bench-node-bridge-"));
  const getScript = join(scratch, "get.lua");
  const postScript = join(scratch, "post.lua");
  writeFileSync(getScript, wrkScript("GET"));
  writeFileSync(postScript, wrkScript("POST"));
  const cases: BenchCase[] = [
    { name: `GET ${LIST_PATH}`, server: "ceiling", script: getScript },
    { name: `GET ${LIST_PATH}`, server: "ours", script: getScript },
    { name: `GET ${LIST_PATH}`, server: "naive", script: getScript },
  ];
  if (options.post) {
    cases.push(
      { name: "POST /v1/pets", server: "ours", script: postScript },
      { name: "POST /v1/pets", server: "naive", script: postScript },
    );
  }
  const results = new Map<BenchCase, WrkResult[]>(cases.map((benchCase) => [benchCase, []]));
  const pinned = pinning(0).length > 0;
  console.log(
    `node ${process.versions.node}; wrk -t${options.threads} -c${options.connections} -d${options.duration}s ` +
      `(+${options.warmup}s warm-up), ${options.rounds} rounds; ` +
      (pinned ? "server on core 0, wrk on core 1" : "not pinned (taskset missing or one core)"),
  );
  try {
    for (let round = 0; round < options.rounds; round++) {
      // Rotate the order each round, so no case always runs first (or right after another).
      const order = cases.map((_, i) => cases[(i + round) % cases.length]);
      for (const benchCase of order) {
        const result = await runCase(benchCase, options);
        results.get(benchCase)!.push(result);
        const rate = result.requests / (result.durationUs / 1e6);
        console.log(
          `  round ${round + 1}: ${benchCase.name.padEnd(24)} ${benchCase.server.padEnd(8)}` +
            `${rate.toFixed(0).padStart(8)} req/s  p99 ${(result.p99Us / 1000).toFixed(2)} ms` +
            (result.errors + result.non2xx > 0
              ? `  (${result.errors} errors, ${result.non2xx} non-2xx)`
              : ""),
        );
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  printTable(cases, results);
}

function printTable(cases: BenchCase[], results: Map<BenchCase, WrkResult[]>): void {
  const summary = new Map<string, number>();
  const rows = cases.map((benchCase) => {
    const runs = results.get(benchCase)!;
    const rates = runs.map((run) => run.requests / (run.durationUs / 1e6));
    const rate = median(rates);
    summary.set(`${benchCase.name} ${benchCase.server}`, rate);
    const failures = runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
    return [
      benchCase.name,
      benchCase.server,
      rate.toFixed(0),
      `${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}`,
      (median(runs.map((run) => run.p99Us)) / 1000).toFixed(2),
      String(failures),
    ];
  });
  const header = [
    "case",
    "server",
    "req/s (median)",
    "min–max",
    "p99 ms (median)",
    "errors+non-2xx",
  ];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i].length))
  );
  const line = (cells: string[]) =>
    "| " + cells.map((cell, i) => cell.padEnd(widths[i])).join(" | ") + " |";
  console.log("\n" + line(header));
  console.log("|" + widths.map((width) => "-".repeat(width + 2)).join("|") + "|");
  for (const row of rows) console.log(line(row));

  const ratio = (a: string, b: string) => {
    const x = summary.get(a), y = summary.get(b);
    return x === undefined || y === undefined ? "n/a" : (x / y).toFixed(2);
  };
  const get = `GET ${LIST_PATH}`;
  console.log(
    `\n${get}: ours/naive = ${ratio(`${get} ours`, `${get} naive`)}, ` +
      `ours/ceiling = ${ratio(`${get} ours`, `${get} ceiling`)}, naive/ceiling = ${
        ratio(`${get} naive`, `${get} ceiling`)
      }`,
  );
  if (summary.has("POST /v1/pets ours")) {
    console.log(
      `POST /v1/pets: ours/naive = ${ratio("POST /v1/pets ours", "POST /v1/pets naive")}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Check mode: the adapter's behaviour over real HTTP.

/** Sends raw bytes on a fresh connection and collects everything received until close or `waitMs`. */
function rawExchange(
  port: number,
  parts: (string | Buffer)[],
  options: { waitMs?: number; destroyAfterSend?: boolean } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, HOST);
    let received = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, options.waitMs ?? 2_000);
    socket.on("data", (chunk) => (received += chunk.toString("latin1")));
    socket.on("error", (error) => {
      // A server that closes while we still send (the 413 path) resets the connection.
      if (
        (error as NodeJS.ErrnoException).code === "ECONNRESET" ||
        (error as NodeJS.ErrnoException).code === "EPIPE"
      ) return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on("connect", async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        if (!socket.write(part)) await new Promise((done) => socket.once("drain", done));
      }
      if (options.destroyAfterSend) socket.destroy();
    });
  });
}

function headerBlock(raw: string): { status: number; headers: Map<string, string>; body: string } {
  const end = raw.indexOf("\r\n\r\n");
  const lines = raw.slice(0, end === -1 ? raw.length : end).split("\r\n");
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return {
    status: Number(lines[0].split(" ")[1]),
    headers,
    body: end === -1 ? "" : raw.slice(end + 4),
  };
}

async function check(): Promise<void> {
  const server = await startServer("ours", {
    host: HOST,
    wrapHandle: (handle) => (request, respond) => {
      if (request.url.endsWith("/bench/throw")) throw new Error("a synchronous throw");
      if (request.url.endsWith("/bench/reject")) return Promise.reject(new Error("a rejection"));
      return handle(request, respond);
    },
  });
  const base = `http://${HOST}:${server.port}`;
  const auth = { authorization: `Bearer ${BENCH_KEY}` };
  const results: { name: string; ok: boolean; detail: string }[] = [];
  const expect = (name: string, ok: boolean, detail: string) => results.push({ name, ok, detail });
  const megabyte = Buffer.alloc(1024 * 1024, "a");

  try {
    const list = await fetch(base + LIST_PATH, { headers: auth });
    const pets = await list.json() as unknown[];
    expect(
      "GET list is 200 with 20 pets",
      list.status === 200 && pets.length === 20,
      `${list.status}, ${pets.length} pets`,
    );

    const created = await fetch(base + "/v1/pets", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: NEW_PET_BODY,
    });
    const createdText = await created.text();
    expect(
      "POST is 201 with the exact int64",
      created.status === 201 && createdText.includes("9007199254740993") &&
        created.headers.has("location"),
      `${created.status} ${createdText}`,
    );

    // Declared 1 MB, but only 64 KB sent: the 413 must come without waiting for the rest.
    const declared = headerBlock(
      await rawExchange(server.port, [
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${megabyte.byteLength}\r\n\r\n`,
        megabyte.subarray(0, 64 * 1024),
      ]),
    );
    expect(
      "POST declaring 1 MB is 413 JSON before the body is sent, connection closed",
      declared.status === 413 && declared.body.includes('"payload_too_large"') &&
        declared.headers.get("connection") === "close",
      `${declared.status} connection=${declared.headers.get("connection")} ${
        declared.body.slice(0, 80)
      }`,
    );

    // 1 MB chunked, no length: the stream is cut once it passes the limit.
    const chunked = headerBlock(
      await rawExchange(server.port, [
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n` +
        `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        ...Array.from(
          { length: 16 },
          () => `10000\r\n${megabyte.subarray(0, 0x10000).toString("latin1")}\r\n`,
        ),
        "0\r\n\r\n",
      ]),
    );
    expect(
      "POST streaming 1 MB chunked is 413 JSON, connection closed",
      chunked.status === 413 && chunked.body.includes('"payload_too_large"') &&
        chunked.headers.get("connection") === "close",
      `${chunked.status} connection=${chunked.headers.get("connection")} ${
        chunked.body.slice(0, 80)
      }`,
    );

    const head = headerBlock(
      await rawExchange(server.port, [
        `HEAD ${LIST_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\nConnection: close\r\n\r\n`,
      ]),
    );
    expect(
      "HEAD is 200 with no body",
      head.status === 200 && head.body === "",
      `${head.status}, ${head.body.length} body bytes`,
    );

    const twice = await rawExchange(server.port, [
      `GET ${LIST_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n\r\n` +
      `GET ${LIST_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\nConnection: close\r\n\r\n`,
    ]);
    const answers = twice.split("HTTP/1.1 200 OK").length - 1;
    expect(
      "two pipelined GETs on one keep-alive connection are both answered",
      answers === 2,
      `${answers} answers`,
    );

    const postRequest =
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${NEW_PET_BODY.length}\r\n\r\n${NEW_PET_BODY}`;
    const posts = await rawExchange(server.port, [
      postRequest,
      postRequest.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"),
    ]);
    const createdTwice = posts.split("HTTP/1.1 201 Created").length - 1;
    expect(
      "two pipelined POSTs on one keep-alive connection are both created",
      createdTwice === 2,
      `${createdTwice} created`,
    );

    const lengths = headerBlock(
      await rawExchange(server.port, [
        `GET ${LIST_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\nConnection: close\r\n\r\n`,
      ]),
    );
    expect(
      "GET list has a Content-Length equal to its body",
      lengths.headers.get("content-length") === String(Buffer.byteLength(lengths.body)) &&
        !lengths.headers.has("transfer-encoding"),
      `content-length=${lengths.headers.get("content-length")}, body ${
        Buffer.byteLength(lengths.body)
      } bytes`,
    );

    const unauthorized = headerBlock(
      await rawExchange(server.port, [
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":`,
      ]),
    );
    expect(
      "POST without a key is 401 and closes the connection (body left unread)",
      unauthorized.status === 401 && unauthorized.headers.get("connection") === "close",
      `${unauthorized.status} connection=${unauthorized.headers.get("connection")}`,
    );

    for (const path of ["/bench/throw", "/bench/reject"]) {
      const failed = await fetch(base + path);
      expect(
        `a handler that fails (${path}) gives 500`,
        failed.status === 500,
        String(failed.status),
      );
    }

    // Client aborts mid-body and mid-request; the server must carry on.
    await rawExchange(server.port, [
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"Re`,
    ], { destroyAfterSend: true });
    await rawExchange(server.port, [
      `GET ${LIST_PATH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${BENCH_KEY}\r\n\r\n`,
    ], {
      destroyAfterSend: true,
    });
    const after = await fetch(base + LIST_PATH, { headers: auth });
    await after.arrayBuffer();
    expect(
      "the server still answers after client aborts",
      after.status === 200,
      String(after.status),
    );
  } finally {
    await server.close();
  }

  for (const result of results) {
    console.log(`${result.ok ? "ok  " : "FAIL"} ${result.name} (${result.detail})`);
  }
  const failed = results.filter((result) => !result.ok).length;
  console.log(
    failed === 0
      ? `\nall ${results.length} checks passed`
      : `\n${failed} of ${results.length} checks failed`,
  );
  process.exitCode = failed === 0 ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------

const [mode, ...rest] = process.argv.slice(2);
if (mode === "serve") await serveChild(rest[0] ?? "");
else if (mode === "check") await check();
else await bench(parseOptions(mode === undefined ? rest : [mode, ...rest]));
