/** `verify`: read the data file and report counts per status and any damage; change nothing. */
import process from "node:process";
import { commandConfig } from "./command_config.ts";
import { formatReport, verifyDataFile } from "../store/jsonl/verify.ts";

/** 0 for a sound file (or one whose only flaw is a torn last line), 1 for damage. */
export async function runVerify(): Promise<number> {
  const dataDir = commandConfig("verify")?.dataDir;
  if (dataDir === undefined) return 2;
  const report = await verifyDataFile(dataDir);
  process.stdout.write(formatReport(report).join("\n") + "\n");
  return report.damage === undefined ? 0 : 1;
}
