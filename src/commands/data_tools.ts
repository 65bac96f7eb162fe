/** The data tools' sub-commands (docs/operations.md): exit 0 done, 1 not done, 2 for usage. */
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { errorCodeOf } from "../observe/error_code.ts";
import { type ByteSource, fileSource } from "../store/catalogue/read_records.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { backupCatalogue } from "../tools/backup.ts";
import {
  copyWarnings,
  formatReport,
  type RecordReport,
  verifyDataFile,
  verifySource,
} from "../tools/report.ts";
import { restoreDataFile } from "../tools/restore.ts";
import { fail, writeStdout } from "./output.ts";

function printReport(report: RecordReport, stream: NodeJS.WritableStream = process.stdout) {
  stream.write(formatReport(report).join("\n") + "\n");
}

function warn(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

/** `verify [PATH]`: 0 for a sound file (warnings allowed: a torn last line, no check line), 1 for damage. */
export async function runVerify([path]: readonly string[] = []): Promise<number> {
  // Only the data file needs the settings (DATA_DIR): a backup is read without them.
  const read = path === undefined
    ? { ok: true as const, value: await verifyDataFile(loadConfig(process.env).dataDir) }
    : await readBackupAt(path, (source, name) => verifySource(source, { name, kind: "backup" }));
  if (!read.ok) return fail(`Cannot verify: ${read.reason}`);
  const report = read.value;
  printReport(report);
  return report.damage === undefined ? 0 : 1;
}

/** `backup PATH` (`-`: stdout): 0 when the copy is complete and durable; 1 when it failed. */
export async function runBackup([path]: readonly string[] = []): Promise<number> {
  if (!path) return fail("Cannot backup: give the file to write, or - for stdout", 2);
  const config = loadConfig(process.env);
  const toStdout = path === "-";
  // A copy: the store reuses its buffer once the write settles, and a runtime may still hold it.
  const sink = (bytes: Uint8Array) => writeStdout(bytes.slice());
  const outcome = await backupCatalogue(config, toStdout ? { sink } : { path });
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

/** `restore PATH` (`-`: stdin): 0 when installed; 1 when damaged or the directory is not empty. */
export async function runRestore([path]: readonly string[] = []): Promise<number> {
  if (!path) return fail("Cannot restore: give the backup file to read, or - for stdin", 2);
  const { dataDir } = loadConfig(process.env);
  const read = await readBackupAt(path, async (source, name) => {
    const result = await restoreDataFile({ dataDir, source, name });
    if (result.ok) copyWarnings(name, result, true).forEach(warn);
    return result;
  });
  if (!read.ok) return fail(`Cannot restore: ${read.reason}`);
  const result = read.value;
  if (!result.ok) return fail(`Cannot restore: ${result.reason}`);
  const { pets, byStatus } = result;
  printReport({ file: join(dataDir, DATA_FILE), pets, byStatus, damagedLines: 0 });
  return 0;
}

/** `import [PATH]`: 0 when every pet was copied; 1 when nothing was; 2 without DATABASE_URL. */
export async function runImport([backup]: readonly string[] = []): Promise<number> {
  const { dataDir, database } = loadConfig(process.env);
  if (database === undefined) {
    return fail("Cannot import: DATABASE_URL must name the database to import into", 2);
  }
  // Loaded only here: the PostgreSQL client is no part of a file-store service.
  const { importJsonlFile } = await import("../tools/postgres_copy.ts");
  const result = await importJsonlFile({ dataDir, backup, database, onWarning: warn });
  if (!result.ok) return fail(`Cannot import: ${result.reason}`);
  process.stdout.write(
    `Imported ${result.pets} pets (highest id ${result.lastId}) and ${result.keys} idempotency keys from ${result.file}\n`,
  );
  return 0;
}

/** `read` of the backup at `path` and the name messages give it (`stdin` for `-`); or why not. */
async function readBackupAt<T>(
  path: string,
  read: (source: ByteSource, name: string) => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; reason: string }> {
  if (path === "-") return { ok: true, value: await read(streamSource(process.stdin), "stdin") };
  const file = await open(path, "r").catch((error: Error) => error);
  if (file instanceof Error) {
    return { ok: false, reason: `cannot read ${path}: ${errorCodeOf(file)}` };
  }
  try {
    return { ok: true, value: await read(fileSource(file), path) };
  } finally {
    await file.close();
  }
}

function streamSource(stream: AsyncIterable<Uint8Array>): ByteSource {
  const chunks = stream[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  return {
    async read(into, offset, length) {
      while (pending.length === 0) {
        const next = await chunks.next();
        if (next.done) return 0;
        pending = next.value;
      }
      const count = Math.min(length, pending.length);
      into.set(pending.subarray(0, count), offset);
      pending = pending.subarray(count);
      return count;
    },
  };
}
