/**
 * Copies the records of a JSON-lines data file from a byte source to a sink, one run of
 * complete lines at a time (bounded memory), checking each line on the way. `backup` and
 * `restore` both use it.
 *
 * Copy rules:
 * - only complete lines are copied: bytes after the last newline (a torn last line, or a line the
 *   service is writing at this moment) are left out and reported as `tornTail`;
 * - a line that is not a record (not UTF-8, not in the written form, an id not above the one
 *   before, too long) stops the copy with its line number: the copy is never a damaged file;
 * - the lines are copied byte for byte, idempotency claims included.
 */
import type { StatusCounts } from "../store.ts";
import { isUtf8 } from "node:buffer";
import type { PetStatus } from "../../schemas/pet.ts";
import { firstLineNotUtf8, LineScanner, statusOfCode } from "./line_scanner.ts";
import { MAX_LINE_BYTES, parseRecordLine } from "./record.ts";

/** Where bytes come from, in order; `read` returns 0 at the end. */
export interface ByteSource {
  read(into: Uint8Array, offset: number, length: number): Promise<number>;
}

/** Where copied lines go; the bytes may be reused once the promise settles. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>;

/** How each line is checked. */
type LineCheck =
  /** The service's own replay check (line_scanner.ts): what a start needs, and fast. */
  | "replay"
  /** `verify`'s full check (record.ts), names included. */
  | "full";

/** What a copy did. */
export type CopyResult =
  | {
    readonly ok: true;
    readonly pets: number;
    readonly byStatus: StatusCounts;
    /** Highest id copied (0 for none). */
    readonly lastId: number;
    /** Bytes copied: complete lines only. */
    readonly bytes: number;
    /** Bytes left out after the last newline (0 when the source ended on a line boundary). */
    readonly tornTail: number;
  }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/** Observes each chunk copied, with its offset in the source (backup hashes a window of them). */
type ChunkObserver = (bytes: Uint8Array, offset: number) => void;

const NEWLINE = 0x0a;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** Copies the complete, valid lines of `source` to `sink`; stops at the first bad line. */
export async function copyRecordLines(
  source: ByteSource,
  sink: ByteSink,
  options: { check: LineCheck; onChunk?: ChunkObserver },
): Promise<CopyResult> {
  const checkLine = options.check === "full" ? fullCheck() : replayCheck();
  const byStatus: StatusCounts = { available: 0, pending: 0, sold: 0, none: 0 };
  // A chunk always has room for a whole line: lines are at most MAX_LINE_BYTES.
  const buffer = new Uint8Array(CHUNK_BYTES + MAX_LINE_BYTES + 1);
  let carried = 0;
  let offset = 0;
  let line = 0;
  let pets = 0;
  let lastId = 0;
  for (;;) {
    const read = await source.read(buffer, carried, buffer.length - carried);
    if (read === 0) break;
    const filled = carried + read;
    const end = buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
    if (end === 0) {
      if (filled > MAX_LINE_BYTES) {
        return { ok: false, line: line + 1, reason: `is longer than ${MAX_LINE_BYTES} bytes` };
      }
      carried = filled;
      continue;
    }
    const chunk = buffer.subarray(0, end);
    if (!isUtf8(chunk)) {
      return { ok: false, line: line + firstLineNotUtf8(chunk), reason: "is not valid UTF-8" };
    }
    for (let start = 0; start < end;) {
      const newline = chunk.indexOf(NEWLINE, start);
      line++;
      if (newline - start > MAX_LINE_BYTES) {
        return { ok: false, line, reason: `is longer than ${MAX_LINE_BYTES} bytes` };
      }
      const record = checkLine(chunk, start, newline);
      if (typeof record === "string") return { ok: false, line, reason: record };
      if (record.id <= lastId) {
        return {
          ok: false,
          line,
          reason: `has id ${record.id}, not above the id ${lastId} before it`,
        };
      }
      lastId = record.id;
      pets++;
      byStatus[record.status ?? "none"]++;
      start = newline + 1;
    }
    options.onChunk?.(chunk, offset);
    await sink(chunk);
    offset += end;
    buffer.copyWithin(0, end, filled);
    carried = filled - end;
  }
  return { ok: true, pets, byStatus, lastId, bytes: offset, tornTail: carried };
}

/** A line's id and status, or why it is not a record. */
type LineChecker = (
  bytes: Uint8Array,
  start: number,
  end: number,
) => { id: number; status: PetStatus | undefined } | string;

function replayCheck(): LineChecker {
  const scanner = new LineScanner();
  const full = fullCheck();
  return (bytes, start, end) => {
    if (scanner.scan(bytes, start, end)) {
      return { id: scanner.id, status: statusOfCode(scanner.status) };
    }
    // The fast path only says no; the full check says why.
    const explained = full(bytes, start, end);
    return typeof explained === "string"
      ? explained
      : "is not in the exact form this service writes";
  };
}

function fullCheck(): LineChecker {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return (bytes, start, end) => {
    const record = parseRecordLine(decoder.decode(bytes.subarray(start, end)));
    return record.ok ? { id: record.id, status: record.status } : record.reason;
  };
}
