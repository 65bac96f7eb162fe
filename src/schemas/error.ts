/**
 * The contract's Error body and its vocabulary: the stable codes and the shape of a validation
 * detail. Plain definitions, so the HTTP layer (`http/errors.ts`), the validators and the OpenAPI
 * document all take them from here.
 */
import { type Static, Type } from "typebox";

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

/** The contract's error body. */
export const ErrorBody = Type.Object({
  code: Type.Enum(ERROR_CODES, {
    description:
      "Machine-readable error code, lower snake case and stable: switch on it. New codes may be added in a later minor version, so treat an unknown code by its `status`",
  }),
  message: Type.String({ description: "Human-readable description" }),
  status: Type.Integer({
    description: "The HTTP status code of the response",
    minimum: 400,
    maximum: 599,
  }),
  details: Type.Optional(Type.Array(Type.Object({
    path: Type.String({
      format: "json-pointer",
      description: "JSON Pointer (RFC 6901) of the offending field, such as `/name`",
    }),
    message: Type.String(),
  }))),
  requestId: Type.Optional(Type.String()),
});
export type ErrorBody = Static<typeof ErrorBody>;
