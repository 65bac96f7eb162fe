/**
 * What counting costs: the list page served by two services, one with METRICS=on and one with
 * METRICS=off, driven by wrk in interleaved rounds (on, off, then off, on, …) so that drift of a
 * shared machine hits both alike. The figure that matters is requests per server CPU-second
 * (from /proc/PID/stat, Linux), which does not depend on how busy the rest of the machine is.
 *
 *   node_modules/.bin/deno run -A scripts/bench/measure_metrics_cost.ts [--runtime deno|bun|node]
 *     [--rounds 6] [--seconds 10] [--connections 32] [--pets 1000]
 *
 * Node runs the esbuild bundle: `npm run build` first. Needs wrk (Debian's package).
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import {
  type RuntimeName,
  type ServiceProcess,
  startService,
  temporaryDirectory,
} from "../../test/support/server_process.ts";

const KEY = "metrics-cost-key";
const PAGE = "/v1/pets?limit=20";
/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on every Linux we run on). */
const TICKS_PER_SECOND = 100;

const { values } = parseArgs({
  options: {
    runtime: { type: "string", default: "deno" },
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    pets: { type: "string", default: "1000" },
  },
});
const runtime = values.runtime as RuntimeName;
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const pets = Number(values.pets);

/** User plus system CPU seconds a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** wrk on core 1 when there are two (the services share core 0); resolves with requests done. */
function runWrk(url: string): Promise<number> {
  const pin = availableParallelism() >= 2 ? ["taskset", "-c", "1"] : [];
  const args = [
    ...pin,
    "wrk",
    "-t1",
    `-c${connections}`,
    `-d${seconds}s`,
    "-H",
    `Authorization: Bearer ${KEY}`,
    `${url}${PAGE}`,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(args[0], args.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    const deadline = setTimeout(() => child.kill("SIGKILL"), (seconds + 30) * 1000);
    child.on("exit", (code) => {
      clearTimeout(deadline);
      const match = /(\d+) requests in/.exec(output);
      if (code !== 0 || match === null) reject(new Error(`wrk failed (${code}): ${output}`));
      else if (/Non-2xx/.test(output)) reject(new Error(`wrk saw errors: ${output}`));
      else resolve(Number(match[1]));
    });
  });
}

async function seed(service: ServiceProcess): Promise<void> {
  for (let done = 0; done < pets; done += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, pets - done) }, async (_, i) => {
        const response = await fetch(`${service.url}/v1/pets`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `Pet ${done + i}`, categoryId: 1, status: "available" }),
        });
        if (response.status !== 201) throw new Error(`seeding answered ${response.status}`);
        await response.body?.cancel();
      }),
    );
  }
}

interface Totals {
  requests: number;
  cpu: number;
  wall: number;
}

const dirs = { on: temporaryDirectory(), off: temporaryDirectory() };
const services: Partial<Record<"on" | "off", ServiceProcess>> = {};
try {
  for (const mode of ["on", "off"] as const) {
    const env: Record<string, string> = { API_KEYS: KEY, METRICS: mode };
    const service = await startService({ dataDir: dirs[mode].path, env, runtime });
    services[mode] = service;
    if (availableParallelism() >= 2) {
      spawn("taskset", ["-pc", "0", String(service.child.pid)], { stdio: "ignore" });
    }
    await seed(service);
  }
  const totals: Record<"on" | "off", Totals> = {
    on: { requests: 0, cpu: 0, wall: 0 },
    off: { requests: 0, cpu: 0, wall: 0 },
  };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
    for (const mode of order) {
      const service = services[mode]!;
      const cpuBefore = cpuSeconds(service.child.pid!);
      const started = performance.now();
      const requests = await runWrk(service.url);
      const wall = (performance.now() - started) / 1000;
      const cpu = cpuSeconds(service.child.pid!) - cpuBefore;
      totals[mode].requests += requests;
      totals[mode].cpu += cpu;
      totals[mode].wall += wall;
      console.log(
        `round ${round + 1} METRICS=${mode}: ${requests} requests, ${cpu.toFixed(2)} CPU s, ` +
          `${(requests / cpu).toFixed(0)} req per CPU s, ${(requests / wall).toFixed(0)} req/s`,
      );
    }
  }
  // The counter saw every request (a few more than wrk reports: those in flight when it stopped).
  const scrape = await (await fetch(`${services.on!.url}/metrics`, {
    headers: { authorization: `Bearer ${KEY}` },
  })).text();
  const counted = /route="\/v1\/pets",status="200"\} (\d+)/.exec(scrape)?.[1];
  const perCpu = (mode: "on" | "off") => totals[mode].requests / totals[mode].cpu;
  const summary = {
    runtime,
    rounds,
    seconds,
    connections,
    pets,
    onRequestsPerCpuSecond: Math.round(perCpu("on")),
    offRequestsPerCpuSecond: Math.round(perCpu("off")),
    onRequestsPerSecond: Math.round(totals.on.requests / totals.on.wall),
    offRequestsPerSecond: Math.round(totals.off.requests / totals.off.wall),
    costPercent: Math.round((1 - perCpu("on") / perCpu("off")) * 1000) / 10,
    countedByMetrics: Number(counted),
    sentWithMetricsOn: totals.on.requests,
  };
  console.log(JSON.stringify(summary));
} finally {
  for (const service of Object.values(services)) await service?.stop();
  dirs.on.remove();
  dirs.off.remove();
}
process.exit(0);
