/**
 * How busy the machine is with work that is not ours: the share of all cores' time spent busy
 * over a short window while our server sits idle (Linux `/proc/stat`). On a shared machine
 * another process on core 0 or 1 steals time from the server or from wrk, and a run's figures
 * are then not comparable; `scripts/bench/bench.ts` waits for a quiet moment and marks the runs it
 * could not get one for.
 */
import { existsSync, readFileSync } from "node:fs";

function cpuTimes(): { busy: number; total: number } | undefined {
  if (!existsSync("/proc/stat")) return undefined;
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

/** Busy percentage of the whole machine over `ms` (undefined off Linux). */
export async function busyPercent(ms = 300): Promise<number | undefined> {
  const before = cpuTimes();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuTimes();
  if (before === undefined || after === undefined || after.total === before.total) return undefined;
  return (100 * (after.busy - before.busy)) / (after.total - before.total);
}

/**
 * Waits (at most `maxWaitMs`) until the machine is under `thresholdPercent` busy; returns the
 * last figure seen, so the caller can mark a run made on a busy machine.
 */
export async function waitForQuiet(thresholdPercent: number, maxWaitMs: number): Promise<number> {
  const deadline = performance.now() + maxWaitMs;
  let busy = (await busyPercent()) ?? 0;
  while (busy >= thresholdPercent && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    busy = (await busyPercent()) ?? 0;
  }
  return busy;
}

/** CPU seconds (user + system) a process has used so far, from `/proc/<pid>/stat`. */
export function cpuSecondsOf(pid: number): number | undefined {
  const path = `/proc/${pid}/stat`;
  if (!existsSync(path)) return undefined;
  // Fields after the command name (which may hold spaces) — utime and stime are 14th and 15th.
  const text = readFileSync(path, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
