/**
 * Tracing a service process with Debian's `strace` (the suites that watch its system calls or slow
 * its fdatasync). Linux only; strace is the first on PATH, as `.ci/run` finds it. A suite is
 * skipped with a notice when strace is missing or ptrace is not permitted (a container without
 * CAP_SYS_PTRACE); with REQUIRE_STRACE=1 (CI) that is a failure instead.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import process from "node:process";
import { onPath } from "./executables.ts";
import type { ServiceProcess } from "./server_process.ts";

/** The strace on PATH, or undefined. */
export const STRACE = onPath("strace");

/**
 * Why `suite` cannot use strace here (the skip reason, printed once), or undefined when it can.
 * Throws under REQUIRE_STRACE=1 instead of giving a reason.
 */
export function straceUnavailable(suite: string): string | undefined {
  const why = straceProblem();
  if (why === undefined) return undefined;
  if (process.env.REQUIRE_STRACE === "1") {
    throw new Error(`REQUIRE_STRACE=1 but strace cannot trace the service: ${why}`);
  }
  console.log(`${suite}: skipped: ${why}`);
  return why;
}

function straceProblem(): string | undefined {
  if (process.platform !== "linux") return "not Linux";
  if (STRACE === undefined) return "no strace on PATH (apt-get install strace)";
  const probe = spawnSync(STRACE, ["-f", "-o", "/dev/null", "true"], { encoding: "utf8" });
  if (probe.status !== 0) return `ptrace is not permitted: ${probe.stderr.trim().slice(0, 200)}`;
  return undefined;
}

/**
 * Stops a service started with strace as its `wrapper` and waits for it: strace blocks fatal
 * signals while it runs a command, so the service itself (strace's child) is signalled.
 */
export async function stopTraced(service: ServiceProcess): Promise<void> {
  const children = readFileSync(
    `/proc/${service.child.pid}/task/${service.child.pid}/children`,
    "utf8",
  ).trim();
  // No child: the service has exited already (strace follows it out). Never signal pid 0, which
  // is the test runner's whole process group.
  const tracee = Number(children.split(/\s+/)[0]);
  if (Number.isInteger(tracee) && tracee > 0) process.kill(tracee, "SIGTERM");
  await service.exited;
}
