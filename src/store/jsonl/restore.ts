/**
 * `restore`: installs a backup as the data file of an empty data directory.
 *
 * Steps, in the order they apply:
 *   1. The directory is created if missing and its lock taken: a service running there (or
 *      starting meanwhile) refuses or is refused, never both writing.
 *   2. A directory that holds pets (or a damaged data file) is refused: a restore never merges
 *      and never overwrites.
 *   3. The backup is copied to a temporary file in the directory with `verify`'s full check of
 *      every line. A torn last line is left out with a warning; any other damage stops the
 *      restore with the line number, and the directory is left as it was.
 *   4. The copy is fdatasync'd, renamed to the data file, and the directory fsync'd: a crash at
 *      any step leaves either no data file or the whole backup, never half of it.
 * The service started there replays the file and continues ids after the highest one in it.
 */
import { mkdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errorCodeOf, type FileLayer, nodeFileLayer, writeFully } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import { acquireLock } from "./lock.ts";
import { type ByteSource, copyRecordLines } from "./record_copy.ts";
import type { StatusCounts } from "../store.ts";
import { verifyDataFile } from "./verify.ts";

/** What a restore installed, or why it did not (one line, naming the directory or the line). */
export type RestoreResult =
  | {
    readonly ok: true;
    /** The data file written. */
    readonly file: string;
    readonly pets: number;
    readonly byStatus: StatusCounts;
    readonly lastId: number;
    /** Bytes of a torn last line left out (0 for none). */
    readonly tornTail: number;
  }
  | { readonly ok: false; readonly reason: string };

/** Restores `source` (a backup's bytes; `name` says where they come from) into `dataDir`. */
export async function restoreDataFile(options: {
  dataDir: string;
  source: ByteSource;
  name: string;
  files?: FileLayer;
}): Promise<RestoreResult> {
  const { dataDir, source, name, files = nodeFileLayer } = options;
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    return { ok: false, reason: `cannot create data directory ${dataDir}: ${errorCodeOf(error)}` };
  }
  const lock = await acquireLock(dataDir, files);
  if ("refused" in lock) {
    return { ok: false, reason: `data directory ${dataDir} is in use by ${lock.refused}` };
  }
  try {
    const present = await verifyDataFile(dataDir, files);
    if (present.pets > 0 || present.damage !== undefined) {
      return {
        ok: false,
        reason:
          `data directory ${dataDir} already holds pets (${present.file}); restore into an empty one`,
      };
    }
    return await install(dataDir, source, name, files);
  } finally {
    await lock.release();
  }
}

async function install(
  dataDir: string,
  source: ByteSource,
  name: string,
  files: FileLayer,
): Promise<RestoreResult> {
  const path = join(dataDir, DATA_FILE);
  const temporary = join(dataDir, `${DATA_FILE}.restoring`);
  // Left by a restore that died: it was never installed, so it is only in the way.
  await unlink(temporary).catch(() => {});
  const file = await files.open(temporary, "wx");
  let installed = false;
  try {
    let position = 0;
    const result = await copyRecordLines(source, async (bytes) => {
      await writeFully(file, bytes, position);
      position += bytes.length;
    }, { check: "full" });
    if (!result.ok) {
      return {
        ok: false,
        reason: `${name} line ${result.line} ${result.reason}; nothing restored`,
      };
    }
    // 4. Durable bytes first, then the name, then the directory entry.
    await file.datasync();
    await file.close();
    await rename(temporary, path);
    installed = true;
    const directory = await files.open(dataDir, "r");
    try {
      await directory.sync();
    } finally {
      await directory.close();
    }
    const { pets, byStatus, lastId, tornTail } = result;
    return { ok: true, file: path, pets, byStatus, lastId, tornTail };
  } finally {
    if (!installed) {
      await file.close().catch(() => {});
      await unlink(temporary).catch(() => {});
    }
  }
}
