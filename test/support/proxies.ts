/**
 * nginx and HAProxy from Debian's packages, run on loopback ports with the configurations the
 * project ships (deploy/nginx, deploy/haproxy), each in a temporary directory of its own. The
 * shipped files name ports 8080 (the proxy) and 8081, 8082 (the instances); `startProxy` replaces
 * those and nothing else. Without the programs the suites are skipped, unless
 * `REQUIRE_PROXIES=1` (CI), where their absence fails instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { connect } from "node:net";
import { freePort, temporaryDirectory } from "./server_process.ts";

export type ProxyName = "nginx" | "haproxy";

const PROGRAMS: Record<ProxyName, string> = {
  nginx: "/usr/sbin/nginx",
  haproxy: "/usr/sbin/haproxy",
};

/** The shipped configuration of each proxy. */
export const PROXY_CONFIGS: Record<ProxyName, string> = {
  nginx: "deploy/nginx/animal-store.conf",
  haproxy: "deploy/haproxy/animal-store.cfg",
};

/** Why a suite that needs `name` is skipped, or false when it runs. */
export function skipWithoutProxy(name: ProxyName): string | false {
  if (existsSync(PROGRAMS[name]) || process.env.REQUIRE_PROXIES === "1") return false;
  return `${PROGRAMS[name]} is missing: apt-get install ${name} (REQUIRE_PROXIES=1 fails instead)`;
}

export interface RunningProxy {
  readonly port: number;
  /** The proxy's own log of errors (nginx's error_log; HAProxy's stderr). */
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts `name` with its shipped configuration, passing requests to `upstreamPorts` (one or
 * two: with one, the second server line is dropped).
 */
export async function startProxy(
  name: ProxyName,
  upstreamPorts: readonly number[],
): Promise<RunningProxy> {
  const dir = temporaryDirectory(`animal-store-${name}-`);
  const port = await freePort();
  let text = readFileSync(PROXY_CONFIGS[name], "utf8").replace(
    "127.0.0.1:8080",
    `127.0.0.1:${port}`,
  );
  text = text.replace("127.0.0.1:8081", `127.0.0.1:${upstreamPorts[0]}`);
  text = upstreamPorts.length > 1
    ? text.replace("127.0.0.1:8082", `127.0.0.1:${upstreamPorts[1]}`)
    : text.split("\n").filter((line) => !line.includes("127.0.0.1:8082")).join("\n");
  let stderr = "";
  let child: ChildProcess;
  const errorFile = join(dir.path, "error.log");
  if (name === "nginx") {
    writeFileSync(join(dir.path, "site.conf"), text);
    const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
      .map((kind) => `${kind}_temp_path ${join(dir.path, kind)};`).join("\n  ");
    // As root, the workers run as root too: they write in this private directory.
    const user = process.getuid?.() === 0 ? "user root;\n" : "";
    writeFileSync(
      join(dir.path, "nginx.conf"),
      `${user}worker_processes 1;\nerror_log ${errorFile} warn;\n` +
        `events { worker_connections 1024; }\n` +
        `http {\n  access_log off;\n  ${temp}\n  include ${join(dir.path, "site.conf")};\n}\n`,
    );
    child = spawn(PROGRAMS.nginx, [
      "-p",
      dir.path,
      "-c",
      join(dir.path, "nginx.conf"),
      "-g",
      `daemon off; pid ${join(dir.path, "nginx.pid")};`,
    ], { stdio: ["ignore", "ignore", "pipe"] });
  } else {
    writeFileSync(join(dir.path, "haproxy.cfg"), text);
    child = spawn(PROGRAMS.haproxy, ["-db", "-f", join(dir.path, "haproxy.cfg")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk) => stderr += chunk);
  }
  child.stderr!.on("data", (chunk) => stderr += chunk);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const errorLog = () => stderr + (existsSync(errorFile) ? readFileSync(errorFile, "utf8") : "");
  // Listening once a connection to its port is accepted.
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      dir.remove();
      throw new Error(`${name} did not start:\n${errorLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    errorLog,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      dir.remove();
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** What a load run saw: every answer's status, and what failed (status, or the error). */
export interface LoadOutcome {
  readonly requests: number;
  readonly failures: string[];
  /** The pets answered 201: their id and name. */
  readonly created: { id: number; name: string }[];
}

/**
 * Runs `clients` loops through the proxy at `url` until `stop()`: each sends a list page, then a
 * keyed create (Idempotency-Key), in turn. A request fails when its answer is neither 200 nor
 * 201, or it gets no answer (reset, timeout).
 */
export function runLoad(url: string, key: string, clients = 16) {
  let running = true;
  let requests = 0;
  const failures: string[] = [];
  const created: { id: number; name: string }[] = [];
  const client = async (index: number) => {
    for (let round = 0; running; round++) {
      const name = `pet ${index}-${round}`;
      const create = round % 2 === 1;
      requests++;
      try {
        const response = await fetch(`${url}/v1/pets${create ? "" : "?limit=20"}`, {
          method: create ? "POST" : "GET",
          headers: {
            authorization: `Bearer ${key}`,
            ...(create
              ? { "content-type": "application/json", "idempotency-key": `load-${index}-${round}` }
              : {}),
          },
          body: create ? JSON.stringify({ name, categoryId: index }) : undefined,
          signal: AbortSignal.timeout(15_000),
        });
        const text = await response.text();
        if (response.status !== (create ? 201 : 200)) {
          failures.push(`${create ? "POST" : "GET"} ${response.status} ${text.slice(0, 120)}`);
        } else if (create) {
          created.push({ id: JSON.parse(text).id, name });
        }
      } catch (error) {
        failures.push(`${create ? "POST" : "GET"} ${(error as Error).message}`);
      }
    }
  };
  const all = Promise.all(Array.from({ length: clients }, (_, index) => client(index)));
  return {
    async stop(): Promise<LoadOutcome> {
      running = false;
      await all;
      return { requests, failures, created };
    },
  };
}
