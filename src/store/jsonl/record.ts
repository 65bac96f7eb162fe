/**
 * The record format of `pets.jsonl`: one self-describing JSON object per line, readable with jq.
 *
 *   {"type":"pet","v":1,"pet":<Pet>}
 *   {"type":"pet","v":1,"pet":<Pet>,"idempotency":{"scope":"…","key":"…","digest":"…"}}
 *
 * `type` and `v` let later record kinds (update, delete) and later versions join the file without a
 * migration; a reader that meets a type or version it does not know refuses to start rather than
 * skip data. `<Pet>` is exactly the text of `petJson`, so the in-memory response is a slice of the
 * line and `categoryId` keeps the digits it was sent with.
 *
 * This file holds the format's limits, the one line writer (`encodePetRecord`, used by the store's
 * writer and by every tool that writes a data file) and the full check of one line (used by
 * `verify` and to explain a line the fast replay path rejected).
 */
import {
  INT64_MAX,
  INT64_MIN,
  isAcceptableName,
  PET_STATUSES,
  type PetStatus,
} from "../../schemas/pet.ts";
import { petJson } from "../pet_json.ts";
import type { IdempotencyClaim } from "../store.ts";
import type { NewPet } from "../../schemas/pet.ts";

/** The format version this code writes and reads. */
export const RECORD_VERSION = 1;

/** No record comes near this; a longer line is damage. Pet texts must fit a Uint16 length. */
export const MAX_LINE_BYTES = 65_535;

/** Text before the pet object on every pet line. */
export const PET_RECORD_PREFIX = `{"type":"pet","v":${RECORD_VERSION},"pet":`;

/** Text between the pet object and the claim object on a line with an idempotency claim. */
export const CLAIM_FIELD = `,"idempotency":`;

/** The text after the pet object: the claim (if any), the closing brace and the newline. */
export function recordSuffix(claim: IdempotencyClaim | undefined): string {
  return claim === undefined ? "}\n" : `${CLAIM_FIELD}${claimJson(claim)}}\n`;
}

/** A pet's line as text, before encoding: the pet's own JSON and what follows it on the line. */
export interface PetRecord {
  readonly petJson: string;
  readonly suffix: string;
}

/** Where an encoded line lies in its buffer: its pet text is [petStart, petEnd), the line ends at `end`. */
interface EncodedRecord {
  readonly petStart: number;
  readonly petEnd: number;
  readonly end: number;
}

const encoder = new TextEncoder();
const PREFIX_BYTES = encoder.encode(PET_RECORD_PREFIX);

/** The parts of the line for a pet with this id. */
export function petRecord(id: number, pet: NewPet, claim: IdempotencyClaim | undefined): PetRecord {
  return { petJson: petJson(id, pet), suffix: recordSuffix(claim) };
}

/** An upper bound of the bytes `encodePetRecord` writes for this record (3 per UTF-16 unit). */
export function maxRecordBytes(record: PetRecord): number {
  return PREFIX_BYTES.length + 3 * (record.petJson.length + record.suffix.length);
}

/** Writes one full line (newline included) into `target` at `at`, which has room for it. */
export function encodePetRecord(record: PetRecord, target: Uint8Array, at: number): EncodedRecord {
  target.set(PREFIX_BYTES, at);
  const petStart = at + PREFIX_BYTES.length;
  const petEnd = petStart + encoder.encodeInto(record.petJson, target.subarray(petStart)).written;
  const end = petEnd + encoder.encodeInto(record.suffix, target.subarray(petEnd)).written;
  return { petStart, petEnd, end };
}

/** One full line for a pet as bytes, for tools and tests that lay out a data file. */
export function petRecordBytes(id: number, pet: NewPet, claim?: IdempotencyClaim): Uint8Array {
  const record = petRecord(id, pet, claim);
  const bytes = new Uint8Array(maxRecordBytes(record));
  return bytes.slice(0, encodePetRecord(record, bytes, 0).end);
}

/**
 * Whether a create's line stays under MAX_LINE_BYTES, which replay refuses, so the writer must
 * never write one. A bound on the encoded length (3 bytes per UTF-16 unit, 6 per escaped claim
 * character) is enough: a pet that passed the NewPet schema is far below it.
 */
export function fitsOneLine(pet: NewPet, claim: IdempotencyClaim | undefined): boolean {
  const claimUnits = claim === undefined
    ? 0
    : claim.scope.length + claim.key.length + claim.digest.length;
  return 3 * pet.name.length + 6 * claimUnits + 256 <= MAX_LINE_BYTES;
}

/** The claim object in a fixed key order, so a line has exactly one correct text. */
export function claimJson(claim: IdempotencyClaim): string {
  return `{"scope":${JSON.stringify(claim.scope)},"key":${JSON.stringify(claim.key)},"digest":${
    JSON.stringify(claim.digest)
  }}`;
}

/** A pet line that passed the full check. */
export interface ParsedPetRecord {
  readonly ok: true;
  readonly id: number;
  readonly status: PetStatus | undefined;
  /** The exact digits of `categoryId`, as on disk. */
  readonly categoryId: bigint;
  /** The pet's fields, as the store was asked to keep them. */
  readonly pet: NewPet;
  readonly petJson: string;
  readonly claim: IdempotencyClaim | undefined;
}

/** Why a line is not a valid record. */
export interface RecordProblem {
  readonly ok: false;
  readonly reason: string;
}

const CATEGORY_ID_DIGITS = /^-?(?:0|[1-9][0-9]*)/;

/** Full check of one line (without its newline): JSON, record type and version, shape, exact text. */
export function parseRecordLine(line: string): ParsedPetRecord | RecordProblem {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return problem("is not valid JSON");
  }
  if (!isPlainObject(value)) return problem("is not a JSON object");
  if (typeof value.type !== "string") return problem(`has no record "type"`);
  if (value.type !== "pet") {
    return problem(
      `has record type ${
        JSON.stringify(value.type)
      }, which this version does not know (written by a newer version?)`,
    );
  }
  if (value.v !== RECORD_VERSION) {
    return typeof value.v === "number" && Number.isInteger(value.v) && value.v > RECORD_VERSION
      ? problem(`has format version ${value.v}; this version reads only version ${RECORD_VERSION}`)
      : problem(`has an invalid format version ${JSON.stringify(value.v)}`);
  }
  for (const field of Object.keys(value)) {
    if (!["type", "v", "pet", "idempotency"].includes(field)) {
      return problem(`has an unknown field ${JSON.stringify(field)}`);
    }
  }
  const pet = value.pet;
  if (!isPlainObject(pet)) return problem(`has no "pet" object`);
  for (const field of Object.keys(pet)) {
    if (!["id", "name", "categoryId", "status"].includes(field)) {
      return problem(`has a pet with an unknown field ${JSON.stringify(field)}`);
    }
  }
  const { id, name, status } = pet;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 1) {
    return problem("has a pet id that is not a positive safe integer");
  }
  if (typeof name !== "string" || !isAcceptableName(name) || [...name].length > 200) {
    return problem("has a pet name that is not acceptable");
  }
  if (status !== undefined && !(PET_STATUSES as readonly unknown[]).includes(status)) {
    return problem("has an unknown pet status");
  }
  if (typeof pet.categoryId !== "number") return problem("has a categoryId that is not an integer");
  const claim = parseClaim(value.idempotency);
  if (typeof claim === "string") return problem(claim);

  // categoryId must be read from the text: JSON.parse rounds values beyond 2^53−1.
  const head = `${PET_RECORD_PREFIX}{"id":${id},"name":${JSON.stringify(name)},"categoryId":`;
  if (!line.startsWith(head)) return problem("is not in the exact form this service writes");
  const digits = CATEGORY_ID_DIGITS.exec(line.slice(head.length))?.[0];
  if (digits === undefined || digits === "-0") {
    return problem("has a categoryId that is not an integer");
  }
  const categoryId = BigInt(digits);
  if (categoryId < INT64_MIN || categoryId > INT64_MAX) {
    return problem("has a categoryId outside int64");
  }
  const newPet: NewPet = status === undefined
    ? { name, categoryId }
    : { name, categoryId, status: status as PetStatus };
  const text = petJson(id, newPet);
  if (line !== PET_RECORD_PREFIX + text + recordSuffix(claim).slice(0, -1)) {
    return problem("is not in the exact form this service writes");
  }
  return { ok: true, id, status: newPet.status, categoryId, pet: newPet, petJson: text, claim };
}

/** Reads the `idempotency` member: undefined when absent, a reason string when malformed. */
function parseClaim(value: unknown): IdempotencyClaim | undefined | string {
  if (value === undefined) return undefined;
  if (
    !isPlainObject(value) || Object.keys(value).length !== 3 || typeof value.scope !== "string" ||
    typeof value.key !== "string" || typeof value.digest !== "string"
  ) {
    return `has an "idempotency" member that is not {scope, key, digest}`;
  }
  return { scope: value.scope, key: value.key, digest: value.digest };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function problem(reason: string): RecordProblem {
  return { ok: false, reason };
}
