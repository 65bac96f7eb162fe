/**
 * The Error responses of docs/api.md's table, as OpenAPI responses: one per status an operation can
 * return, each with an example per error code so a reader sees exactly what a client switches on.
 */
import { SUNSET_VALUE } from "../http/deprecation.ts";
import type { ErrorCode } from "../schemas/error.ts";
import type { ExactJsonValue } from "./exact_json.ts";
import { headerRef } from "./components.ts";

type Json = { [key: string]: ExactJsonValue };

interface ErrorRow {
  readonly description: string;
  /** Example message per code that this status carries. */
  readonly codes: Partial<Record<ErrorCode, string>>;
  readonly headers?: readonly [name: string, component: string][];
}

const RETRY_AFTER: [string, string] = ["Retry-After", "RetryAfter"];

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
    headers: [["WWW-Authenticate", "WwwAuthenticate"]],
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
    headers: [RETRY_AFTER],
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
    headers: [RETRY_AFTER],
  },
  500: {
    description: "An unexpected error; the request id finds it in the log",
    codes: { internal_error: "Internal error; the request id identifies it in the logs" },
  },
  503: {
    description:
      "The store is loading, the service is shutting down, or the disk refused the write (nothing was saved)",
    codes: { unavailable: "The store is still loading" },
    headers: [RETRY_AFTER],
  },
};

/**
 * The error responses for `statuses`; `only400` narrows the 400 examples to the codes this
 * operation can produce. `extraHeaders` (X-Request-Id among them) are on every response of the operation.
 */
export function errorResponses(
  statuses: readonly number[],
  options: { only400: readonly ErrorCode[]; extraHeaders: Json },
): Record<string, Json> {
  const responses: Record<string, Json> = {};
  for (const status of statuses) {
    const row = ERROR_ROWS[status];
    if (row === undefined) throw new Error(`No error row for status ${status}`);
    const examples: Json = {};
    for (const [code, message] of Object.entries(row.codes)) {
      if (status === 400 && !options.only400.includes(code as ErrorCode)) continue;
      examples[code] = {
        summary: code,
        value: { code, message, status, requestId: "req-4f9c1b" },
      };
    }
    const headers: Json = { ...options.extraHeaders };
    for (const [name, component] of row.headers ?? []) headers[name] = headerRef(component);
    responses[String(status)] = {
      description: row.description,
      headers,
      content: {
        "application/json": { schema: { $ref: "#/components/schemas/Error" }, examples },
      },
    };
  }
  return responses;
}
