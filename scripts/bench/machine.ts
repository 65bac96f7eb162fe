/**
 * What `bench.ts` drives and reads: server processes pinned to core 0 on 127.0.0.1 and a free
 * port, `wrk` pinned to core 1, and CPU time from `/proc` (Linux): of a process and of a whole
 * PostgreSQL server.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import process from "node:process";
import { freePort } from "../../test/support/server_process.ts";

export const HOST = "127.0.0.1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const CAN_PIN = availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).status === 0;
/** The prefix that pins a process to `core` (none on one core or without taskset). */
const pinning = (core: number) => CAN_PIN ? ["taskset", "-c", String(core)] : [];

export type Running = { child: ChildProcess; port: number; pid: number };

/**
 * Starts `command` pinned to core 0 with `env`, and resolves once `readyPath` answers 200 (any
 * answer under 500 with `anyAnswer`). Stdout goes to /dev/null: our service logs every request
 * there, as in production, and its cost is part of what is measured.
 */
export async function startServer(command: string[], options: {
  env: Record<string, string>;
  readyPath: string;
  anyAnswer: boolean;
  headers: Record<string, string>;
  stderrFile: string;
}): Promise<Running> {
  const port = await freePort();
  const [file, ...args] = [...pinning(0), ...command];
  const child = spawn(file, args, {
    env: { ...process.env, ...options.env, PORT: String(port), HOST },
    stdio: ["ignore", "ignore", openSync(options.stderrFile, "a")],
  });
  const deadline = performance.now() + 300_000;
  while (performance.now() < deadline && child.exitCode === null && !child.signalCode) {
    try {
      const response = await fetch(`http://${HOST}:${port}${options.readyPath}`, {
        headers: options.headers,
        signal: AbortSignal.timeout(2_000),
      });
      await response.arrayBuffer();
      if (response.status === 200 || (options.anyAnswer && response.status < 500)) {
        return { child, port, pid: child.pid! };
      }
    } catch {
      // Not listening yet.
    }
    await sleep(20);
  }
  child.kill("SIGKILL");
  throw new Error(`${command.join(" ")} was not ready (its stderr: ${options.stderrFile})`);
}

/** SIGTERM, then SIGKILL after 15 s; resolves once the child has exited. */
export async function stopServer({ child }: Running): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * wrk's figures: `errors` connect, read, write and timeout errors; `non2xx` answers outside
 * 2xx/3xx; `closed` answers that carried `Connection: close` (each made wrk open a connection).
 */
export type WrkResult = Record<
  "requests" | "durationUs" | "p99Us" | "errors" | "non2xx" | "closed",
  number
>;

export const rate = (result: WrkResult) => result.requests / (result.durationUs / 1e6);

/**
 * A wrk script: `method` with `headers`, the body read from `bodyFile`, or each path drawn at
 * random from `pathsFile` (a table literal of 100 k strings is past LuaJIT's constant limit).
 * `countCloses` adds a response hook counting `Connection: close`; it makes wrk parse every
 * answer's headers, so only the creates, far slower than wrk, have it. `done` prints JSON.
 */
export function wrkScript(options: {
  method: string;
  headers: Record<string, string>;
  bodyFile?: string;
  pathsFile?: string;
  countCloses?: boolean;
}): string {
  const lines = [`wrk.method = "${options.method}"`, `closed = 0`, `local threads = {}`];
  for (const [name, value] of Object.entries(options.headers)) {
    lines.push(`wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`);
  }
  if (options.bodyFile !== undefined) {
    const file = JSON.stringify(options.bodyFile);
    lines.push(`local file = io.open(${file}, "rb")`, `wrk.body = file:read("*a")`, `file:close()`);
  }
  if (options.pathsFile !== undefined) {
    lines.push(
      `local paths = {}`,
      `for line in io.lines(${JSON.stringify(options.pathsFile)}) do paths[#paths + 1] = line end`,
      `request = function() return wrk.format(nil, paths[math.random(#paths)]) end`,
    );
  }
  if (options.countCloses) {
    lines.push(
      `function response(status, headers, body)`,
      `  local value = headers["Connection"] or headers["connection"]`,
      `  if value ~= nil and string.lower(value) == "close" then closed = closed + 1 end`,
      `end`,
    );
  }
  return [
    ...lines,
    `function setup(thread) threads[#threads + 1] = thread end`,
    `function done(summary, latency, requests)`,
    `  local e, closes = summary.errors, 0`,
    `  for _, thread in ipairs(threads) do closes = closes + thread:get("closed") end`,
    `  io.write(string.format('BENCH_RESULT {"requests":%d,"durationUs":%d,"p99Us":%d,' ..`,
    `    '"errors":%d,"non2xx":%d,"closed":%d}\\n', summary.requests, summary.duration,`,
    `    latency:percentile(99), e.connect + e.read + e.write + e.timeout, e.status, closes))`,
    `end\n`,
  ].join("\n");
}

/** One bounded wrk run (1 thread, pinned to core 1) against `http://127.0.0.1:port` + `path`. */
export function runWrk(options: {
  port: number;
  path: string;
  script: string;
  seconds: number;
  connections: number;
}): Promise<WrkResult> {
  const { port, path, script, seconds, connections } = options;
  const args = [
    ...pinning(1),
    "wrk",
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "--timeout",
    "2s",
  ];
  args.push("-s", script, `http://${HOST}:${port}${path}`);
  const wrk = spawn(args[0], args.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  wrk.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  wrk.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<WrkResult>((resolve, reject) => {
    const timer = setTimeout(() => wrk.kill("SIGKILL"), (seconds + 20) * 1000);
    wrk.once("error", reject);
    // "close", not "exit": the exit may come before the last of the output has been read.
    wrk.once("close", (code) => {
      clearTimeout(timer);
      const line = output.split("\n").find((text) => text.startsWith("BENCH_RESULT "));
      if (code !== 0 || line === undefined) return reject(new Error(`wrk (${code}):\n${output}`));
      resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as WrkResult);
    });
  });
}

/** The fields after the command name of /proc/<pid>/stat (the name may hold spaces). */
function statFields(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone between the listing and the read
  }
}

/** CPU seconds (user + system: fields 14 and 15 of stat) a process has used so far. */
export function cpuSecondsOf(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * CPU seconds a PostgreSQL server has used so far: its postmaster and every process it forked.
 * A backend that exits is not lost: the postmaster reaps it and the kernel adds its time to the
 * postmaster's `cutime`/`cstime`, counted too, so two readings' difference is what the database
 * spent between them, whatever connections came and went.
 */
export function postgresCpuSeconds(postmasterPid: number): number {
  const own = statFields(postmasterPid);
  if (own === undefined) throw new Error(`Cannot read the CPU time of postmaster ${postmasterPid}`);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of readdirSync("/proc")) {
    const fields = /^[0-9]+$/.test(entry) ? statFields(Number(entry)) : undefined;
    // ppid is field 4: 1 after the name.
    if (fields !== undefined && Number(fields[1]) === postmasterPid) {
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  }
  return ticks / 100;
}

/** The postmaster's pid: the first line of `postmaster.pid` in its data directory. */
export const postmasterPidOf = (dataDirectory: string) =>
  Number(readFileSync(`${dataDirectory}/postmaster.pid`, "utf8").split("\n")[0]);
