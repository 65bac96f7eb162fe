/** The contract's Error body and its stable codes, for the HTTP layer and the OpenAPI document. */
import { type Static, Type } from "typebox";

/** The contract's error body. */
export const ErrorBody = Type.Object({
  code: Type.Enum([
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
  ], {
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

/** Every stable error code, lower snake case: clients switch on them. */
export type ErrorCode = ErrorBody["code"];

/** One offending field of a validation failure; `path` is a JSON Pointer such as `/name`. */
export type ErrorDetail = Readonly<NonNullable<ErrorBody["details"]>[number]>;
