/** What the data tools found, in one result type; `verify`'s judgement; the one report printed. */
import { join } from "node:path";
import { MAX_PET_ID, type StatusCounts } from "../store/store.ts";
import {
  type ByteSource,
  type Damage,
  type FileKind,
  fileSource,
  type MissingNewline,
  readRecords,
  type TornTail,
} from "../store/catalogue/read_records.ts";
import { openIfExists } from "../store/jsonl/file_layer.ts";
import { DATA_FILE } from "../store/jsonl/jsonl_store.ts";

/** What a tool read or wrote: pets per status, and what it left out or repaired at the end. */
export interface RecordCounts {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  readonly tornTail?: TornTail;
  readonly missingNewline?: MissingNewline;
  /** Of a backup read: its check line matched (false: it has none, an earlier version's). */
  readonly checked?: boolean;
}

/** `changed`: the file was cut back during a backup, take it again. */
export type ToolResult<T = unknown> =
  | ({ readonly ok: true } & RecordCounts & T)
  | { readonly ok: false; readonly reason: string; readonly changed?: boolean };

export interface RecordReport extends RecordCounts {
  readonly file: string;
  /** A data file (the start reads it) or a backup (restore reads it): what the warnings say. */
  readonly kind?: FileKind;
  readonly lastId?: number;
  /** The first damaged line; the store refuses to start while it is there. */
  readonly damage?: Damage;
  readonly damagedLines: number;
}

/** Checks the lines of a data file or a backup read from `source` (`name` says where from). */
export async function verifySource(
  source: ByteSource,
  { name, kind }: { name: string; kind: FileKind },
): Promise<RecordReport> {
  return { ...(await readRecords(source, { kind, all: true })), file: name, kind };
}

/** The start's judgement of every line, without the lock; a missing file has no pets. */
export async function verifyDataFile(dataDir: string): Promise<RecordReport> {
  const path = join(dataDir, DATA_FILE);
  const file = await openIfExists(path, "r");
  try {
    const source = file === undefined ? { read: async () => 0 } : fileSource(file);
    return await verifySource(source, { name: path, kind: "data file" });
  } finally {
    await file?.close();
  }
}

/** How near MAX_PET_ID the highest id of a file may come before `verify` warns. */
const ID_CEILING_WARNING_DISTANCE = 1_000;

/** A backup read whole but with no check line (an earlier version's). */
function noCheckLineWarning(file: string): string {
  return `${file} has no check line (a backup taken by an earlier version?): every line was judged, but a backup cut short at a line boundary cannot be told from a whole one`;
}

/** What a copy (`restore`, `import`) left out or repaired, one warning each. */
export function copyWarnings(file: string, counts: RecordCounts, backup: boolean): string[] {
  const { tornTail, missingNewline } = counts;
  const warnings: string[] = [];
  if (tornTail !== undefined) {
    const { offset, length } = tornTail;
    warnings.push(
      `left out the torn last line of ${file} (byte offset ${offset}): ${length} bytes without a newline`,
    );
  }
  if (missingNewline !== undefined) {
    const { line } = missingNewline;
    warnings.push(`the last record of ${file} (line ${line}) lacks its newline; it is kept`);
  }
  if (backup && !counts.checked) warnings.push(noCheckLineWarning(file));
  return warnings;
}

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
  const left = MAX_PET_ID - (report.lastId ?? 0);
  if (left <= ID_CEILING_WARNING_DISTANCE) {
    lines.push(
      `warning: the highest id is ${report.lastId}; ${left} ids are left before ids stop at ${MAX_PET_ID}, and then every create is refused (503 unavailable)`,
    );
  }
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
