/** `verify`: read the data file and report counts per status and any damage; change nothing. */
import process from "node:process";
import { loadConfig } from "../config/config.ts";
import { verifyDataFile } from "../store/jsonl/verify.ts";
import { printReport } from "./output.ts";

/** 0 for a sound file (or one whose only flaw is a torn last line), 1 for damage. */
export async function runVerify(): Promise<number> {
  const report = await verifyDataFile(loadConfig(process.env).dataDir);
  printReport(report);
  return report.damage === undefined ? 0 : 1;
}
