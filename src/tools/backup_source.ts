/** The `PATH` that `verify` and `restore` read a backup from: a file, or `-` for stdin. */
import { open } from "node:fs/promises";
import process from "node:process";
import { errorCodeOf } from "../observe/error_code.ts";
import { type ByteSource, fileSource, streamSource } from "../store/catalogue/read_records.ts";

/**
 * Calls `read` with the backup at `path` as a source and the name messages give it (`stdin` for
 * `-`), closing the file after; or says why the file cannot be opened, without calling it.
 */
export async function readBackupAt<T>(
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
