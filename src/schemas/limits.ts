/** The request parameters' limits and patterns, for the parsers and the OpenAPI document. */
import { INT64_MAX } from "./pet.ts";

/** MAX_BODY_BYTES's default. */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

/** `limit` of `GET /pets`: 1 to MAX_LIMIT, written with no sign, leading zero or fraction. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
export const LIMIT_PATTERN = /^[1-9][0-9]{0,2}$/;
/** `petId`: an int64 from 1 (its range is checked against `PET_ID_MAX`). */
export const PET_ID_MAX = INT64_MAX;
export const PET_ID_PATTERN = /^[1-9][0-9]{0,18}$/;
/** A valid `Idempotency-Key`: 1–255 visible ASCII characters (also the OpenAPI pattern). */
export const IDEMPOTENCY_KEY_LENGTH = { minLength: 1, maxLength: 255 } as const;
export const IDEMPOTENCY_KEY = new RegExp(
  `^[\\x21-\\x7e]{${IDEMPOTENCY_KEY_LENGTH.minLength},${IDEMPOTENCY_KEY_LENGTH.maxLength}}$`,
);
/** The longest `cursor` accepted; a real one is far shorter. */
export const CURSOR_MAX_LENGTH = 200;
/** A client's `X-Request-Id` that is echoed back (also the OpenAPI pattern). */
export const REQUEST_ID = /^[A-Za-z0-9._:=-]{1,200}$/;
