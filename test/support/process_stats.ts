/**
 * What a service process costs, read from Linux's /proc: its resident memory, and its CPU time
 * (which tells a process that waits from one that spins, whatever else the machine is busy with).
 */
import { readdirSync, readFileSync } from "node:fs";
import type { ServiceProcess } from "./server_process.ts";

/** The service's resident memory (VmRSS), in bytes. */
export function residentBytes(service: Pick<ServiceProcess, "child">): number {
  const status = readFileSync(`/proc/${service.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on every Linux we run on). */
export const TICKS_PER_SECOND = 100;

/** The user and system CPU time `pid` has used so far, in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The fields after the command name (which may hold spaces, in parentheses): utime and stime
  // are the 14th and 15th of the whole line.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

/** The CPU ticks `pid` uses over the next `ms`. */
export async function cpuTicksOver(pid: number, ms: number): Promise<number> {
  const before = cpuTicks(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return cpuTicks(pid) - before;
}

/** How many file descriptors `pid` has open. */
export function openDescriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}
