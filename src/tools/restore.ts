/**
 * `restore`: installs a backup as the data file of an empty data directory.
 *   1. The directory's lock is taken: a service there refuses or is refused, never both writing.
 *   2. A directory holding pets (or a damaged file) is refused: no merge, no overwrite.
 *   3. The backup is copied to a temporary file, judged as the start judges (read_records.ts),
 *      check line included: any damage stops the restore, the directory left as it was.
 *   4. The copy is installed atomically (`installFile`): no data file or the whole backup.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { errorCodeOf } from "../observe/error_code.ts";
import { type ByteSource, readRecords } from "../store/catalogue/read_records.ts";
import { installFile } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { acquireLock } from "../store/jsonl/lock.ts";
import { type ToolResult, verifyDataFile } from "./report.ts";

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
      const holds = `data directory ${dataDir} already holds pets (${present.file})`;
      return { ok: false, reason: `${holds}; restore into an empty one` };
    }
    return await installFile(join(dataDir, DATA_FILE), async (sink): Promise<ToolResult> => {
      const read = await readRecords(source, { kind: "backup", onCopy: sink });
      if (read.damage !== undefined) {
        const { line, reason } = read.damage;
        return { ok: false, reason: `${name} line ${line} ${reason}; nothing restored` };
      }
      const { pets, byStatus, tornTail, missingNewline, checked } = read;
      return { ok: true, pets, byStatus, tornTail, missingNewline, checked };
    });
  } finally {
    await lock.release();
  }
}
