/**
 * The contract's errors as values: one `HttpError` type with a stable code, and the one place
 * (`errorReply`) that turns it into the Error body `{code, message, status}`.
 */
import { jsonReply, type Reply } from "./responses.ts";

/**
 * Every stable error code, lower snake case: clients switch on them. One list for the handler
 * and the OpenAPI document's `Error.code` enum.
 */
export const ERROR_CODES = [
  "invalid_body",
  "validation_failed",
  "invalid_query",
  "invalid_path",
  "unauthorized",
  "not_found",
  "method_not_allowed",
  "idempotency_key_in_flight",
  "gone",
  "payload_too_large",
  "unsupported_media_type",
  "idempotency_key_reused",
  "rate_limited",
  "internal_error",
  "unavailable",
] as const;

/** One of `ERROR_CODES`. */
export type ErrorCode = typeof ERROR_CODES[number];

/** One offending field of a validation failure; `path` is a JSON Pointer such as `/name`. */
export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

/** An error a handler returns or throws; turned into a reply by `errorReply`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    options: { details?: readonly ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The Error body of the contract as a JSON reply. */
export function errorReply(error: HttpError, requestId: string): Reply {
  const body: Record<string, unknown> = {
    code: error.code,
    message: error.message,
    status: error.status,
  };
  if (error.details !== undefined) body.details = error.details;
  body.requestId = requestId;
  return jsonReply(JSON.stringify(body), error.status, { ...error.headers });
}
