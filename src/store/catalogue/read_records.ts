/**
 * The one reader of a data file or a backup, for the start and every data tool, so the same bytes
 * are judged alike (test/tools/damage_judgement.test.ts). Rules, in order:
 * - a line too long, not UTF-8 or not in the exact written form (`PetLine.parse`) is damage;
 * - ids ascend, and no idempotency key is held by two lines (a retry could not say which);
 * - a backup's first line opens a run its check line closes (count and SHA-256 of the lines
 *   between); a check without a run, a run inside a run or one never closed is damage;
 * - outside the runs, a data file's pets are kept, a backup with runs was added to (damage);
 * - after the last newline, a whole pet record is kept (`missingNewline`: an operator cut the
 *   file), anything else is a torn tail (never answered), left out.
 * One reused buffer: a caller copies what it keeps.
 */
import { isUtf8 } from "node:buffer";
import { createHash, type Hash } from "node:crypto";
import { emptyStatusCounts, keyId, type StatusCounts } from "../store.ts";
import { BACKUP_LINE, MAX_LINE_BYTES, PetLine } from "./line_format.ts";

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

/** What a read found, of the sound records. */
export interface RecordsRead {
  readonly pets: number;
  readonly byStatus: StatusCounts;
  /** Highest id read (0 for none). */
  readonly lastId: number;
  /** Bytes of the lines kept: a torn tail's offset. */
  readonly length: number;
  readonly tornTail: TornTail | undefined;
  readonly missingNewline: MissingNewline | undefined;
  /** Every pet line lies inside a backup run whose check line matched: all proven whole. */
  readonly checked: boolean;
  /** The first damaged line; the read stops there unless `all` is set. */
  readonly damage: Damage | undefined;
  readonly damagedLines: number;
}

/** A backup may hold nothing outside its checked lines. */
export type FileKind = "data file" | "backup";

export interface ReadOptions {
  /** "data file" unless said. */
  readonly kind?: FileKind;
  /** Read on past damage, to count every damaged line (verify). */
  readonly all?: boolean;
  /** Each run of accepted lines, bytes[0, end) at file offset `offset`, as held. */
  readonly onChunk?: (bytes: Uint8Array, offset: number) => void | Promise<void>;
  /** The accepted pet lines, each with its newline: what a copy holds. */
  readonly onCopy?: ByteSink;
  /**
   * Each accepted pet; its ranges point into `bytes`, reused after the chunk. It may rewrite the
   * chunk up to the end of the record's line, but then must not ask for `onCopy`.
   */
  readonly onRecord?: (record: PetLine, bytes: Uint8Array, key: string | undefined) => void;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** The backup run being read: its first line, and the pets and bytes since. */
type OpenBackup = { readonly line: number; pets: number; readonly sha256: Hash };

export async function readRecords(source: ByteSource, options: ReadOptions): Promise<RecordsRead> {
  const walk = new RecordWalk(options);
  const { bytes } = walk;
  for (;;) {
    const read = await source.read(bytes, walk.carried, bytes.length - walk.carried);
    if (read === 0) break;
    const filled = walk.carried + read;
    const end = bytes.lastIndexOf(NEWLINE, filled - 1) + 1;
    if (end === 0) {
      walk.carried = filled;
      if (filled <= MAX_LINE_BYTES) continue;
      // A line over the limit and no newline yet: damage if one follows, else a torn tail.
      const rest = await skipToNewline(source, bytes);
      if (rest.newline) {
        walk.fail(++walk.line, `is longer than ${MAX_LINE_BYTES} bytes`);
        return walk.result();
      }
      return walk.close(walk.result({ offset: walk.offset, length: filled + rest.skipped }));
    }
    if (!(await walk.take(end))) return walk.result();
    bytes.copyWithin(0, end, filled);
    walk.carried = filled - end;
    walk.offset += end;
  }
  return walk.carried === 0 ? walk.close(walk.result()) : await readLastLine(walk);
}

/** Bytes after the last newline: a complete sound pet record is kept; else a torn tail. */
async function readLastLine(walk: RecordWalk): Promise<RecordsRead> {
  const { bytes, carried, record } = walk;
  const form = walk.judgeForm(0, carried, true);
  if (form === undefined && record.type === "pet" && walk.judgePet() === undefined) {
    const damaged = walk.damagedLines;
    bytes[carried] = NEWLINE;
    await walk.take(carried + 1, carried);
    if (walk.damagedLines > damaged) return walk.result();
    walk.offset += carried;
    return walk.close(walk.result(undefined, { offset: walk.offset, line: walk.line }));
  }
  // Bytes no service writes to its file: a backup cut short inside its first line.
  if (walk.offset === 0 && carried < BACKUP_LINE.length) {
    const start = String.fromCharCode(...bytes.subarray(0, carried));
    const reason = "is the start of a backup's first line: the backup was cut short inside it";
    if (BACKUP_LINE.startsWith(start)) walk.fail(++walk.line, reason);
  }
  const checkLacksNewline = form === undefined && record.type === "check";
  return walk.close(walk.result({ offset: walk.offset, length: carried }), checkLacksNewline);
}

/** The state of one read: what was accepted so far, the open backup run, the first damage. */
class RecordWalk {
  readonly record = new PetLine();
  readonly byStatus: StatusCounts = emptyStatusCounts();
  readonly keyLines = new Map<string, number>();
  pets = 0;
  lastId = 0;
  line = 0;
  damage: Damage | undefined;
  damagedLines = 0;
  backup: OpenBackup | undefined;
  // Backup runs: whether one was opened, the last check line, and whether a check failed (`all`).
  framed = false;
  lastCheck = 0;
  checkFailed = false;
  // The first pet line outside every run, and how many there are.
  firstOutside: number | undefined;
  outside = 0;
  /** Room for a whole line and a newline beside a full read. */
  readonly bytes = new Uint8Array(CHUNK_BYTES + MAX_LINE_BYTES + 1);
  /** Bytes at the start of `bytes` not yet judged (a line still without its newline). */
  carried = 0;
  /** The file offset of `bytes[0]`. */
  offset = 0;

  constructor(readonly options: ReadOptions) {}

  result(tornTail?: TornTail, missingNewline?: MissingNewline): RecordsRead {
    const { pets, byStatus, lastId, offset: length, damage, damagedLines } = this;
    const checked = damage === undefined && this.framed && this.outside === 0 &&
      !this.checkFailed && this.backup === undefined;
    const found = { pets, byStatus, lastId, length, damage, damagedLines };
    return { ...found, tornTail, missingNewline, checked };
  }

  fail(at: number, reason: string): void {
    this.damagedLines++;
    this.damage ??= { line: at, reason };
  }

  /** Judges, then hands on bytes[0, end) (the file holds [0, held)); false when the read stops. */
  async take(end: number, held = end): Promise<boolean> {
    const framing = this.judgeLines(end);
    if (framing === undefined) return false;
    if (this.damage !== undefined) return true;
    const { onChunk, onCopy } = this.options;
    await onChunk?.(this.bytes.subarray(0, held), this.offset);
    if (onCopy !== undefined) await copyRuns(this.bytes.subarray(0, end), framing, onCopy);
    return true;
  }

  /** Judges bytes[0, end): its framing lines' [start, end) pairs, or undefined at a stop. */
  judgeLines(end: number): number[] | undefined {
    const { bytes } = this;
    // One native pass per chunk: pet texts are served as they are, so they must be UTF-8.
    const checkEachLine = !isUtf8(bytes.subarray(0, end));
    const framing: number[] = [];
    // Where the bytes of an open backup run not yet hashed start.
    let hashFrom = 0;
    for (let start = 0; start < end;) {
      const newline = bytes.indexOf(NEWLINE, start);
      this.line++;
      let reason = this.judgeForm(start, newline, checkEachLine);
      if (reason === undefined && this.record.type !== "pet") {
        this.backup?.sha256.update(bytes.subarray(hashFrom, start));
        reason = this.judgeFraming();
        hashFrom = newline + 1;
        framing.push(start, newline + 1);
      } else if (reason === undefined) {
        reason = this.judgePet() ?? (this.backup === undefined ? this.judgeOutside() : undefined);
        if (reason === undefined && this.backup !== undefined && this.options.onRecord) {
          // onRecord may rewrite the line's bytes (the store's replay moves pet texts down).
          this.backup.sha256.update(bytes.subarray(hashFrom, newline + 1));
          hashFrom = newline + 1;
        }
        if (reason === undefined) this.acceptPet();
      }
      start = newline + 1;
      if (reason !== undefined) this.fail(this.line, reason);
      if (this.damage !== undefined && !this.options.all) return undefined;
    }
    this.backup?.sha256.update(bytes.subarray(hashFrom, end));
    return framing;
  }

  /** The line bytes[start, end) (no newline) as a line of the format: why not, or undefined. */
  judgeForm(start: number, end: number, checkUtf8: boolean): string | undefined {
    if (end - start > MAX_LINE_BYTES) return `is longer than ${MAX_LINE_BYTES} bytes`;
    if (checkUtf8 && !isUtf8(this.bytes.subarray(start, end))) return "is not valid UTF-8";
    return this.record.parse(this.bytes, start, end);
  }

  /** The pet just parsed, against the lines before it: why it is damage, or undefined. */
  judgePet(): string | undefined {
    const { id, claim } = this.record;
    if (id <= this.lastId) return `has id ${id}, not above the id ${this.lastId} before it`;
    if (claim === undefined) return undefined;
    const earlier = this.keyLines.get(keyId(claim));
    if (earlier === undefined) return undefined;
    return `repeats the idempotency key ${JSON.stringify(claim.key)} of line ${earlier}`;
  }

  /** Why the line being read, outside every run, is damage in a backup with runs; or undefined. */
  judgeOutside(): string | undefined {
    if (this.options.kind !== "backup" || !this.framed) return undefined;
    return `is outside the backup's checked lines: it follows the check line ${this.lastCheck} (lines were added to the backup)`;
  }

  acceptPet(): void {
    const { record } = this;
    if (this.backup === undefined) {
      this.firstOutside ??= this.line;
      this.outside++;
    } else {
      this.backup.pets++;
    }
    this.lastId = record.id;
    this.pets++;
    this.byStatus[record.status ?? "none"]++;
    let key: string | undefined;
    if (record.claim !== undefined) {
      key = keyId(record.claim);
      this.keyLines.set(key, this.line);
    }
    this.options.onRecord?.(record, this.bytes, key);
  }

  /** A backup's first or check line just parsed: opens or closes its run, whatever the verdict. */
  judgeFraming(): string | undefined {
    const open = this.backup;
    if (this.record.type === "backup") {
      this.backup = { line: this.line, pets: 0, sha256: createHash("sha256") };
      if (!this.framed && this.options.kind === "backup" && this.firstOutside !== undefined) {
        // Pets read before the file turned out to be a checked backup: added to it.
        this.fail(
          this.firstOutside,
          `is outside the backup's checked lines: it comes before the backup's first line, line ${this.line} (lines were added to the backup)`,
        );
      }
      this.framed = true;
      if (open === undefined) return undefined;
      return `starts a backup inside the one line ${open.line} starts, which has no check line: that backup was cut short`;
    }
    this.backup = undefined;
    this.lastCheck = this.line;
    const reason = this.judgeCheck(open);
    if (reason !== undefined) this.checkFailed = true;
    return reason;
  }

  /** The check line just parsed, against the run `open` it closes: why it is damage, or not. */
  judgeCheck(open: OpenBackup | undefined): string | undefined {
    if (open === undefined) return "is a backup's check line with no backup line before it";
    const { checkPets, checkSha256 } = this.record;
    if (checkPets !== open.pets) {
      return `is the check of the backup line ${open.line} starts: it counts ${checkPets} pets, but ${open.pets} pet lines lie between them (lines were removed or added)`;
    }
    if (checkSha256 !== open.sha256.digest("hex")) {
      return `is the check of the backup line ${open.line} starts: the SHA-256 of the ${open.pets} pet lines between them is not the one it holds (the backup was altered)`;
    }
    return undefined;
  }

  /** The end of the read: a run still open was cut short; a torn tail after runs was added. */
  close(read: RecordsRead, checkLacksNewline = false): RecordsRead {
    const { backup, line } = this;
    if (backup !== undefined) {
      const where = read.tornTail === undefined ? `after line ${line}` : `inside line ${line + 1}`;
      const check = checkLacksNewline ? `, line ${line + 1}, lacks its newline` : " is missing";
      const how = checkLacksNewline ? "by its last byte" : where;
      this.fail(
        backup.line,
        `starts a backup whose check line${check}: the backup was cut short ${how}`,
      );
    } else {
      const reason = read.tornTail === undefined ? undefined : this.judgeOutside();
      if (reason === undefined) return read;
      this.fail(line + 1, reason);
    }
    return { ...read, damage: this.damage, damagedLines: this.damagedLines, checked: false };
  }
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

export interface ReadableFile {
  read(
    into: Uint8Array,
    offset: number,
    length: number,
    at: number,
  ): Promise<{ bytesRead: number }>;
}

/** Bytes [start, end) of a file. */
export function fileSource(file: ReadableFile, start = 0, end = Infinity): ByteSource {
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
