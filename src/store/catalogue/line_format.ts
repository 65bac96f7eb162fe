/**
 * The line format of `pets.jsonl` and of backups: one JSON object per line, readable with jq.
 *
 *   {"type":"pet","v":1,"pet":<Pet>}
 *   {"type":"pet","v":1,"pet":<Pet>,"idempotency":{"scope":"…","key":"…","digest":"…"}}
 *   {"type":"backup","v":1}                               first line of a backup
 *   {"type":"check","v":1,"pets":<n>,"sha256":"<hex>"}    last line of a backup
 *
 * `type` and `v` let later record kinds and versions join without a migration; a reader that
 * meets one it does not know refuses to start rather than skip data. `<Pet>` is exactly the text
 * of `petJson`, so a response is a slice of the line. The check counts the pet lines since the
 * first line and gives the SHA-256 of their bytes, so a backup cut short or altered is told from a
 * whole one (read_records.ts). Here are each line's writer and the one reader (`PetLine.parse`,
 * no JSON.parse per pet line), which says why a line is refused.
 */
import { createHash } from "node:crypto";
import {
  isPlainAsciiName,
  nameFlaw,
  type NewPet,
  PET_STATUSES,
  type PetStatus,
} from "../../schemas/pet.ts";
import { type IdempotencyClaim, petJson } from "../store.ts";

const RECORD_VERSION = 1;

/** No record comes near this; a longer line is damage. Pet texts must fit a Uint16 length. */
export const MAX_LINE_BYTES = 65_535;

/** Text before the pet object on every pet line. */
export const PET_RECORD_PREFIX = `{"type":"pet","v":${RECORD_VERSION},"pet":`;

const CLAIM_FIELD = `,"idempotency":`;

// ---- Writing ----

/** A pet's line as text: the pet's own JSON and what follows it on the line. */
export type PetRecord = { readonly petJson: string; readonly suffix: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const PREFIX_BYTES = encoder.encode(PET_RECORD_PREFIX);

export function petRecord(id: number, pet: NewPet, claim: IdempotencyClaim | undefined): PetRecord {
  const suffix = claim === undefined ? "}\n" : `${CLAIM_FIELD}${claimJson(claim)}}\n`;
  return { petJson: petJson(id, pet), suffix };
}

/** At least the bytes `encodePetRecords` writes for this record (3 per UTF-16 unit). */
export function maxRecordBytes(record: PetRecord): number {
  return PREFIX_BYTES.length + 3 * (record.petJson.length + record.suffix.length);
}

/**
 * Writes `records` at `target[at]` (room for `maxRecordBytes` of each); pet i's text is [spans[2i],
 * spans[2i+1]). An ASCII batch is one `encodeInto` (byte offsets = string offsets); else by line.
 */
export function encodePetRecords(
  records: readonly PetRecord[],
  target: Uint8Array,
  at: number,
): { spans: number[]; end: number } {
  const spans = new Array<number>(2 * records.length);
  let lines = "";
  for (let i = 0; i < records.length; i++) {
    lines += PET_RECORD_PREFIX;
    spans[2 * i] = at + lines.length;
    lines += records[i].petJson;
    spans[2 * i + 1] = at + lines.length;
    lines += records[i].suffix;
  }
  const written = encoder.encodeInto(lines, target.subarray(at)).written;
  if (written === lines.length) return { spans, end: at + written };
  let end = at;
  for (let i = 0; i < records.length; i++) {
    target.set(PREFIX_BYTES, end);
    end += PREFIX_BYTES.length;
    spans[2 * i] = end;
    end += encoder.encodeInto(records[i].petJson, target.subarray(end)).written;
    spans[2 * i + 1] = end;
    end += encoder.encodeInto(records[i].suffix, target.subarray(end)).written;
  }
  return { spans, end };
}

/** One full line for a pet as bytes, for tools and tests that lay out a data file. */
export function petRecordBytes(id: number, pet: NewPet, claim?: IdempotencyClaim): Uint8Array {
  const record = petRecord(id, pet, claim);
  const bytes = new Uint8Array(maxRecordBytes(record));
  return bytes.slice(0, encodePetRecords([record], bytes, 0).end);
}

/** Whether a create's line stays under MAX_LINE_BYTES (3 bytes a UTF-16 unit, 6 a claim's). */
export function fitsOneLine(pet: NewPet, claim: IdempotencyClaim | undefined): boolean {
  const claimUnits = claim ? claim.scope.length + claim.key.length + claim.digest.length : 0;
  return 3 * pet.name.length + 6 * claimUnits + 256 <= MAX_LINE_BYTES;
}

/** The first line of a backup: a check line follows the pet lines. */
export const BACKUP_LINE = `{"type":"backup","v":${RECORD_VERSION}}\n`;

/** The last line of a backup: how many pet lines it holds, and the SHA-256 (hex) of their bytes. */
export function checkLine(pets: number, sha256: string): string {
  return `{"type":"check","v":${RECORD_VERSION},"pets":${pets},"sha256":"${sha256}"}\n`;
}

/** Writes a backup to `sink`: `begin`, pet lines (`write`), then `end`, or nothing more. */
export class CheckedBackup {
  readonly #sha256 = createHash("sha256");

  constructor(private readonly sink: (bytes: Uint8Array) => Promise<void>) {}

  begin(): Promise<void> {
    return this.sink(encoder.encode(BACKUP_LINE));
  }

  /** Whole pet lines, each with its newline; hashed as they pass, so a stream has its check too. */
  write(bytes: Uint8Array): Promise<void> {
    this.#sha256.update(bytes);
    return this.sink(bytes);
  }

  /** Only once the copy is complete: a backup that fails half-way is refused as cut short. */
  end(pets: number): Promise<void> {
    return this.sink(encoder.encode(checkLine(pets, this.#sha256.digest("hex"))));
  }
}

/** The claim object in a fixed key order, so a line has exactly one correct text. */
function claimJson({ scope, key, digest }: IdempotencyClaim): string {
  return JSON.stringify({ scope, key, digest });
}

// ---- Reading ----

const HEAD = encoder.encode(`${PET_RECORD_PREFIX}{"id":`);
const NAME_KEY = encoder.encode(`,"name":`);
const CATEGORY_KEY = encoder.encode(`,"categoryId":`);
const STATUS_KEY = encoder.encode(`,"status":"`);
const STATUS_MEMBER = STATUS_KEY.subarray(0, -1);
const CLAIM_KEY = encoder.encode(CLAIM_FIELD);
const STATUS_TAILS = PET_STATUSES.map((status) => encoder.encode(`${status}"}`));
const INT64_MAX_DIGITS = encoder.encode("9223372036854775807");
const INT64_MIN_DIGITS = encoder.encode("9223372036854775808");
const BACKUP_BYTES = encoder.encode(BACKUP_LINE.trimEnd());
const CHECK_HEAD = encoder.encode(`{"type":"check","v":${RECORD_VERSION},"pets":`);
const CHECK_DIGEST_KEY = encoder.encode(`,"sha256":"`);
const SHA256_HEX_LENGTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

type LineType = "pet" | "backup" | "check";

/** The fields of the last line `parse` accepted: one object, reused for every line of a file. */
export class PetLine {
  type: LineType = "pet";
  id = 0;
  status: PetStatus | undefined = undefined;
  /** Byte ranges: the pet object (response text), the name (with quotes), the categoryId digits. */
  petStart = 0;
  petEnd = 0;
  nameStart = 0;
  nameEnd = 0;
  categoryStart = 0;
  categoryEnd = 0;
  claim: IdempotencyClaim | undefined = undefined;
  /** Of a check line: the pet lines it counts, and the SHA-256 (lower-case hex) of their bytes. */
  checkPets = 0;
  checkSha256 = "";

  /** Reads bytes[start, end) (no newline): undefined in the exact written form, else why not. */
  parse(bytes: Uint8Array, start: number, end: number): string | undefined {
    const flaw = this.#scan(bytes, start, end);
    // A damaged line is decoded: a broken rule is named only in a line that is JSON at all.
    const text = () => decoder.decode(bytes.subarray(start, end));
    if (flaw === undefined) {
      this.type = "pet";
      return undefined;
    }
    if (flaw !== OFF_FORM) {
      return flaw === NOT_JSON || parseJson(text()) !== INVALID ? flaw : NOT_JSON;
    }
    if (end - start === BACKUP_BYTES.length && matches(bytes, start, end, BACKUP_BYTES)) {
      this.type = "backup";
      return undefined;
    }
    if (this.#scanCheck(bytes, start, end)) {
      this.type = "check";
      return undefined;
    }
    return describeForm(text());
  }

  /** The pet's fields as the store was asked to keep them (for `import`). */
  pet(bytes: Uint8Array): NewPet {
    const name = this.#name(bytes);
    const categoryId = BigInt(decoder.decode(bytes.subarray(this.categoryStart, this.categoryEnd)));
    return { name, categoryId, ...(this.status && { status: this.status }) };
  }

  /** The scan found it a well-formed JSON string. */
  #name(bytes: Uint8Array): string {
    return JSON.parse(decoder.decode(bytes.subarray(this.nameStart, this.nameEnd)));
  }

  /** True when the bytes are a check line in its exact form; fills checkPets and checkSha256. */
  #scanCheck(bytes: Uint8Array, start: number, end: number): boolean {
    if (!matches(bytes, start, end, CHECK_HEAD)) return false;
    let p = start + CHECK_HEAD.length;
    const digitsStart = p;
    let pets = 0;
    while (p < end && bytes[p] >= ZERO && bytes[p] <= NINE) pets = pets * 10 + (bytes[p++] - ZERO);
    if (p === digitsStart || (bytes[digitsStart] === ZERO && p > digitsStart + 1)) return false;
    if (pets > Number.MAX_SAFE_INTEGER || !matches(bytes, p, end, CHECK_DIGEST_KEY)) return false;
    p += CHECK_DIGEST_KEY.length;
    if (end - p !== SHA256_HEX_LENGTH + 2 || bytes[end - 2] !== QUOTE) return false;
    if (bytes[end - 1] !== CLOSE_BRACE) return false;
    const digest = decoder.decode(bytes.subarray(p, p + SHA256_HEX_LENGTH));
    if (!/^[0-9a-f]{64}$/.test(digest)) return false;
    this.checkPets = pets;
    this.checkSha256 = digest;
    return true;
  }

  /** Undefined, the first rule it breaks, or OFF_FORM where a byte is not the form's. */
  #scan(bytes: Uint8Array, start: number, end: number): string | undefined {
    if (!matches(bytes, start, end, HEAD)) return OFF_FORM;
    let p = start + HEAD.length;

    // id: a positive safe integer without leading zeros.
    if (isWhiteSpace(bytes[p])) return OFF_FORM;
    const idStart = p;
    let id = 0;
    while (p < end && bytes[p] >= ZERO && bytes[p] <= NINE) id = id * 10 + (bytes[p++] - ZERO);
    if (p === idStart || bytes[idStart] === ZERO || id > Number.MAX_SAFE_INTEGER) return BAD_ID;
    if (!matches(bytes, p, end, NAME_KEY)) return isNumberPart(bytes[p]) ? BAD_ID : OFF_FORM;

    // name: a JSON string, with no raw control byte and only escapes JSON allows, then the API's
    // own rules (`nameFlaw`): the text served from these bytes is always a valid Pet.
    if (bytes[p + NAME_KEY.length] !== QUOTE) {
      return isWhiteSpace(bytes[p + NAME_KEY.length]) ? OFF_FORM : NOT_STRING;
    }
    this.nameStart = p + NAME_KEY.length;
    p = this.nameStart + 1;
    while (p < end && bytes[p] !== QUOTE) {
      const length = bytes[p] === BACKSLASH ? escapeLength(bytes, p, end) : 1;
      if (bytes[p] < 0x20 || length === 0) return NOT_JSON;
      p += length;
    }
    if (p >= end) return NOT_JSON;
    this.nameEnd = ++p;
    if (!isPlainAsciiName(bytes, this.nameStart + 1, this.nameEnd - 1)) {
      const flaw = nameFlaw(this.#name(bytes));
      if (flaw !== undefined) return `has a pet name that ${flaw}`;
    }

    // categoryId: a plain int64 literal (no leading zero, no "-0", no fraction or exponent).
    if (!matches(bytes, p, end, CATEGORY_KEY)) return OFF_FORM;
    p += CATEGORY_KEY.length;
    if (isWhiteSpace(bytes[p])) return OFF_FORM;
    this.categoryStart = p;
    const negative = bytes[p] === MINUS;
    if (negative) p++;
    const digitsStart = p;
    while (p < end && bytes[p] >= ZERO && bytes[p] <= NINE) p++;
    const digits = p - digitsStart;
    if (digits === 0 || isNumberPart(bytes[p])) return NOT_INTEGER;
    if (bytes[digitsStart] === ZERO && (digits > 1 || negative)) return NOT_INTEGER;
    const limit = negative ? INT64_MIN_DIGITS : INT64_MAX_DIGITS;
    if (digits > 19 || (digits === 19 && !notAbove(bytes, digitsStart, limit))) {
      return "has a categoryId outside int64";
    }
    this.categoryEnd = p;

    // status: absent, or one of the values; then the pet object closes.
    let status: PetStatus | undefined;
    if (matches(bytes, p, end, STATUS_KEY)) {
      p += STATUS_KEY.length;
      for (let i = 0; i < STATUS_TAILS.length && status === undefined; i++) {
        if (matches(bytes, p, end, STATUS_TAILS[i])) status = PET_STATUSES[i];
      }
      if (status === undefined) return "has an unknown pet status";
      p += status.length + 2;
    } else if (matches(bytes, p, end, STATUS_MEMBER)) {
      return isWhiteSpace(bytes[p + STATUS_MEMBER.length]) ? OFF_FORM : "has an unknown pet status";
    } else if (bytes[p++] !== CLOSE_BRACE) {
      return OFF_FORM;
    }
    this.petStart = start + PREFIX_BYTES.length;
    this.petEnd = p;

    // the record closes, or an idempotency claim follows (few lines have one: JSON.parse it).
    let claim: IdempotencyClaim | undefined;
    if (p + 1 !== end || bytes[p] !== CLOSE_BRACE) {
      if (!matches(bytes, p, end, CLAIM_KEY) || bytes[end - 1] !== CLOSE_BRACE) return OFF_FORM;
      const text = decoder.decode(bytes.subarray(p + CLAIM_KEY.length, end - 1));
      const parsed = parseJson(text);
      if (parsed === INVALID) return NOT_JSON;
      claim = parseClaim(parsed);
      if (claim === undefined) return BAD_CLAIM;
      if (claimJson(claim) !== text) return OFF_FORM;
    }

    this.id = id;
    this.status = status;
    this.claim = claim;
    return undefined;
  }
}

/** `#scan`'s answer for a byte the written form does not have there: `describeForm` says how. */
const OFF_FORM = "off form";
const NOT_EXACT = "is not in the exact form this service writes";
const NOT_JSON = "is not valid JSON";
const BAD_ID = "has a pet id that is not a positive safe integer";
const NOT_STRING = "has a pet name that is not a string";
const NOT_INTEGER = "has a categoryId that is not an integer";
const BAD_CLAIM = `has an "idempotency" member that is not {scope, key, digest}`;
const RECORD_FIELDS = ["type", "v", "pet", "idempotency"];
const PET_FIELDS = ["id", "name", "categoryId", "status"];
/** The pet's members a record must have, and the reason when one is missing. */
const REQUIRED = { id: BAD_ID, name: NOT_STRING, categoryId: NOT_INTEGER };
const LINE_TYPES: readonly unknown[] = ["pet", "backup", "check"] satisfies LineType[];

function isWhiteSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

const INVALID = Symbol("not JSON");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return INVALID;
  }
}

/** Whether a number's text goes on with this byte: a fraction, an exponent or more digits. */
function isNumberPart(byte: number): boolean {
  return byte === 0x2e || byte === 0x65 || byte === 0x45 || (byte >= ZERO && byte <= NINE);
}

/**
 * How a line leaves the written form: not JSON, a record kind or version unknown here, an unknown
 * or missing field; else another spelling of a record (keys in another order, spaces).
 */
function describeForm(line: string): string {
  const value = parseJson(line);
  if (value === INVALID) return NOT_JSON;
  if (!isPlainObject(value)) return "is not a JSON object";
  if (typeof value.type !== "string") return `has no record "type"`;
  if (!LINE_TYPES.includes(value.type)) {
    const type = JSON.stringify(value.type);
    return `has record type ${type}, which this version does not know (written by a newer version?)`;
  }
  if (value.v !== RECORD_VERSION) {
    return typeof value.v === "number" && Number.isInteger(value.v) && value.v > RECORD_VERSION
      ? `has format version ${value.v}; this version reads only version ${RECORD_VERSION}`
      : `has an invalid format version ${JSON.stringify(value.v)}`;
  }
  if (value.type !== "pet") {
    const which = value.type === "backup" ? "first" : "check";
    return `is a backup's ${which} line, but not in the exact form this service writes`;
  }
  const field = Object.keys(value).find((field) => !RECORD_FIELDS.includes(field));
  if (field !== undefined) return `has an unknown field ${JSON.stringify(field)}`;
  const pet = value.pet;
  if (!isPlainObject(pet)) return `has no "pet" object`;
  const petField = Object.keys(pet).find((field) => !PET_FIELDS.includes(field));
  if (petField !== undefined) return `has a pet with an unknown field ${JSON.stringify(petField)}`;
  return Object.entries(REQUIRED).find(([field]) => !(field in pet))?.[1] ?? NOT_EXACT;
}

/** The `idempotency` member's claim, or undefined when it is not {scope, key, digest}. */
function parseClaim(value: unknown): IdempotencyClaim | undefined {
  if (!isPlainObject(value) || Object.keys(value).length !== 3) return undefined;
  const { scope, key, digest } = value;
  const strings = typeof scope === "string" && typeof key === "string" &&
    typeof digest === "string";
  return strings ? { scope, key, digest } : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const SIMPLE_ESCAPES = new Set([...'"\\/bfnrt'].map((char) => char.charCodeAt(0)));
const HEX = /^[0-9a-fA-F]{4}$/;

/** Length of the JSON escape at `at` (a backslash), or 0 when it is not a valid one. */
function escapeLength(bytes: Uint8Array, at: number, end: number): number {
  const next = bytes[at + 1];
  if (SIMPLE_ESCAPES.has(next)) return 2;
  if (next !== 0x75 /* u */ || at + 6 > end) return 0;
  return HEX.test(String.fromCharCode(...bytes.subarray(at + 2, at + 6))) ? 6 : 0;
}

function matches(bytes: Uint8Array, at: number, end: number, expected: Uint8Array): boolean {
  if (at + expected.length > end) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** Same-length digit strings compare as numbers do. */
function notAbove(bytes: Uint8Array, at: number, limit: Uint8Array): boolean {
  for (let i = 0; i < limit.length; i++) {
    if (bytes[at + i] !== limit[i]) return bytes[at + i] < limit[i];
  }
  return true;
}
