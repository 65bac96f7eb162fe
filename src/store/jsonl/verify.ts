/**
 * `verify`: reads the data file (streamed) and checks every line fully (UTF-8, JSON, record type
 * and version, shape, exact text, int64 categoryId, increasing ids) without taking the lock or
 * changing a byte. A torn last line is reported, not cut.
 */
import { join } from "node:path";
import { type FileLayer, nodeFileLayer } from "./file_layer.ts";
import { DATA_FILE } from "./jsonl_store.ts";
import { readLines } from "./line_reader.ts";
import type { StatusCounts } from "../store.ts";
import { MAX_LINE_BYTES, parseRecordLine } from "./record.ts";

/** What verify found. */
export interface VerifyReport {
  readonly file: string;
  /** Valid pet records (a missing file has none). */
  readonly pets: number;
  readonly byStatus: StatusCounts;
  /** Bytes after the last newline; the store cuts them at its next start. */
  readonly tornTail?: { readonly offset: number; readonly length: number };
  /** The first damaged line; the store refuses to start while it is there. */
  readonly damage?: { readonly line: number; readonly reason: string };
  /** How many lines are damaged in all. */
  readonly damagedLines: number;
}

const NEWLINE = 0x0a;

/** Checks `DATA_DIR/pets.jsonl` line by line; changes nothing. */
export async function verifyDataFile(
  dataDir: string,
  files: FileLayer = nodeFileLayer,
): Promise<VerifyReport> {
  const path = join(dataDir, DATA_FILE);
  const byStatus = { available: 0, pending: 0, sold: 0, none: 0 };
  let pets = 0;
  let damage: { line: number; reason: string } | undefined;
  let damagedLines = 0;
  let line = 0;
  let lastId = 0;
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const fail = (reason: string) => {
    damagedLines++;
    damage ??= { line, reason };
  };

  let file;
  try {
    file = await files.open(path, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return { file: path, pets, byStatus, damagedLines };
    }
    throw error;
  }
  let end;
  try {
    end = await readLines(file, (bytes, end) => {
      let start = 0;
      while (start < end) {
        const newline = bytes.indexOf(NEWLINE, start);
        line++;
        checkLine(bytes.subarray(start, newline));
        start = newline + 1;
      }
      return true;
    }, { maxLineBytes: MAX_LINE_BYTES });
  } finally {
    await file.close();
  }

  function checkLine(bytes: Uint8Array): void {
    if (bytes.length > MAX_LINE_BYTES) return fail(`is longer than ${MAX_LINE_BYTES} bytes`);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return fail("is not valid UTF-8");
    }
    const record = parseRecordLine(text);
    if (!record.ok) return fail(record.reason);
    if (record.id <= lastId) {
      return fail(`has id ${record.id}, not above the id ${lastId} before it`);
    }
    lastId = record.id;
    pets++;
    byStatus[record.status ?? "none"]++;
  }

  if (end.kind === "line_too_long") {
    line++;
    fail(`is longer than ${MAX_LINE_BYTES} bytes`);
  }
  const tornTail = end.kind === "torn_tail"
    ? { offset: end.offset, length: end.length }
    : undefined;
  return {
    file: path,
    pets,
    byStatus,
    damagedLines,
    ...(tornTail && { tornTail }),
    ...(damage && { damage }),
  };
}

/** The report as human-readable lines, for the `verify` sub-command. */
export function formatVerifyReport(report: VerifyReport): string[] {
  const { byStatus } = report;
  const lines = [
    `${report.file}: ${report.pets} pets (available ${byStatus.available}, pending ${byStatus.pending}, sold ${byStatus.sold}, no status ${byStatus.none})`,
  ];
  if (report.tornTail !== undefined) {
    lines.push(
      `warning: torn last line at byte offset ${report.tornTail.offset} (${report.tornTail.length} bytes without a newline); it is cut off at the next start`,
    );
  }
  if (report.damage !== undefined) {
    const more = report.damagedLines > 1 ? ` (${report.damagedLines} damaged lines in all)` : "";
    lines.push(
      `error: line ${report.damage.line} ${report.damage.reason}${more}; the store will not start`,
    );
  } else {
    lines.push(
      report.tornTail === undefined
        ? "ok: the file is sound"
        : "ok: no damage besides the torn last line",
    );
  }
  return lines;
}
