/**
 * `restore PATH`: verifies a backup (`-` reads stdin) and installs it as the data file of an
 * empty DATA_DIR (store/jsonl/restore.ts). Run it before starting the service there.
 */
import { type FileHandle, open } from "node:fs/promises";
import process from "node:process";
import { join } from "node:path";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import type { ByteSource } from "../store/jsonl/records.ts";
import { restoreDataFile } from "../store/jsonl/restore.ts";
import { formatReport } from "../store/jsonl/verify.ts";
import { commandConfig } from "./command_config.ts";

/** 0 when the backup is installed; 1 when it is damaged or the directory is not empty; 2 usage. */
export async function runRestore(args: readonly string[] = []): Promise<number> {
  const path = args[0];
  if (path === undefined || path === "") {
    process.stderr.write("Cannot restore: give the backup file to read, or - for stdin\n");
    return 2;
  }
  const config = commandConfig("restore");
  if (config === undefined) return 2;
  let file: FileHandle | undefined;
  if (path !== "-") {
    try {
      file = await open(path, "r");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      process.stderr.write(`Cannot restore: cannot read ${path}: ${code}\n`);
      return 1;
    }
  }
  try {
    const handle = file;
    const source: ByteSource = handle === undefined ? streamSource(process.stdin) : {
      read: async (into, offset, length) => (await handle.read(into, offset, length)).bytesRead,
    };
    const name = path === "-" ? "stdin" : path;
    const result = await restoreDataFile({ dataDir: config.dataDir, source, name });
    if (!result.ok) {
      process.stderr.write(`Cannot restore: ${result.reason}\n`);
      return 1;
    }
    if (result.tornTail !== undefined) {
      process.stderr.write(
        `warning: left out the torn last line of ${name} (${result.tornTail.length} bytes without a newline)\n`,
      );
    }
    const report = formatReport({
      file: join(config.dataDir, DATA_FILE),
      pets: result.pets,
      byStatus: result.byStatus,
      damagedLines: 0,
    });
    process.stdout.write(report.join("\n") + "\n");
    return 0;
  } finally {
    await file?.close();
  }
}

/** Reads a stream (stdin) as a ByteSource. */
function streamSource(stream: AsyncIterable<Uint8Array | string>): ByteSource {
  const chunks = stream[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  return {
    async read(into, offset, length) {
      while (pending.length === 0) {
        const next = await chunks.next();
        if (next.done) return 0;
        pending = typeof next.value === "string"
          ? new TextEncoder().encode(next.value)
          : next.value;
      }
      const count = Math.min(length, pending.length);
      into.set(pending.subarray(0, count), offset);
      pending = pending.subarray(count);
      return count;
    },
  };
}
