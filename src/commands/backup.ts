/**
 * `backup PATH`: writes a consistent copy of the catalogue to PATH (`-` for stdout) while the
 * service keeps running: the data file's records (store/jsonl/backup.ts), or with DATABASE_URL
 * the database's pets in the same format (store/postgres/export_jsonl.ts).
 */
import process from "node:process";
import type { Config } from "../config/config.ts";
import { backupDataFile } from "../store/jsonl/backup.ts";
import type { ByteSink } from "../store/jsonl/record_copy.ts";
import type { StatusCounts } from "../store/store.ts";
import { formatVerifyReport } from "../store/jsonl/verify.ts";
import { commandConfig } from "./command_config.ts";
import { stdoutSink, writeFileAtomically } from "./output_file.ts";

/** Copies taken before giving up when the service keeps cutting the file back. */
const ATTEMPTS = 3;

type Outcome =
  | { ok: true; pets: number; byStatus: StatusCounts }
  | { ok: false; changed: boolean; reason: string };

/** 0 when the copy is complete and durable; 1 when it failed; 2 for usage. */
export async function runBackup(args: readonly string[] = []): Promise<number> {
  const path = args[0];
  if (path === undefined || path === "") {
    process.stderr.write("Cannot backup: give the file to write, or - for stdout\n");
    return 2;
  }
  const config = commandConfig("backup");
  if (config === undefined) return 2;
  const toStdout = path === "-";
  let outcome: Outcome;
  if (toStdout) {
    outcome = await copyCatalogue(config, stdoutSink());
  } else {
    let attempt = 0;
    do {
      outcome = await writeFileAtomically(path, (sink) => copyCatalogue(config, sink));
    } while (!outcome.ok && outcome.changed && ++attempt < ATTEMPTS);
  }
  if (!outcome.ok) {
    const again = outcome.changed && toStdout ? "; the output is incomplete, run it again" : "";
    process.stderr.write(`Cannot backup: ${outcome.reason}${again}\n`);
    return 1;
  }
  const report = formatVerifyReport({
    file: toStdout ? "stdout" : path,
    pets: outcome.pets,
    byStatus: outcome.byStatus,
    damagedLines: 0,
  });
  // With `-` stdout carries the backup itself.
  (toStdout ? process.stderr : process.stdout).write(report.join("\n") + "\n");
  return 0;
}

async function copyCatalogue(config: Config, sink: ByteSink): Promise<Outcome> {
  if (config.database !== undefined) {
    const { exportDatabase } = await import("../store/postgres/export_jsonl.ts");
    const result = await exportDatabase({ database: config.database, sink });
    return result.ok ? result : { ...result, changed: false };
  }
  return await backupDataFile({ dataDir: config.dataDir, sink });
}
