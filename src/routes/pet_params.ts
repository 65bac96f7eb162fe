/**
 * Strict parsing of the pet operations' query, path and header parameters. Patterns, not
 * coercion: `Number("")` is 0 and `parseInt("5abc")` is 5, and both would hide a client's bug.
 */
import { HttpError } from "../http/errors.ts";
import { decodeCursor } from "../http/pagination.ts";
import { INT64_MAX, PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

/** A validated `GET /pets` query. */
export interface ListQuery {
  readonly limit: number;
  /** Whether `limit` was given, so the next-page link repeats exactly what was asked. */
  readonly limitGiven: boolean;
  readonly status: PetStatus | undefined;
  readonly afterId: number;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
const LIMIT = /^[1-9][0-9]{0,2}$/;

function invalidQuery(message: string): HttpError {
  return new HttpError(400, "invalid_query", message);
}

function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidQuery(`Query parameter ${name} must be given at most once`);
  return values[0];
}

/** Parses `limit`, `status` and `cursor`; anything out of the contract is 400 `invalid_query`. */
export function parseListQuery(query: string): ListQuery {
  const params = new URLSearchParams(query);
  const rawLimit = single(params, "limit");
  const rawStatus = single(params, "status");
  const rawCursor = single(params, "cursor");

  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (!LIMIT.test(rawLimit) || limit > MAX_LIMIT) {
      throw invalidQuery(
        `limit must be an integer from 1 to ${MAX_LIMIT}, got ${
          JSON.stringify(rawLimit.slice(0, 50))
        }`,
      );
    }
  }
  let status: PetStatus | undefined;
  if (rawStatus !== undefined) {
    if (!(PET_STATUSES as readonly string[]).includes(rawStatus)) {
      throw invalidQuery(
        `status must be one of ${PET_STATUSES.join(", ")}, got ${
          JSON.stringify(rawStatus.slice(0, 50))
        }`,
      );
    }
    status = rawStatus as PetStatus;
  }
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

/** The query of the next page: the same `limit` and `status` as asked, plus the cursor. */
export function listQueryString(query: ListQuery, cursor: string): string {
  let text = "";
  if (query.limitGiven) text += `limit=${query.limit}&`;
  if (query.status !== undefined) text += `status=${query.status}&`;
  return `${text}cursor=${cursor}`;
}

const PET_ID = /^[1-9][0-9]{0,18}$/;

/**
 * Parses `petId`: an integer from 1 to 2^63−1, else 400 `invalid_path`. Returns undefined for a
 * valid int64 beyond 2^53−1: ids are assigned from 1 upwards, so no such pet exists (404).
 */
export function parsePetId(raw: string): number | undefined {
  if (!PET_ID.test(raw) || BigInt(raw) > INT64_MAX) {
    throw new HttpError(
      400,
      "invalid_path",
      `petId must be an integer from 1 to ${INT64_MAX}, got ${JSON.stringify(raw.slice(0, 50))}`,
    );
  }
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** A valid `Idempotency-Key`: 1–255 visible ASCII characters (also the OpenAPI pattern). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The `Idempotency-Key` header: 1–255 visible ASCII characters, else 400 naming the header. */
export function parseIdempotencyKey(header: string | null): string | undefined {
  if (header === null) return undefined;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw new HttpError(
      400,
      "validation_failed",
      "Idempotency-Key header must be 1 to 255 visible ASCII characters",
    );
  }
  return header;
}
