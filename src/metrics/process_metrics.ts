/**
 * The standard process metrics every Prometheus client exports, from `node:process`, which
 * answers the same on Deno, Bun and Node (no /proc reading, so it also works off Linux).
 */
import process from "node:process";
import type { Registry } from "./registry.ts";

/** Registers the process families; returns what refreshes them before each scrape. */
export function processMetrics(registry: Registry): () => void {
  const rss = registry.gauge("process_resident_memory_bytes", "Resident memory size in bytes.")
    .labels();
  const cpu = registry.counter(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds.",
  ).labels();
  const start = registry.gauge(
    "process_start_time_seconds",
    "Start time of the process since unix epoch in seconds.",
  ).labels();
  start.set(Math.round((Date.now() / 1000 - process.uptime()) * 1000) / 1000);
  return () => {
    rss.set(process.memoryUsage().rss);
    const usage = process.cpuUsage();
    cpu.mirror((usage.user + usage.system) / 1e6);
  };
}
