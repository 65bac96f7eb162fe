/**
 * Drives one server with `wrk` (Debian's package), pinned to core 1: a Lua script per request
 * kind, whose `done` hook prints the figures as one JSON line. Every run has a deadline.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BENCH_KEY } from "./peers/pet_fixture.ts";
import { HOST, pinning } from "./processes.ts";

/** The body of every measured create. */
// categoryId within 2^53 so that the peers (JS numbers) accept it too; our service keeps any int64.
export const NEW_PET_BODY = '{"name":"Rex","categoryId":9007199254740991,"status":"available"}';

/** Figures of one wrk run. */
export interface WrkResult {
  readonly requests: number;
  readonly durationUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  /** Connect, read, write and timeout errors. */
  readonly errors: number;
  /** Answers outside 2xx/3xx. */
  readonly non2xx: number;
}

/** Requests per second of a run. */
export function rate(result: WrkResult): number {
  return result.requests / (result.durationUs / 1e6);
}

const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`;

/** Writes the GET and POST scripts into `dir`; returns their paths. */
export function writeWrkScripts(dir: string): { get: string; post: string } {
  const auth = `wrk.headers["Authorization"] = "Bearer ${BENCH_KEY}"\n`;
  const get = join(dir, "get.lua");
  const post = join(dir, "post.lua");
  writeFileSync(get, `wrk.method = "GET"\n${auth}${DONE}`);
  writeFileSync(
    post,
    `wrk.method = "POST"\n${auth}wrk.headers["Content-Type"] = "application/json"\n` +
      `wrk.body = '${NEW_PET_BODY}'\n${DONE}`,
  );
  return { get, post };
}

/** Writes a GET script that adds `headers` to every request (a conditional or gzip client). */
export function writeHeaderScript(
  dir: string,
  name: string,
  headers: Record<string, string>,
): string {
  const path = join(dir, `${name}.lua`);
  const lines = Object.entries(headers).map(([header, value]) =>
    `wrk.headers[${JSON.stringify(header)}] = ${JSON.stringify(value)}\n`
  );
  writeFileSync(
    path,
    `wrk.method = "GET"\nwrk.headers["Authorization"] = "Bearer ${BENCH_KEY}"\n` +
      `${lines.join("")}${DONE}`,
  );
  return path;
}

/**
 * Writes a GET script that picks each request's path at random from `paths` (read by wrk from a
 * file: a table literal of 100 k strings is past LuaJIT's constant limit).
 */
export function writeMixScript(dir: string, name: string, paths: readonly string[]): string {
  const list = join(dir, `${name}.paths`);
  writeFileSync(list, paths.join("\n") + "\n");
  const path = join(dir, `${name}.lua`);
  writeFileSync(
    path,
    `wrk.method = "GET"\nwrk.headers["Authorization"] = "Bearer ${BENCH_KEY}"\n` +
      `local paths = {}\nfor line in io.lines(${JSON.stringify(list)}) do ` +
      `paths[#paths + 1] = line end\nmath.randomseed(os.time())\n` +
      `request = function() return wrk.format(nil, paths[math.random(#paths)]) end\n${DONE}`,
  );
  return path;
}

/** One bounded wrk run against `http://127.0.0.1:port` + `path` (`https://` with `scheme`). */
export function runWrk(options: {
  port: number;
  scheme?: "http" | "https";
  path: string;
  script: string;
  seconds: number;
  connections: number;
}): Promise<WrkResult> {
  const args = [
    ...pinning(1),
    "wrk",
    "-t1",
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "2s",
    "--latency",
    "-s",
    options.script,
    `${options.scheme ?? "http"}://${HOST}:${options.port}${options.path}`,
  ];
  const wrk = spawn(args[0], args.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  wrk.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  wrk.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<WrkResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      wrk.kill("SIGKILL");
      reject(new Error(`wrk did not finish within ${options.seconds + 20} s`));
    }, (options.seconds + 20) * 1000);
    wrk.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // "close", not "exit": the exit may come before the last of the output has been read.
    wrk.once("close", (code) => {
      clearTimeout(timer);
      const line = output.split("\n").find((text) => text.startsWith("BENCH_RESULT "));
      if (code !== 0 || line === undefined) {
        return reject(new Error(`wrk failed (code ${code}):\n${output}`));
      }
      resolve(JSON.parse(line.slice("BENCH_RESULT ".length)) as WrkResult);
    });
  });
}
