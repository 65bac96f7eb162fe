/** `verify [PATH]`: judges the data file of DATA_DIR, or the backup at PATH, changing nothing. */
import { type RecordReport, verifySource } from "../store/catalogue/report.ts";
import { verifyDataFile } from "../store/jsonl/jsonl_store.ts";
import { readBackupAt } from "./backup_source.ts";

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
