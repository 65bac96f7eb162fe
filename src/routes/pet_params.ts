/** Parameters by patterns, not coercion: `Number("")` is 0, `parseInt("5abc")` 5: a hidden bug. */
import { HttpError } from "../http/errors.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";
import { decodeCursor, type PageRequest } from "../http/pagination.ts";
import {
  DEFAULT_LIMIT,
  IDEMPOTENCY_KEY,
  LIMIT_PATTERN,
  MAX_LIMIT,
  PET_ID_MAX,
  PET_ID_PATTERN,
} from "../schemas/limits.ts";
import { isPetStatus, PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

function invalidQuery(message: string): HttpError {
  return new HttpError(400, "invalid_query", message);
}

function quote(raw: string): string {
  return JSON.stringify(raw.slice(0, 50));
}

const LIST_PARAMS = ["limit", "status", "cursor"] as const;
type ListParam = typeof LIST_PARAMS[number];

/**
 * The raw `limit`, `status` and `cursor` (others ignored); 400 when one is given twice. Split by
 * hand when nothing needs decoding (no `%`, `+`): most list requests build no URLSearchParams.
 */
function listParams(query: string): Partial<Record<ListParam, string>> {
  const values: Partial<Record<ListParam, string>> = {};
  let twice: Set<ListParam> | undefined;
  const take = (name: string, value: string) => {
    if (name !== "limit" && name !== "status" && name !== "cursor") return;
    if (values[name] === undefined) values[name] = value;
    else (twice ??= new Set()).add(name);
  };
  if (query.includes("%") || query.includes("+")) {
    for (const [name, value] of new URLSearchParams(query)) take(name, value);
  } else {
    for (const part of query.split("&")) {
      if (part === "") continue;
      const equals = part.indexOf("=");
      if (equals === -1) take(part, "");
      else take(part.slice(0, equals), part.slice(equals + 1));
    }
  }
  if (twice !== undefined) {
    const name = LIST_PARAMS.find((candidate) => twice!.has(candidate));
    throw invalidQuery(`Query parameter ${name} must be given at most once`);
  }
  return values;
}

/** Parses `limit`, `status` and `cursor`; anything out of the contract is 400 `invalid_query`. */
export function parseListQuery(query: string): PageRequest {
  const { limit: rawLimit, status: rawStatus, cursor: rawCursor } = listParams(query);

  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (!LIMIT_PATTERN.test(rawLimit) || limit > MAX_LIMIT) {
      throw invalidQuery(ERROR_MESSAGES.badLimit(MAX_LIMIT, quote(rawLimit)));
    }
  }
  if (rawStatus !== undefined && !isPetStatus(rawStatus)) {
    throw invalidQuery(`status must be one of ${PET_STATUSES.join(", ")}, got ${quote(rawStatus)}`);
  }
  const status = rawStatus as PetStatus | undefined;
  let afterId = 0;
  if (rawCursor !== undefined) {
    const position = decodeCursor(rawCursor);
    if (position === undefined) {
      throw invalidQuery("cursor is not valid: use the Link header of the previous page");
    }
    if (position.status !== status) {
      throw invalidQuery(
        "cursor belongs to a different status filter: keep status as it was on the first page",
      );
    }
    afterId = position.afterId;
  }
  return { limit, limitGiven: rawLimit !== undefined, status, afterId };
}

/** `petId` from 1 to 2^63−1, else 400; undefined beyond 2^53−1, where no pet exists (a 404). */
export function parsePetId(raw: string): number | undefined {
  // Below 16 digits an id is a safe integer: no BigInt needed.
  if (raw.length < 16 && PET_ID_PATTERN.test(raw)) return Number(raw);
  if (!PET_ID_PATTERN.test(raw) || BigInt(raw) > PET_ID_MAX) {
    const message = ERROR_MESSAGES.badPetId(PET_ID_MAX, quote(raw));
    throw new HttpError(400, "invalid_path", message);
  }
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The `Idempotency-Key` header: 1–255 visible ASCII characters, else 400 naming the header. */
export function parseIdempotencyKey(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    const message = "Idempotency-Key header must be 1 to 255 visible ASCII characters";
    throw new HttpError(400, "validation_failed", message);
  }
  return header;
}
