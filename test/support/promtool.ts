/**
 * Running Prometheus's `promtool` (Debian package `prometheus`) from tests. Where it is missing
 * the checks are skipped with a notice, except under REQUIRE_PROMTOOL=1 (CI), where a missing
 * promtool fails the run, as REQUIRE_POSTGRES=1 does for PostgreSQL: CI must not pass by skipping.
 */
import { spawnSync } from "node:child_process";
import process from "node:process";

/** Why promtool checks are skipped, or false when promtool runs. */
export const skipWithoutPromtool: string | false = (() => {
  const result = spawnSync("promtool", ["--version"], { encoding: "utf8" });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code !== "ENOENT") return false;
  if (process.env.REQUIRE_PROMTOOL === "1") return false; // run, and fail in promtool()
  return "promtool not installed (Debian package prometheus): the Prometheus format checks are skipped (REQUIRE_PROMTOOL=1 fails them)";
})();

/** Runs promtool with `args` (and `input` on stdin); its exit status and its whole output. */
export function promtool(args: string[], input?: string): { status: number; output: string } {
  const result = spawnSync("promtool", args, { input, encoding: "utf8" });
  if (result.error !== undefined) {
    throw new Error(`promtool cannot run (CI installs Debian's prometheus): ${result.error}`);
  }
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}
