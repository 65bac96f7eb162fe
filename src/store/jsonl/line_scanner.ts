/**
 * The fast replay path: checks one line's bytes against the exact form `record.ts` writes and
 * pulls out what the index needs (id, status, where the pet text is, the claim), without
 * JSON.parse and without building a string per line.
 *
 * What it checks: the fixed record prefix (type "pet", version 1), the id digits, the field
 * names and order, that the name is a JSON string with no raw control characters, the
 * categoryId as a plain int64 literal (no leading zero, no "-0", within range), the status
 * value, and that the line ends right after the record. A claim is parsed with JSON.parse (lines
 * with a claim are few) and must be in its exact written form.
 *
 * Together with the UTF-8 check of each chunk in replay.ts, every line served from these bytes
 * is valid JSON in the Pet shape. What it does not check is the name's length and character
 * rules: names are only ever written by this service after validation, and a flipped byte there
 * still reads back as a pet; `verify` (record.ts) checks them all.
 * Any line the scanner rejects is re-read by `parseRecordLine` to say why.
 */
import { isUtf8 } from "node:buffer";
import { PET_STATUSES, type PetStatus } from "../../schemas/pet.ts";
import type { IdempotencyClaim } from "../store.ts";
import { CLAIM_FIELD, claimJson, PET_RECORD_PREFIX } from "./record.ts";

/** Status codes in the index: 0 none, then the order of PET_STATUSES. */
export const NO_STATUS = 0;

/** Status value of a status code. */
export function statusOfCode(code: number): PetStatus | undefined {
  return code === NO_STATUS ? undefined : PET_STATUSES[code - 1];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const HEAD = encoder.encode(`${PET_RECORD_PREFIX}{"id":`);
const NAME_KEY = encoder.encode(`,"name":"`);
const CATEGORY_KEY = encoder.encode(`,"categoryId":`);
const STATUS_KEY = encoder.encode(`,"status":"`);
const CLAIM_KEY = encoder.encode(CLAIM_FIELD);
const STATUS_TAILS = [`available"}`, `pending"}`, `sold"}`].map((text) => encoder.encode(text));
const INT64_MAX_DIGITS = encoder.encode("9223372036854775807");
const INT64_MIN_DIGITS = encoder.encode("9223372036854775808");
const PET_OFFSET = encoder.encode(PET_RECORD_PREFIX).length;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** Reads pet lines; the fields describe the last line accepted by `scan`. */
export class LineScanner {
  id = 0;
  /** 0 none, 1 available, 2 pending, 3 sold. */
  status = NO_STATUS;
  /** Byte range of the pet object (the response text) within the scanned bytes. */
  petStart = 0;
  petEnd = 0;
  claim: IdempotencyClaim | undefined = undefined;

  /** True when bytes[start, end) (without the newline) is a pet line in the exact written form. */
  scan(bytes: Uint8Array, start: number, end: number): boolean {
    if (!matches(bytes, start, end, HEAD)) return false;
    let p = start + HEAD.length;

    // id: a positive safe integer without leading zeros.
    if (p >= end || bytes[p] <= ZERO || bytes[p] > NINE) return false;
    let id = 0;
    while (p < end && bytes[p] >= ZERO && bytes[p] <= NINE) id = id * 10 + (bytes[p++] - ZERO);
    if (id > Number.MAX_SAFE_INTEGER) return false;

    // name: a JSON string — no raw control byte, and every escape one JSON allows, so the text
    // served from these bytes is always valid JSON.
    if (!matches(bytes, p, end, NAME_KEY)) return false;
    p += NAME_KEY.length;
    while (p < end && bytes[p] !== QUOTE) {
      if (bytes[p] < 0x20) return false;
      if (bytes[p] === BACKSLASH) {
        const length = escapeLength(bytes, p, end);
        if (length === 0) return false;
        p += length;
      } else {
        p++;
      }
    }
    if (p >= end) return false;
    p++;

    // categoryId: a plain int64 literal.
    if (!matches(bytes, p, end, CATEGORY_KEY)) return false;
    p += CATEGORY_KEY.length;
    const negative = bytes[p] === MINUS;
    if (negative) p++;
    const digitsStart = p;
    while (p < end && bytes[p] >= ZERO && bytes[p] <= NINE) p++;
    const digits = p - digitsStart;
    if (digits === 0 || digits > 19) return false;
    if (bytes[digitsStart] === ZERO && (digits > 1 || negative)) return false;
    if (
      digits === 19 && !notAbove(bytes, digitsStart, negative ? INT64_MIN_DIGITS : INT64_MAX_DIGITS)
    ) {
      return false;
    }

    // status: absent, or one of the three values; then the pet object closes.
    let status = NO_STATUS;
    if (matches(bytes, p, end, STATUS_KEY)) {
      p += STATUS_KEY.length;
      for (let i = 0; i < STATUS_TAILS.length; i++) {
        if (matches(bytes, p, end, STATUS_TAILS[i])) {
          status = i + 1;
          p += STATUS_TAILS[i].length;
          break;
        }
      }
      if (status === NO_STATUS) return false;
    } else {
      if (bytes[p] !== CLOSE_BRACE) return false;
      p++;
    }
    const petEnd = p;

    // the record closes, or an idempotency claim follows.
    let claim: IdempotencyClaim | undefined;
    if (p + 1 === end && bytes[p] === CLOSE_BRACE) {
      claim = undefined;
    } else {
      if (!matches(bytes, p, end, CLAIM_KEY) || bytes[end - 1] !== CLOSE_BRACE) return false;
      claim = parseClaim(decoder.decode(bytes.subarray(p + CLAIM_KEY.length, end - 1)));
      if (claim === undefined) return false;
    }

    this.id = id;
    this.status = status;
    this.petStart = start + PET_OFFSET;
    this.petEnd = petEnd;
    this.claim = claim;
    return true;
  }
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
  for (let i = 0; i < expected.length; i++) {
    if (bytes[at + i] !== expected[i]) return false;
  }
  return true;
}

/** Same-length digit strings compare as numbers do. */
function notAbove(bytes: Uint8Array, at: number, limit: Uint8Array): boolean {
  for (let i = 0; i < limit.length; i++) {
    if (bytes[at + i] !== limit[i]) return bytes[at + i] < limit[i];
  }
  return true;
}

function parseClaim(text: string): IdempotencyClaim | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const { scope, key, digest } = value as Record<string, unknown>;
  if (typeof scope !== "string" || typeof key !== "string" || typeof digest !== "string") {
    return undefined;
  }
  const claim = { scope, key, digest };
  return claimJson(claim) === text ? claim : undefined;
}

/**
 * The 1-based number of the first line of `bytes[0, end)` that is not valid UTF-8 (1 when none
 * is found), to name it in a damage report after a whole chunk failed the check.
 */
export function firstLineNotUtf8(bytes: Uint8Array, end = bytes.length): number {
  let start = 0;
  for (let line = 1; start < end; line++) {
    const newline = bytes.indexOf(0x0a, start);
    if (!isUtf8(bytes.subarray(start, newline))) return line;
    start = newline + 1;
  }
  return 1;
}
