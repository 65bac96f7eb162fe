/**
 * A PostgreSQL primary and a streaming standby of it, made for one test: the primary is a
 * throw-away cluster (scripts/postgres_cluster.mjs), the standby a `pg_basebackup -R` copy of it in
 * a temporary directory, on another loopback port, streaming under the application name
 * STANDBY_NAME (what `synchronous_standby_names` names). For failovers: `crashPrimary()` stops the
 * primary as a power cut would (`pg_ctl stop -m immediate`), `promote()` promotes the standby,
 * `holdBackStandby()` stops the primary's walsender with SIGSTOP, so the standby falls behind.
 */
import { execFileSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { findPostgresBin, startPostgresCluster } from "../../scripts/postgres_cluster.mjs";
import { freePort, waitFor } from "./server_process.ts";

/** The standby's application_name on the primary. */
export const STANDBY_NAME = "animal_standby";

export interface PostgresPair {
  readonly primaryPort: number;
  readonly standbyPort: number;
  /** `postgres://postgres@127.0.0.1:PORT/animal_store` for a port of the two. */
  urlOf(port: number): string;
  /** Runs SQL with psql on `port`'s animal_store database (or `database`); its output, trimmed. */
  sql(port: number, text: string, database?: string): string;
  crashPrimary(): void;
  promote(): void;
  /** SIGSTOPs the walsender that streams to the standby; its pid. */
  holdBackStandby(): number;
  stop(): void;
}

/** Starts both and waits until the standby streams. */
export async function startPostgresPair(): Promise<PostgresPair> {
  const bin = findPostgresBin()!;
  const primary = await startPostgresCluster();
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, command), ...args]]
      : [join(bin, command), args];
    return execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  };
  const dir = mkdtempSync(join(tmpdir(), "animal-store-standby-"));
  const data = join(dir, "data");
  if (asRoot) {
    const id = (flag: string) =>
      Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
    chownSync(dir, id("-u"), id("-g"));
  }
  const standbyPort = await freePort();
  const sql = (port: number, text: string, database = "animal_store") =>
    execFileSync(join(bin, "psql"), [
      `postgres://postgres@127.0.0.1:${port}/${database}`,
      "-qAt",
      "-c",
      text,
    ], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).trim();
  let stopped = false;
  const stopStandby = () => {
    try {
      run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch { /* not running */ }
  };
  try {
    const conninfo =
      `host=127.0.0.1 port=${primary.port} user=postgres application_name=${STANDBY_NAME}`;
    // -R writes primary_conninfo from this conninfo, application_name included. --no-sync: the
    // copy need not survive an operating-system crash, only the test; -c fast: no wait for a
    // spread checkpoint.
    run("pg_basebackup", [
      "-D",
      data,
      "-d",
      conninfo,
      "-R",
      "--no-sync",
      "-X",
      "stream",
      "-c",
      "fast",
    ]);
    const settings = [
      "-c listen_addresses=127.0.0.1",
      `-c port=${standbyPort}`,
      `-c unix_socket_directories=${dir}`,
      "-c max_connections=200",
    ].join(" ");
    run("pg_ctl", ["-D", data, "-o", settings, "-l", join(dir, "server.log"), "-w", "start"]);
    await waitFor(
      () =>
        sql(primary.port, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") ===
          "1",
      "the standby to stream",
      20_000,
    );
  } catch (error) {
    stopStandby();
    primary.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    primaryPort: primary.port,
    standbyPort,
    urlOf: (port) => `postgres://postgres@127.0.0.1:${port}/animal_store`,
    sql,
    crashPrimary: () => primary.crash(),
    promote: () => void run("pg_ctl", ["-D", data, "-w", "promote"]),
    holdBackStandby() {
      const pid = Number(sql(primary.port, "SELECT pid FROM pg_stat_replication"));
      process.kill(pid, "SIGSTOP");
      return pid;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      stopStandby();
      primary.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
