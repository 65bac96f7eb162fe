/**
 * `backup PATH`: writes a consistent copy of the catalogue to PATH (`-` for stdout) while the
 * service keeps running: the data file's records (store/jsonl/backup.ts), or with DATABASE_URL
 * the database's pets in the same format (store/postgres/export_jsonl.ts). A file is installed
 * atomically and durably (`installFile`): a crash never leaves half a backup under its name.
 */
import process from "node:process";
import type { Config } from "../config/config.ts";
import { backupDataFile } from "../store/jsonl/backup.ts";
import { installFile } from "../store/jsonl/file_layer.ts";
import type { ByteSink } from "../store/jsonl/records.ts";
import { formatReport, type ToolResult } from "../store/jsonl/verify.ts";
import { commandConfig } from "./command_config.ts";

/** Copies taken before giving up when the service keeps cutting the file back. */
const ATTEMPTS = 3;

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
  let outcome: ToolResult;
  if (toStdout) {
    outcome = await copyCatalogue(config, stdoutSink);
  } else {
    let attempt = 0;
    do {
      outcome = await installFile(path, (sink) => copyCatalogue(config, sink));
    } while (!outcome.ok && outcome.changed && ++attempt < ATTEMPTS);
  }
  if (!outcome.ok) {
    const again = outcome.changed && toStdout ? "; the output is incomplete, run it again" : "";
    process.stderr.write(`Cannot backup: ${outcome.reason}${again}\n`);
    return 1;
  }
  const { pets, byStatus } = outcome;
  const report = formatReport({
    file: toStdout ? "stdout" : path,
    pets,
    byStatus,
    damagedLines: 0,
  });
  // With `-` stdout carries the backup itself.
  (toStdout ? process.stderr : process.stdout).write(report.join("\n") + "\n");
  return 0;
}

async function copyCatalogue(config: Config, sink: ByteSink): Promise<ToolResult> {
  if (config.database !== undefined) {
    const { exportDatabase } = await import("../store/postgres/export_jsonl.ts");
    return await exportDatabase({ database: config.database, sink });
  }
  return await backupDataFile({ dataDir: config.dataDir, sink });
}

/** A sink into stdout that waits until each chunk is handed over (backpressure for a pipe). */
function stdoutSink(bytes: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    // A copy: the caller reuses its buffer once this settles, and a runtime may still hold it.
    process.stdout.write(bytes.slice(), (error) => (error ? reject(error) : resolve()));
  });
}
