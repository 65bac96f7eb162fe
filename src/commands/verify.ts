/**
 * `verify [PATH]`: read the data file, or the backup at PATH (`-` reads stdin), and report counts
 * per status and any damage; change nothing.
 */
import { open } from "node:fs/promises";
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { fileSource, streamSource } from "../store/jsonl/records.ts";
import { type RecordReport, verifyDataFile, verifySource } from "../store/jsonl/verify.ts";
import { fail, printReport } from "./output.ts";

/** 0 for a sound file (warnings allowed: a torn last line, no check line), 1 for damage. */
export async function runVerify([path]: readonly string[] = []): Promise<number> {
  let report: RecordReport;
  if (path === undefined) {
    report = await verifyDataFile(loadConfig(process.env).dataDir);
  } else if (path === "-") {
    report = await verifySource(streamSource(process.stdin), { name: "stdin", kind: "backup" });
  } else {
    const file = await open(path, "r").catch((error: NodeJS.ErrnoException) => error);
    if (file instanceof Error) return fail(`Cannot verify: cannot read ${path}: ${file.code}`);
    try {
      report = await verifySource(fileSource(file), { name: path, kind: "backup" });
    } finally {
      await file.close();
    }
  }
  printReport(report);
  return report.damage === undefined ? 0 : 1;
}
