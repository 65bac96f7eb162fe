/** `verify [PATH]`: judges the data file of DATA_DIR, or the backup at PATH, changing nothing. */
import { open } from "node:fs/promises";
import process from "node:process";
import { errorCodeOf } from "../observe/error_code.ts";
import { type ByteSource, fileSource, streamSource } from "../store/catalogue/read_records.ts";
import { type RecordReport, verifySource } from "../store/catalogue/report.ts";
import { verifyDataFile } from "../store/jsonl/verify.ts";

type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The report of a data directory's file, or of the backup at `path` (`-`: stdin); or why not. */
export async function verifyCatalogue(
  target: { readonly dataDir: string } | { readonly path: string },
): Promise<Outcome<RecordReport>> {
  if ("dataDir" in target) return { ok: true, value: await verifyDataFile(target.dataDir) };
  return await readBackupAt(
    target.path,
    (source, name) => verifySource(source, { name, kind: "backup" }),
  );
}

/** `read` of the backup at `path` (`-`: stdin) and the name messages give it; or why not. */
export async function readBackupAt<T>(
  path: string,
  read: (source: ByteSource, name: string) => Promise<T>,
): Promise<Outcome<T>> {
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
