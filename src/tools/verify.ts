/** `verify [PATH]`: judges the data file of DATA_DIR, or the backup at PATH, changing nothing. */
import { join } from "node:path";
import { fileSource } from "../store/catalogue/read_records.ts";
import { openIfExists } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";
import { emptyStatusCounts } from "../store/store.ts";
import { readBackupAt } from "./backup_source.ts";
import { type RecordReport, verifySource } from "./report.ts";

/** The report of a data directory's file, or of the backup at `path` (`-`: stdin); or why not. */
export async function verifyCatalogue(
  target: { readonly dataDir: string } | { readonly path: string },
): Promise<{ ok: true; value: RecordReport } | { ok: false; reason: string }> {
  if ("dataDir" in target) return { ok: true, value: await verifyDataFile(target.dataDir) };
  return await readBackupAt(
    target.path,
    (source, name) => verifySource(source, { name, kind: "backup" }),
  );
}

/** The start's judgement of every line, without the lock; a missing file has no pets. */
export async function verifyDataFile(dataDir: string): Promise<RecordReport> {
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  if (file === undefined) {
    return {
      file: path,
      kind: "data file",
      pets: 0,
      byStatus: emptyStatusCounts(),
      damagedLines: 0,
    };
  }
  try {
    return await verifySource(fileSource(file), { name: path, kind: "data file" });
  } finally {
    await file.close();
  }
}
