/**
 * `verify`: reads the data file and checks every line fully (records.ts, names included) without
 * taking the lock or changing a byte. A torn last line is reported, not cut.
 *
 * The tools of the store (verify, backup, restore, and the export of the PostgreSQL store) share
 * their result types and the report printed from them, here.
 */
import { join } from "node:path";
import type { StatusCounts } from "../store.ts";
import { openIfExists } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import { type Damage, fileSource, readRecords, type TornTail } from "./records.ts";

/** What a tool read or wrote: pets per status, and a torn last line it left out. */
export interface RecordCounts {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  readonly tornTail?: TornTail;
}

/** How a backup, restore or export ended; `changed`: the file was cut back, take it again. */
export type ToolResult =
  | ({ readonly ok: true } & RecordCounts)
  | { readonly ok: false; readonly reason: string; readonly changed?: boolean };

/** What verify found in a file. */
export interface RecordReport extends RecordCounts {
  readonly file: string;
  /** The first damaged line; the store refuses to start while it is there. */
  readonly damage?: Damage;
  /** How many lines are damaged in all. */
  readonly damagedLines: number;
}

/** Checks `DATA_DIR/pets.jsonl` line by line; changes nothing. A missing file has no pets. */
export async function verifyDataFile(dataDir: string): Promise<RecordReport> {
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  if (file === undefined) {
    const byStatus = { available: 0, pending: 0, sold: 0, none: 0 };
    return { file: path, pets: 0, byStatus, damagedLines: 0 };
  }
  try {
    const { pets, byStatus, tornTail, damage, damagedLines } = await readRecords(
      fileSource(file),
      { strict: true, all: true },
    );
    return { file: path, pets, byStatus, damagedLines, tornTail, damage };
  } finally {
    await file.close();
  }
}

/** The report as human-readable lines, for the `verify`, `backup` and `restore` commands. */
export function formatReport(report: RecordReport): string[] {
  const { byStatus, tornTail, damage, damagedLines } = report;
  const lines = [
    `${report.file}: ${report.pets} pets (available ${byStatus.available}, pending ${byStatus.pending}, sold ${byStatus.sold}, no status ${byStatus.none})`,
  ];
  if (tornTail !== undefined) {
    lines.push(
      `warning: torn last line at byte offset ${tornTail.offset} (${tornTail.length} bytes without a newline); it is cut off at the next start`,
    );
  }
  const more = damagedLines > 1 ? ` (${damagedLines} damaged lines in all)` : "";
  lines.push(
    damage !== undefined
      ? `error: line ${damage.line} ${damage.reason}${more}; the store will not start`
      : tornTail === undefined
      ? "ok: the file is sound"
      : "ok: no damage besides the torn last line",
  );
  return lines;
}
