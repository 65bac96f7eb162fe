/**
 * The Error responses of docs/api.md's table, as OpenAPI responses: one per status an operation can
 * return, each with an example per error code so a reader sees exactly what a client switches on.
 */
import { SUNSET_VALUE } from "../http/deprecation.ts";
import type { ErrorCode } from "../schemas/error.ts";
import type { ExactJsonValue } from "./exact_json.ts";
import { headerRef } from "./components.ts";

type Json = { [key: string]: ExactJsonValue | undefined };

interface ErrorRow {
  readonly description: string;
  /** Example message per code that this status carries. */
  readonly codes: Partial<Record<ErrorCode, string>>;
  readonly headers?: Json;
}

const RETRY_AFTER = { "Retry-After": headerRef("RetryAfter") };

/** docs/api.md's error table, by status. */
const ERROR_ROWS: Record<number, ErrorRow> = {
  400: {
    description: "The request is not valid",
    codes: {
      invalid_body: "Cannot use body: it must be a JSON object (a NewPet)",
      validation_failed: "Invalid NewPet: name is required",
      invalid_query: 'limit must be an integer from 1 to 100, got "0"',
      invalid_path: 'petId must be an integer from 1 to 9223372036854775807, got "abc"',
    },
  },
  401: {
    description: "The API key is missing, malformed or not accepted",
    codes: { unauthorized: "Missing API key: send Authorization: Bearer <key>" },
    headers: { "WWW-Authenticate": headerRef("WwwAuthenticate") },
  },
  404: {
    description: "No pet with this id",
    codes: { not_found: "No pet with id 42" },
  },
  409: {
    description: "A create with the same Idempotency-Key is still being written; retry later",
    codes: {
      idempotency_key_in_flight:
        "A request with this Idempotency-Key is still being processed; retry later",
    },
    headers: RETRY_AFTER,
  },
  410: {
    description: "The endpoint is past its sunset date and was removed",
    codes: { gone: `This endpoint was removed on ${SUNSET_VALUE}; use GET /v1/pets` },
  },
  413: {
    description: "The body is larger than MAX_BODY_BYTES (65536 by default)",
    codes: { payload_too_large: "Request body is larger than 65536 bytes" },
  },
  415: {
    description: "The body is not sent as application/json",
    codes: { unsupported_media_type: "Content-Type must be application/json" },
  },
  422: {
    description: "The Idempotency-Key was used before with a different body",
    codes: { idempotency_key_reused: "Idempotency-Key was already used with a different body" },
  },
  429: {
    description: "Over the rate limit of this API key (RATE_LIMIT)",
    codes: { rate_limited: "Rate limit exceeded; retry after 1 s" },
    headers: RETRY_AFTER,
  },
  500: {
    description: "An unexpected error; the request id finds it in the log",
    codes: { internal_error: "Internal error; the request id identifies it in the logs" },
  },
  503: {
    description:
      "The store is loading, the service is shutting down, or the disk refused the write (nothing was saved)",
    codes: { unavailable: "The store is still loading" },
    headers: RETRY_AFTER,
  },
};

/**
 * The Error responses of an operation that answers these `codes`: one per status, with an
 * example of each code; `headers` are those every response of the operation carries.
 */
export function errorResponses(codes: readonly ErrorCode[], headers: Json): Record<string, Json> {
  const responses: Record<string, Json> = {};
  let described = 0;
  for (const [status, row] of Object.entries(ERROR_ROWS)) {
    const examples: Json = {};
    for (const [code, message] of Object.entries(row.codes)) {
      if (!codes.includes(code as ErrorCode)) continue;
      const value = { code, message, status: Number(status), requestId: "req-4f9c1b" };
      examples[code] = { summary: code, value };
      described++;
    }
    if (Object.keys(examples).length === 0) continue;
    responses[status] = {
      description: row.description,
      headers: { ...headers, ...row.headers },
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/Error" }, examples },
      },
    };
  }
  if (described !== new Set(codes).size) throw new Error(`No error row for one of ${codes}`);
  return responses;
}
