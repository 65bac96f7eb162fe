/** `verify [PATH]`: judges the data file of DATA_DIR, or the backup at PATH, changing nothing. */
import { type RecordReport, verifySource } from "../store/catalogue/report.ts";
import { verifyDataFile } from "../store/jsonl/verify.ts";
import { readBackupAt } from "./backup_source.ts";

/** The report of `dataDir`'s data file, or of the backup at `path` (`-`: stdin); or why not. */
export async function verifyCatalogue(
  dataDir: string,
  path: string | undefined,
): Promise<{ ok: true; value: RecordReport } | { ok: false; reason: string }> {
  if (path === undefined) return { ok: true, value: await verifyDataFile(dataDir) };
  return await readBackupAt(path, (source, name) => verifySource(source, { name, kind: "backup" }));
}
