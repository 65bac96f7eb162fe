/**
 * `verify`: reads the data file, or a backup, and judges every line (records.ts, the judgement
 * the start applies) without taking the lock or changing a byte. A torn last line and a last
 * record without its newline are reported, not repaired.
 *
 * The tools of the store (verify, backup, restore, and the export of the PostgreSQL store) share
 * their result types and the report printed from them, here.
 */
import { join } from "node:path";
import { MAX_PET_ID, type StatusCounts } from "../store.ts";
import { openIfExists } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import {
  type ByteSource,
  type Damage,
  type FileKind,
  fileSource,
  type MissingNewline,
  readRecords,
  type TornTail,
} from "../catalogue/read_records.ts";

/** What a tool read or wrote: pets per status, and what it left out or repaired at the end. */
export interface RecordCounts {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  readonly tornTail?: TornTail;
  readonly missingNewline?: MissingNewline;
  /** Of a backup read: its check line matched (false: it has none, an earlier version's). */
  readonly checked?: boolean;
}

/** How a backup, restore or export ended; `changed`: the file was cut back, take it again. */
export type ToolResult =
  | ({ readonly ok: true } & RecordCounts)
  | { readonly ok: false; readonly reason: string; readonly changed?: boolean };

/** What verify found in a file. */
export interface RecordReport extends RecordCounts {
  readonly file: string;
  /** A data file (the start reads it) or a backup (restore reads it): what the warnings say. */
  readonly kind?: FileKind;
  /** The highest id read, for the warning near the id ceiling. */
  readonly lastId?: number;
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
    return { file: path, kind: "data file", pets: 0, byStatus, damagedLines: 0 };
  }
  try {
    return await verifySource(fileSource(file), { name: path, kind: "data file" });
  } finally {
    await file.close();
  }
}

/** Checks the lines of a data file or a backup read from `source` (`name` says where from). */
export async function verifySource(
  source: ByteSource,
  options: { name: string; kind: FileKind },
): Promise<RecordReport> {
  const read = await readRecords(source, { kind: options.kind, all: true });
  const { pets, byStatus, lastId, tornTail, missingNewline, checked, damage, damagedLines } = read;
  return {
    file: options.name,
    kind: options.kind,
    pets,
    byStatus,
    lastId,
    damagedLines,
    tornTail,
    missingNewline,
    checked,
    damage,
  };
}

/** How near MAX_PET_ID the highest id of a file may come before `verify` warns. */
export const ID_CEILING_WARNING_DISTANCE = 1_000;

/** The warning for a file whose ids come near MAX_PET_ID, or undefined. */
export function idCeilingWarning(lastId: number): string | undefined {
  const left = MAX_PET_ID - lastId;
  if (left > ID_CEILING_WARNING_DISTANCE) return undefined;
  return `warning: the highest id is ${lastId}; ${left} ids are left before ids stop at ${MAX_PET_ID}, and then every create is refused (503 unavailable)`;
}

/**
 * What `restore`, `verify PATH` and `import PATH` say of a backup read whole but with no check line
 * (an earlier version's; `file` names it), for each to print after its `warning: `.
 */
export function noCheckLineWarning(file: string): string {
  return `${file} has no check line (a backup taken by an earlier version?): every line was judged, but a backup cut short at a line boundary cannot be told from a whole one`;
}

/** The report as human-readable lines, for the `verify`, `backup` and `restore` commands. */
export function formatReport(report: RecordReport): string[] {
  const { byStatus, tornTail, missingNewline, damage, damagedLines } = report;
  const backup = report.kind === "backup";
  const lines = [
    `${report.file}: ${report.pets} pets (available ${byStatus.available}, pending ${byStatus.pending}, sold ${byStatus.sold}, no status ${byStatus.none})`,
  ];
  if (tornTail !== undefined) {
    const then = backup ? "restore leaves it out" : "it is cut off at the next start";
    lines.push(
      `warning: torn last line at byte offset ${tornTail.offset} (${tornTail.length} bytes without a newline); ${then}`,
    );
  }
  if (missingNewline !== undefined) {
    const then = backup ? "restore adds it" : "the next start adds it";
    lines.push(
      `warning: the last record (line ${missingNewline.line}) is whole but lacks its newline; ${then}`,
    );
  }
  if (backup && report.checked === false && damage === undefined) {
    lines.push(`warning: ${noCheckLineWarning(report.file)}`);
  }
  const nearCeiling = report.lastId === undefined ? undefined : idCeilingWarning(report.lastId);
  if (nearCeiling !== undefined) lines.push(nearCeiling);
  const more = damagedLines > 1 ? ` (${damagedLines} damaged lines in all)` : "";
  const refused = backup ? "restore refuses it" : "the store will not start";
  lines.push(
    damage !== undefined
      ? `error: line ${damage.line} ${damage.reason}${more}; ${refused}`
      : backup && report.checked
      ? "ok: the backup is whole: its check line matches every pet line"
      : tornTail === undefined
      ? `ok: the ${backup ? "backup" : "file"} is sound`
      : "ok: no damage besides the torn last line",
  );
  return lines;
}
