/**
 * `verify [PATH]`: judges the data file of DATA_DIR, or the backup at PATH, changing nothing; and
 * the PATH that `verify` and `restore` read a backup from: a file, or `-` for stdin.
 */
import { open } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { errorCodeOf } from "../observe/error_code.ts";
import { type ByteSource, fileSource } from "../store/catalogue/read_records.ts";
import { openIfExists } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { type RecordReport, verifySource } from "./report.ts";

/** The start's judgement of every line, without the lock; a missing file has no pets. */
export async function verifyDataFile(dataDir: string): Promise<RecordReport> {
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  try {
    const source = file === undefined ? EMPTY : fileSource(file);
    return await verifySource(source, { name: path, kind: "data file" });
  } finally {
    await file?.close();
  }
}

const EMPTY: ByteSource = { read: () => Promise.resolve(0) };

/** `read` of the backup at `path` and the name messages give it (`stdin` for `-`); or why not. */
export async function readBackupAt<T>(
  path: string,
  read: (source: ByteSource, name: string) => Promise<T>,
): Promise<T | { ok: false; reason: string }> {
  if (path === "-") return await read(streamSource(process.stdin), "stdin");
  const file = await open(path, "r").catch((error: Error) => error);
  if (file instanceof Error) {
    return { ok: false, reason: `cannot read ${path}: ${errorCodeOf(file)}` };
  }
  try {
    return await read(fileSource(file), path);
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
