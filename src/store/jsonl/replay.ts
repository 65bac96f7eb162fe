/**
 * Replay at open: streams `pets.jsonl` into the in-memory index.
 *
 * Recovery rules:
 * - bytes after the last newline are a torn last line: a write that crashed before its fdatasync
 *   returned, so no caller was ever answered for it. They are cut off (the caller truncates) and
 *   reported with their byte offset;
 * - any other line that is not a valid record (bad JSON, wrong shape, an id not above the one
 *   before, an unknown record type or a newer format version) stops the start with the line
 *   number, and the file is left exactly as it is: data is never dropped silently.
 *
 * The replayed pets and keys fill a StoreMemory. Of the chunks read only the pets' texts are kept
 * (see pet_texts.ts); the fast path is line_scanner.ts.
 */
import { isUtf8 } from "node:buffer";
import type { DataFile } from "./file_layer.ts";
import { firstLineNotUtf8, LineScanner, statusOfCode } from "./line_scanner.ts";
import { readLines } from "./line_reader.ts";
import { MAX_LINE_BYTES, parseRecordLine } from "./record.ts";
import { StoreMemory } from "./store_memory.ts";

const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/** The replayed state, or where the file is damaged. */
export type ReplayResult =
  | {
    readonly ok: true;
    readonly memory: StoreMemory;
    /** Max id in the file + 1 (1 for an empty file). */
    readonly nextId: number;
    /** Length of the complete lines: where the next write goes. */
    readonly length: number;
    readonly tornTail: { readonly offset: number; readonly length: number } | undefined;
  }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** Reads every line of the file; never changes it. */
export async function replayFile(file: DataFile): Promise<ReplayResult> {
  const memory = new StoreMemory();
  const scanner = new LineScanner();
  let line = 0;
  let lastId = 0;
  let damage: { line: number; reason: string } | undefined;

  const end = await readLines(file, (bytes, end) => {
    // One native pass per chunk: pet texts are served as they are, so they must be UTF-8.
    if (!isUtf8(bytes.subarray(0, end))) {
      damage = { line: line + firstLineNotUtf8(bytes, end), reason: "is not valid UTF-8" };
      return false;
    }
    // Keep only the pet texts: each is moved down over the record framing of its line (the
    // write point never passes the line being read), then the chunk is cut to what is kept.
    const segment = memory.addSegment(bytes);
    let kept = 0;
    let start = 0;
    while (start < end) {
      const newline = bytes.indexOf(NEWLINE, start);
      line++;
      if (newline - start > MAX_LINE_BYTES) {
        damage = { line, reason: `is longer than ${MAX_LINE_BYTES} bytes` };
        return false;
      }
      if (!scanner.scan(bytes, start, newline)) {
        damage = { line, reason: explain(bytes.subarray(start, newline)) };
        return false;
      }
      if (scanner.id <= lastId) {
        damage = { line, reason: `has id ${scanner.id}, not above the id ${lastId} before it` };
        return false;
      }
      lastId = scanner.id;
      const length = scanner.petEnd - scanner.petStart;
      bytes.copyWithin(kept, scanner.petStart, scanner.petEnd);
      const status = statusOfCode(scanner.status);
      memory.addPet(segment, kept, kept + length, scanner.id, status, scanner.claim);
      kept += length;
      start = newline + 1;
    }
    memory.replaceSegment(segment, bytes.slice(0, kept));
    return true;
  }, { maxLineBytes: MAX_LINE_BYTES });

  if (damage !== undefined) return { ok: false, ...damage };
  if (end.kind === "line_too_long") {
    return { ok: false, line: line + 1, reason: `is longer than ${MAX_LINE_BYTES} bytes` };
  }
  if (end.kind === "stopped") throw new Error("replay stopped without a reason");
  const tornTail = end.kind === "torn_tail"
    ? { offset: end.offset, length: end.length }
    : undefined;
  const length = end.kind === "torn_tail" ? end.offset : end.length;
  return { ok: true, memory, nextId: lastId + 1, length, tornTail };
}

/** Why the fast path refused a line, in the full check's words. */
function explain(bytes: Uint8Array): string {
  const parsed = parseRecordLine(decoder.decode(bytes));
  return parsed.ok ? "is not in the exact form this service writes" : parsed.reason;
}
