/**
 * The one reader of a data file or a backup: the store's start, `verify`, `backup`, `restore` and
 * the PostgreSQL `import` all walk a file with `readRecords`, so, given the same bytes read as the
 * same `kind` of file, they accept and refuse exactly the same files, naming the same line for the
 * same reason (test/store/damage_judgement.test.ts).
 *
 * Rules, in the order a line meets them:
 * - a complete line longer than MAX_LINE_BYTES, not UTF-8, or not a line in the exact written form
 *   (`PetLine.parse`, which judges a pet's name by the API's own rules) is damage, named by its
 *   line number: data is never dropped silently;
 * - a pet's id must be above the id before it, and its idempotency key (scope and key) must be
 *   held by no earlier line: with two pets for one key, a retry could not say which it means;
 * - a backup's first line opens a checked run that its check line closes: the check must count
 *   the pet lines between them and carry the SHA-256 of their bytes. A check with no backup line
 *   before it, a backup line inside an open run, or a run never closed (the backup was cut short,
 *   at a line boundary or inside a line, or by the check line's newline alone) is damage, named by
 *   the line that is wrong;
 * - what lies outside the runs depends on what the file is (`kind`). In a data file (the start,
 *   `verify`, `backup`, `import` of DATA_DIR) it is the service's own: a backup copied into place
 *   by hand is followed by the pets created since, and those are kept. In a backup (`restore`,
 *   `verify PATH`, `import PATH`) that holds a backup line, a pet line (or bytes) outside the runs
 *   was added to it, and is damage, named by its line; a backup with no backup line at all is an
 *   earlier version's, judged line by line and reported unproven (`checked` false);
 * - bytes after the last newline: every acknowledged batch ended with a newline and was synced,
 *   so they hold no answered pet (a crash mid-write, a line the service is writing now) — unless an
 *   operator cut the file (`truncate -s -1`). So a complete pet record there, which the rules above
 *   accept, is kept, and reported as `missingNewline` (the start writes the newline; a copy gets
 *   it); any other bytes are a torn last line: left out and reported with their offset; the start
 *   cuts them, the tools leave them out.
 *
 * The file is read in chunks of complete lines into one reused buffer, so a file of any size is
 * read without ever becoming one string; a caller copies what it keeps.
 */
import { isUtf8 } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import { keyId } from "../idempotency.ts";
import type { StatusCounts } from "../store.ts";
import type { DataFile } from "./file_layer.ts";
import { BACKUP_LINE, MAX_LINE_BYTES, PetLine } from "./format.ts";

/** Where bytes come from, in order; `read` returns 0 at the end. */
export interface ByteSource {
  read(into: Uint8Array, offset: number, length: number): Promise<number>;
}

/** Where copied bytes go; the bytes may be reused once the promise settles. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>;

/** Bytes after the last newline: where they start and how many. */
export type TornTail = { readonly offset: number; readonly length: number };

/** A complete last pet record without its newline: where the newline goes, and its line. */
export type MissingNewline = { readonly offset: number; readonly line: number };

export type Damage = { readonly line: number; readonly reason: string };

/** What a read found. Counts and ids are of the sound records read. */
export interface RecordsRead {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  /** Highest id read (0 for none). */
  readonly lastId: number;
  /** Bytes of the lines kept (a last record without its newline included): a torn tail's offset. */
  readonly length: number;
  readonly tornTail: TornTail | undefined;
  readonly missingNewline: MissingNewline | undefined;
  /** Every pet line read lies inside a backup run whose check line matched: all proven whole. */
  readonly checked: boolean;
  /** The first damaged line; the read stops there unless `all` is set. */
  readonly damage: Damage | undefined;
  readonly damagedLines: number;
}

/**
 * What a file is read as: the service's data file, or a backup, in which nothing may lie outside
 * its checked lines. One kind, one judgement: every reader of the same bytes as the same kind
 * agrees.
 */
export type FileKind = "data file" | "backup";

export interface ReadOptions {
  /** "data file" unless said. */
  readonly kind?: FileKind;
  /** Read on past damage, to count every damaged line (verify). */
  readonly all?: boolean;
  /**
   * Called with each run of lines once all of them were accepted, bytes[0, end) at file offset
   * `offset`, exactly as the file holds them (a kept last record without its newline).
   */
  readonly onChunk?: (bytes: Uint8Array, offset: number) => void | Promise<void>;
  /**
   * Called with the accepted pet lines, each with its newline (added to a kept last record),
   * without a backup's first and check lines: what a copy of the catalogue holds.
   */
  readonly onCopy?: ByteSink;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** The backup run being read: its first line, and the pets and bytes since. */
interface OpenBackup {
  readonly line: number;
  pets: number;
  readonly sha256: Hash;
}

/**
 * Reads every line of `source`; calls `onRecord(record, bytes, key)` for each sound pet (the
 * record's ranges point into `bytes`, which is reused after its chunk; `key` is the `keyId` of its
 * claim). `onRecord` may rewrite the chunk's bytes up to the end of the record's line (the store's
 * replay keeps only the pets' texts), but then must not ask for `onCopy`.
 */
export async function readRecords(
  source: ByteSource,
  options: ReadOptions,
  onRecord?: (record: PetLine, bytes: Uint8Array, key: string | undefined) => void,
): Promise<RecordsRead> {
  const { kind = "data file", all = false, onChunk, onCopy } = options;
  const record = new PetLine();
  const byStatus: StatusCounts = { available: 0, pending: 0, sold: 0, none: 0 };
  const keyLines = new Map<string, number>();
  let pets = 0;
  let lastId = 0;
  let line = 0;
  let damage: Damage | undefined;
  let damagedLines = 0;
  let backup: OpenBackup | undefined;
  // Backup runs: whether one was opened, the check line of the last one closed, and whether one
  // failed its check (damage, so it matters only with `all`).
  let framed = false;
  let lastCheck = 0;
  let checkFailed = false;
  // The first pet line outside every run, and how many there are.
  let firstOutside: number | undefined;
  let outside = 0;
  // One buffer for the whole read (garbage chunks would raise the peak RSS of a large replay),
  // with room for a whole line beside a full read, and for a newline after a kept last record.
  const bytes = new Uint8Array(CHUNK_BYTES + MAX_LINE_BYTES + 1);
  let carried = 0;
  let offset = 0;
  const result = (tornTail?: TornTail, missingNewline?: MissingNewline): RecordsRead => {
    const length = offset;
    const checked = damage === undefined && framed && outside === 0 && !checkFailed &&
      backup === undefined;
    return {
      pets,
      byStatus,
      lastId,
      length,
      tornTail,
      missingNewline,
      checked,
      damage,
      damagedLines,
    };
  };
  const fail = (at: number, reason: string) => {
    damagedLines++;
    damage ??= { line: at, reason };
  };

  /** The line bytes[start, end) (no newline) as a line of the format: why not, or undefined. */
  const judgeForm = (start: number, end: number, checkUtf8: boolean): string | undefined => {
    if (end - start > MAX_LINE_BYTES) return `is longer than ${MAX_LINE_BYTES} bytes`;
    if (checkUtf8 && !isUtf8(bytes.subarray(start, end))) return "is not valid UTF-8";
    return record.parse(bytes, start, end);
  };

  /** The pet just parsed, against the lines before it: why it is damage, or undefined. */
  const judgePet = (): string | undefined => {
    if (record.id <= lastId) return `has id ${record.id}, not above the id ${lastId} before it`;
    if (record.claim === undefined) return undefined;
    const earlier = keyLines.get(keyId(record.claim));
    if (earlier === undefined) return undefined;
    return `repeats the idempotency key ${JSON.stringify(record.claim.key)} of line ${earlier}`;
  };

  /** Why the line being read, outside every run, is damage in a backup with runs; or undefined. */
  const judgeOutside = (): string | undefined => {
    if (kind !== "backup" || !framed) return undefined;
    return `is outside the backup's checked lines: it follows the check line ${lastCheck} (lines were added to the backup)`;
  };

  /** Takes in the pet just judged sound. */
  const acceptPet = () => {
    if (backup === undefined) {
      firstOutside ??= line;
      outside++;
    }
    lastId = record.id;
    pets++;
    if (backup !== undefined) backup.pets++;
    byStatus[record.status ?? "none"]++;
    let key: string | undefined;
    if (record.claim !== undefined) {
      key = keyId(record.claim);
      keyLines.set(key, line);
    }
    onRecord?.(record, bytes, key);
  };

  /**
   * A backup's first or check line just parsed, whose run of pet lines was hashed up to it: opens
   * or closes the run whatever the verdict (so `all` reads on sensibly); why it is damage, or not.
   */
  const judgeFraming = (): string | undefined => {
    const open = backup;
    if (record.type === "backup") {
      backup = { line, pets: 0, sha256: createHash("sha256") };
      if (!framed && kind === "backup" && firstOutside !== undefined) {
        // Pets read before the file turned out to be a checked backup: added to it.
        fail(
          firstOutside,
          `is outside the backup's checked lines: it comes before the backup's first line, line ${line} (lines were added to the backup)`,
        );
      }
      framed = true;
      if (open === undefined) return undefined;
      return `starts a backup inside the one line ${open.line} starts, which has no check line: that backup was cut short`;
    }
    backup = undefined;
    lastCheck = line;
    const reason = judgeCheck(open);
    if (reason !== undefined) checkFailed = true;
    return reason;
  };

  /** The check line just parsed, against the run `open` it closes: why it is damage, or not. */
  const judgeCheck = (open: OpenBackup | undefined): string | undefined => {
    if (open === undefined) return "is a backup's check line with no backup line before it";
    if (record.checkPets !== open.pets) {
      return `is the check of the backup line ${open.line} starts: it counts ${record.checkPets} pets, but ${open.pets} pet lines lie between them (lines were removed or added)`;
    }
    if (record.checkSha256 !== open.sha256.digest("hex")) {
      return `is the check of the backup line ${open.line} starts: the SHA-256 of the ${open.pets} pet lines between them is not the one it holds (the backup was altered)`;
    }
    return undefined;
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
        fail(++line, `is longer than ${MAX_LINE_BYTES} bytes`);
        return result();
      }
      return closeRead(result({ offset, length: carried + rest.skipped }));
    }
    // One native pass per chunk: pet texts are served as they are, so they must be UTF-8.
    const checkEachLine = !isUtf8(bytes.subarray(0, end));
    // A backup's first and check lines in this chunk, [start, end) pairs: left out of the copy.
    const framing: number[] = [];
    // Where the bytes of an open backup run not yet hashed start.
    let hashFrom = 0;
    for (let start = 0; start < end;) {
      const newline = bytes.indexOf(NEWLINE, start);
      line++;
      let reason = judgeForm(start, newline, checkEachLine);
      if (reason === undefined && record.type !== "pet") {
        backup?.sha256.update(bytes.subarray(hashFrom, start));
        reason = judgeFraming();
        hashFrom = newline + 1;
        framing.push(start, newline + 1);
      } else if (reason === undefined) {
        reason = judgePet() ?? (backup === undefined ? judgeOutside() : undefined);
        if (reason === undefined && backup !== undefined && onRecord !== undefined) {
          // onRecord may rewrite the line's bytes (the store's replay moves pet texts down).
          backup.sha256.update(bytes.subarray(hashFrom, newline + 1));
          hashFrom = newline + 1;
        }
        if (reason === undefined) acceptPet();
      }
      start = newline + 1;
      if (reason !== undefined) fail(line, reason);
      // A line outside a backup's runs is named when the backup line after it is read.
      if (damage !== undefined && !all) return result();
    }
    backup?.sha256.update(bytes.subarray(hashFrom, end));
    if (damage === undefined) {
      await onChunk?.(bytes.subarray(0, end), offset);
      if (onCopy !== undefined) await copyRuns(bytes.subarray(0, end), framing, onCopy);
    }
    bytes.copyWithin(0, end, filled);
    carried = filled - end;
    offset += end;
  }
  if (carried === 0) return closeRead(result());

  // Bytes after the last newline: a complete pet record the rules accept is kept (its newline
  // added); anything else is a torn tail.
  const form = judgeForm(0, carried, true);
  const kept = form === undefined && record.type === "pet" && judgePet() === undefined;
  if (!kept) {
    if (offset === 0 && isBackupLineStart(bytes.subarray(0, carried))) {
      // Bytes no service writes to its file: a backup cut short inside its first line.
      fail(++line, "is the start of a backup's first line: the backup was cut short inside it");
    }
    const checkLacksNewline = form === undefined && record.type === "check";
    return closeRead(result({ offset, length: carried }), checkLacksNewline);
  }
  line++;
  const outsideReason = backup === undefined ? judgeOutside() : undefined;
  if (outsideReason !== undefined) {
    fail(line, outsideReason);
    return result();
  }
  acceptPet();
  if (damage === undefined) {
    await onChunk?.(bytes.subarray(0, carried), offset);
    bytes[carried] = NEWLINE;
    await onCopy?.(bytes.subarray(0, carried + 1));
  }
  offset += carried;
  return closeRead(result(undefined, { offset, line }));

  /**
   * The end of the read: a backup run still open means the backup was cut short (by its check
   * line's newline alone, when `checkLacksNewline`: the torn tail is that whole line); a torn tail
   * after a backup's runs was added to it.
   */
  function closeRead(read: RecordsRead, checkLacksNewline = false): RecordsRead {
    if (backup !== undefined) {
      const where = read.tornTail === undefined ? `after line ${line}` : `inside line ${line + 1}`;
      fail(
        backup.line,
        checkLacksNewline
          ? `starts a backup whose check line, line ${
            line + 1
          }, lacks its newline: the backup was cut short by its last byte`
          : `starts a backup whose check line is missing: the backup was cut short ${where}`,
      );
    } else {
      const reason = read.tornTail === undefined ? undefined : judgeOutside();
      if (reason === undefined) return read;
      fail(line + 1, reason);
    }
    return { ...read, damage, damagedLines, checked: false };
  }
}

const BACKUP_LINE_BYTES = new TextEncoder().encode(BACKUP_LINE);

/** Whether `bytes` are the first bytes of a backup's first line. */
function isBackupLineStart(bytes: Uint8Array): boolean {
  if (bytes.length >= BACKUP_LINE_BYTES.length) return false;
  return bytes.every((byte, i) => byte === BACKUP_LINE_BYTES[i]);
}

/** Hands `copy` the lines of `bytes` outside the [start, end) pairs of `framing`. */
async function copyRuns(bytes: Uint8Array, framing: number[], copy: ByteSink): Promise<void> {
  let from = 0;
  for (let i = 0; i < framing.length; i += 2) {
    if (framing[i] > from) await copy(bytes.subarray(from, framing[i]));
    from = framing[i + 1];
  }
  if (from < bytes.length) await copy(bytes.subarray(from));
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

/** Reads a stream of byte chunks (stdin) as a ByteSource. */
export function streamSource(stream: AsyncIterable<Uint8Array>): ByteSource {
  const chunks = stream[Symbol.asyncIterator]();
  let pending: Uint8Array = new Uint8Array(0);
  return {
    async read(into, offset, length) {
      while (pending.length === 0) {
        const next = await chunks.next();
        if (next.done) return 0;
        pending = next.value;
      }
      const count = Math.min(length, pending.length);
      into.set(pending.subarray(0, count), offset);
      pending = pending.subarray(count);
      return count;
    },
  };
}
