/** The contract's Error body and its stable codes, for the HTTP layer and the OpenAPI document. */
import { type Static, Type } from "typebox";

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

export type ErrorCode = ErrorBody["code"];

/** One offending field of a validation failure; `path` is a JSON Pointer such as `/name`. */
export type ErrorDetail = Readonly<NonNullable<ErrorBody["details"]>[number]>;

/** The Error body's messages: the code throws them and the OpenAPI examples show them. */
export const ERROR_MESSAGES = {
  notJsonObject: "Cannot use body: it must be a JSON object (a NewPet)",
  invalidNewPet: (problems: string) => `Invalid NewPet: ${problems}`,
  badLimit: (max: number, got: string) => `limit must be an integer from 1 to ${max}, got ${got}`,
  badPetId: (max: bigint, got: string) => `petId must be an integer from 1 to ${max}, got ${got}`,
  missingKey: "Missing API key: send Authorization: Bearer <key>",
  noPet: (id: string) => `No pet with id ${id}`,
  keyInFlight: "A request with this Idempotency-Key is still being processed; retry later",
  removed: (sunset: string, successor: string) =>
    `This endpoint was removed on ${sunset}; use GET ${successor}`,
  bodyTooLarge: (limit: number) => `Request body is larger than ${limit} bytes`,
  notJson: "Content-Type must be application/json",
  keyReused: "Idempotency-Key was already used with a different body",
  rateLimited: (perMinute: number, retrySeconds: number) =>
    `Rate limit of ${perMinute} requests per minute exceeded; retry in ${retrySeconds} s`,
  internal: "Internal error; the request id identifies it in the logs",
  loading: "The store is still loading",
  shuttingDown: "The service is shutting down",
} as const;
