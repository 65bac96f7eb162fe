/**
 * `restore`: installs a backup as the data file of an empty data directory.
 *
 * Steps, in the order they apply:
 *   1. The directory is created if missing and its lock taken: a service running there (or
 *      starting meanwhile) refuses or is refused, never both writing.
 *   2. A directory that holds pets (or a damaged data file) is refused: a restore never merges
 *      and never overwrites.
 *   3. The backup is copied to a temporary file in the directory with `verify`'s full check of
 *      every line (records.ts). A torn last line is left out and reported; any other damage stops
 *      the restore with the line number, and the directory is left as it was.
 *   4. The copy is installed atomically (`installFile`): a crash at any step leaves either no
 *      data file or the whole backup, never half of it.
 * The service started there replays the file and continues ids after the highest one in it.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { errorCodeOf, installFile } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import { acquireLock } from "./lock.ts";
import { type ByteSource, readRecords } from "./records.ts";
import { type ToolResult, verifyDataFile } from "./verify.ts";

/** Restores `source` (a backup's bytes; `name` says where they come from) into `dataDir`. */
export async function restoreDataFile(options: {
  dataDir: string;
  source: ByteSource;
  name: string;
}): Promise<ToolResult> {
  const { dataDir, source, name } = options;
  try {
    await mkdir(dataDir, { recursive: true });
  } catch (error) {
    return { ok: false, reason: `cannot create data directory ${dataDir}: ${errorCodeOf(error)}` };
  }
  const lock = await acquireLock(dataDir);
  if ("refused" in lock) return { ok: false, reason: lock.refused };
  try {
    const present = await verifyDataFile(dataDir);
    if (present.pets > 0 || present.damage !== undefined) {
      return {
        ok: false,
        reason:
          `data directory ${dataDir} already holds pets (${present.file}); restore into an empty one`,
      };
    }
    return await installFile(join(dataDir, DATA_FILE), async (sink): Promise<ToolResult> => {
      const read = await readRecords(source, { strict: true, onChunk: sink });
      if (read.damage !== undefined) {
        const { line, reason } = read.damage;
        return { ok: false, reason: `${name} line ${line} ${reason}; nothing restored` };
      }
      return { ok: true, pets: read.pets, byStatus: read.byStatus, tornTail: read.tornTail };
    });
  } finally {
    await lock.release();
  }
}
