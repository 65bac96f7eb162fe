/**
 * The Error responses of docs/api.md's table, as OpenAPI responses: one per status an operation can
 * return, each with an example per error code so a reader sees exactly what a client switches on.
 */
import { SUNSET_VALUE } from "../http/deprecation.ts";
import type { ErrorCode } from "../schemas/error.ts";
import type { ExactJsonValue } from "./exact_json.ts";
import { headerRefs } from "./components.ts";

type Json = { [key: string]: ExactJsonValue | undefined };

const RETRY_AFTER = headerRefs({ "Retry-After": "RetryAfter" });

/** docs/api.md's error table: each status's description, and the headers it adds. */
const STATUSES: Record<number, [description: string, headers?: Json]> = {
  400: ["The request is not valid"],
  401: [
    "The API key is missing, malformed or not accepted",
    headerRefs({ "WWW-Authenticate": "WwwAuthenticate" }),
  ],
  404: ["No pet with this id"],
  409: ["A create with the same Idempotency-Key is still being written; retry later", RETRY_AFTER],
  410: ["The endpoint is past its sunset date and was removed"],
  413: ["The body is larger than MAX_BODY_BYTES (65536 by default)"],
  415: ["The body is not sent as application/json"],
  422: ["The Idempotency-Key was used before with a different body"],
  429: ["Over the rate limit of this API key (RATE_LIMIT)", RETRY_AFTER],
  500: ["An unexpected error; the request id finds it in the log"],
  503: [
    "The store is loading, the service is shutting down, or the disk refused the write (nothing was saved)",
    RETRY_AFTER,
  ],
};

/** Each code an operation can answer: its status and an example message. */
const CODES: Partial<Record<ErrorCode, [status: number, message: string]>> = {
  invalid_body: [400, "Cannot use body: it must be a JSON object (a NewPet)"],
  validation_failed: [400, "Invalid NewPet: name is required"],
  invalid_query: [400, 'limit must be an integer from 1 to 100, got "0"'],
  invalid_path: [400, 'petId must be an integer from 1 to 9223372036854775807, got "abc"'],
  unauthorized: [401, "Missing API key: send Authorization: Bearer <key>"],
  not_found: [404, "No pet with id 42"],
  idempotency_key_in_flight: [
    409,
    "A request with this Idempotency-Key is still being processed; retry later",
  ],
  gone: [410, `This endpoint was removed on ${SUNSET_VALUE}; use GET /v1/pets`],
  payload_too_large: [413, "Request body is larger than 65536 bytes"],
  unsupported_media_type: [415, "Content-Type must be application/json"],
  idempotency_key_reused: [422, "Idempotency-Key was already used with a different body"],
  rate_limited: [429, "Rate limit exceeded; retry after 1 s"],
  internal_error: [500, "Internal error; the request id identifies it in the logs"],
  unavailable: [503, "The store is still loading"],
};

/**
 * The Error responses of an operation that answers these `codes`: one per status, with an
 * example of each code; `headers` are those every response of the operation carries.
 */
export function errorResponses(codes: readonly ErrorCode[], headers: Json): Record<string, Json> {
  const unknown = codes.filter((code) => CODES[code] === undefined);
  if (unknown.length > 0) throw new Error(`No example for error codes ${unknown.join(", ")}`);
  // In the table's order, so a status lists its codes the same way whatever the caller's order.
  const examplesByStatus: Record<string, Json> = {};
  for (const [code, [status, message]] of Object.entries(CODES)) {
    if (!codes.includes(code as ErrorCode)) continue;
    const value = { code, message, status, requestId: "req-4f9c1b" };
    (examplesByStatus[status] ??= {})[code] = { summary: code, value };
  }
  return Object.fromEntries(
    Object.entries(examplesByStatus).map(([status, examples]) => {
      const [description, extra] = STATUSES[Number(status)];
      const schema = { $ref: "#/components/schemas/Error" };
      return [status, {
        description,
        headers: { ...headers, ...extra },
        content: { "application/json": { schema, examples } },
      }];
    }),
  );
}
