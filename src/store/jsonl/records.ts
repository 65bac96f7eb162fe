/**
 * The one reader of a data file: the store's start, `verify`, `backup`, `restore` and the
 * PostgreSQL `import` all walk a file with `readRecords`, so they judge every file alike.
 *
 * Rules, in the order a line meets them:
 * - bytes after the last newline are a torn last line, whatever their length: every acknowledged
 *   batch ended with a newline and was synced, so they hold no answered pet (a crash mid-write,
 *   or a line the service is writing now). They are left out and reported with their offset; the
 *   start cuts them, the tools leave them out;
 * - a complete line longer than MAX_LINE_BYTES, not UTF-8, not a record in the exact written form
 *   (format.ts), or with an id not above the one before is damage, named by its line number:
 *   data is never dropped silently.
 *
 * The file is read in chunks of complete lines into one reused buffer, so a file of any size is
 * read without ever becoming one string; a caller copies what it keeps.
 */
import { isUtf8 } from "node:buffer";
import type { StatusCounts } from "../store.ts";
import type { DataFile } from "./file_layer.ts";
import { MAX_LINE_BYTES, PetLine } from "./format.ts";

/** Where bytes come from, in order; `read` returns 0 at the end. */
export interface ByteSource {
  read(into: Uint8Array, offset: number, length: number): Promise<number>;
}

/** Where copied bytes go; the bytes may be reused once the promise settles. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>;

/** Bytes after the last newline: where they start and how many. */
export type TornTail = { readonly offset: number; readonly length: number };

export type Damage = { readonly line: number; readonly reason: string };

/** What a read found. Counts and ids are of the sound records read. */
export interface RecordsRead {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  /** Highest id read (0 for none). */
  readonly lastId: number;
  /** Bytes of the complete lines read: where a torn tail starts, or the end. */
  readonly length: number;
  readonly tornTail: TornTail | undefined;
  /** The first damaged line; the read stops there unless `all` is set. */
  readonly damage: Damage | undefined;
  readonly damagedLines: number;
}

export interface ReadOptions {
  /** Also check the names (see `PetLine.parse`). */
  readonly strict: boolean;
  /** Read on past damage, to count every damaged line (verify). */
  readonly all?: boolean;
  /**
   * Called after the records of each run of complete lines, bytes[0, end) at file offset
   * `offset`, once all of them were accepted (the copy of a backup or restore goes here).
   */
  readonly onChunk?: (bytes: Uint8Array, offset: number) => void | Promise<void>;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * Reads every line of `source`; calls `onRecord(record, bytes)` for each sound one (the record's
 * ranges point into `bytes`, which is reused after its chunk).
 */
export async function readRecords(
  source: ByteSource,
  options: ReadOptions,
  onRecord?: (record: PetLine, bytes: Uint8Array) => void,
): Promise<RecordsRead> {
  const { strict, all = false, onChunk } = options;
  const record = new PetLine();
  const byStatus: StatusCounts = { available: 0, pending: 0, sold: 0, none: 0 };
  let pets = 0;
  let lastId = 0;
  let line = 0;
  let damage: Damage | undefined;
  let damagedLines = 0;
  // One buffer for the whole read (garbage chunks would raise the peak RSS of a large replay),
  // with room for a whole line beside a full read.
  const bytes = new Uint8Array(CHUNK_BYTES + MAX_LINE_BYTES + 1);
  let carried = 0;
  let offset = 0;
  const result = (tornTail?: TornTail): RecordsRead => {
    return { pets, byStatus, lastId, length: offset, tornTail, damage, damagedLines };
  };
  const fail = (reason: string) => {
    damagedLines++;
    damage ??= { line, reason };
  };

  for (;;) {
    const read = await source.read(bytes, carried, bytes.length - carried);
    if (read === 0) break;
    const filled = carried + read;
    const end = bytes.lastIndexOf(NEWLINE, filled - 1) + 1;
    if (end === 0) {
      carried = filled;
      if (carried <= MAX_LINE_BYTES) continue;
      // A line over the limit and no newline yet: damage if one follows, else a torn tail.
      const rest = await skipToNewline(source, bytes);
      if (rest.newline) {
        line++;
        fail(`is longer than ${MAX_LINE_BYTES} bytes`);
        return result();
      }
      return result({ offset, length: carried + rest.skipped });
    }
    // One native pass per chunk: pet texts are served as they are, so they must be UTF-8.
    const checkEachLine = !isUtf8(bytes.subarray(0, end));
    for (let start = 0; start < end;) {
      const newline = bytes.indexOf(NEWLINE, start);
      line++;
      const reason = newline - start > MAX_LINE_BYTES
        ? `is longer than ${MAX_LINE_BYTES} bytes`
        : checkEachLine && !isUtf8(bytes.subarray(start, newline))
        ? "is not valid UTF-8"
        : record.parse(bytes, start, newline, strict) ??
          (record.id > lastId
            ? undefined
            : `has id ${record.id}, not above the id ${lastId} before it`);
      start = newline + 1;
      if (reason !== undefined) {
        fail(reason);
        if (all) continue;
        return result();
      }
      lastId = record.id;
      pets++;
      byStatus[record.status ?? "none"]++;
      onRecord?.(record, bytes);
    }
    if (damage === undefined) await onChunk?.(bytes.subarray(0, end), offset);
    bytes.copyWithin(0, end, filled);
    carried = filled - end;
    offset += end;
  }
  return result(carried > 0 ? { offset, length: carried } : undefined);
}

/** Reads on, discarding, to the next newline or the end; how many bytes came before it. */
async function skipToNewline(
  source: ByteSource,
  buffer: Uint8Array,
): Promise<{ newline: boolean; skipped: number }> {
  let skipped = 0;
  for (let read; (read = await source.read(buffer, 0, buffer.length)) > 0;) {
    const newline = buffer.subarray(0, read).indexOf(NEWLINE);
    if (newline >= 0) return { newline: true, skipped: skipped + newline };
    skipped += read;
  }
  return { newline: false, skipped };
}

/** Reads [start, end) of a file in order. */
export function fileSource(file: Pick<DataFile, "read">, start = 0, end = Infinity): ByteSource {
  let position = start;
  return {
    async read(into, offset, length) {
      const wanted = Math.min(length, end - position);
      if (wanted <= 0) return 0;
      const { bytesRead } = await file.read(into, offset, wanted, position);
      position += bytesRead;
      return bytesRead;
    },
  };
}
