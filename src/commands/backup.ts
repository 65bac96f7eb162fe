/**
 * `backup PATH`: writes a consistent copy of the catalogue to PATH (`-` for stdout) while the
 * service keeps running: the data file's records (store/jsonl/backup.ts), or with DATABASE_URL
 * the database's pets in the same format (store/postgres/export_jsonl.ts). A file is installed
 * atomically and durably (`installFile`): a crash never leaves half a backup under its name.
 */
import process from "node:process";
import { type Config, loadConfig } from "../config/config.ts";
import { backupDataFile } from "../store/jsonl/backup.ts";
import { installFile } from "../store/jsonl/file_layer.ts";
import type { ByteSink } from "../store/catalogue/read_records.ts";
import type { ToolResult } from "../store/jsonl/verify.ts";
import { fail, printReport, writeStdout } from "./output.ts";

/** Copies taken before giving up when the service keeps cutting the file back. */
const ATTEMPTS = 3;

/** 0 when the copy is complete and durable; 1 when it failed; 2 for usage. */
export async function runBackup([path]: readonly string[] = []): Promise<number> {
  if (!path) return fail("Cannot backup: give the file to write, or - for stdout", 2);
  const config = loadConfig(process.env);
  const toStdout = path === "-";
  let outcome: ToolResult;
  if (toStdout) {
    // A copy: the store reuses its buffer once the write settles, and a runtime may still hold it.
    outcome = await copyCatalogue(config, (bytes) => writeStdout(bytes.slice()));
  } else {
    let attempt = 0;
    do {
      outcome = await installFile(path, (sink) => copyCatalogue(config, sink));
    } while (!outcome.ok && outcome.changed && ++attempt < ATTEMPTS);
  }
  if (!outcome.ok) {
    const again = outcome.changed && toStdout ? "; the output is incomplete, run it again" : "";
    return fail(`Cannot backup: ${outcome.reason}${again}`);
  }
  const { pets, byStatus } = outcome;
  // With `-` stdout carries the backup itself.
  const report = { file: toStdout ? "stdout" : path, pets, byStatus, damagedLines: 0 };
  printReport(report, toStdout ? process.stderr : process.stdout);
  return 0;
}

async function copyCatalogue(config: Config, sink: ByteSink): Promise<ToolResult> {
  if (config.database === undefined) return await backupDataFile({ dataDir: config.dataDir, sink });
  const { exportDatabase } = await import("../store/postgres/export_jsonl.ts");
  return await exportDatabase({ database: config.database, sink });
}
