/**
 * `verify [PATH]`: read the data file, or the backup at PATH (`-` reads stdin), and report counts
 * per status and any damage; change nothing.
 */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { verifyDataFile, verifySource } from "../store/jsonl/verify.ts";
import { readBackupAt } from "./backup_path.ts";
import { fail, printReport } from "./output.ts";

/** 0 for a sound file (warnings allowed: a torn last line, no check line), 1 for damage. */
export async function runVerify([path]: readonly string[] = []): Promise<number> {
  const read = path === undefined
    ? { ok: true as const, value: await verifyDataFile(loadConfig(process.env).dataDir) }
    : await readBackupAt(path, (source, name) => verifySource(source, { name, kind: "backup" }));
  if (!read.ok) return fail(`Cannot verify: ${read.reason}`);
  printReport(read.value);
  return read.value.damage === undefined ? 0 : 1;
}
