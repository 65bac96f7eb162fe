/**
 * The limits and patterns of the request parameters (query, path and header), defined once for
 * the parsers and the OpenAPI document; the fields' own rules sit beside their schema in `pet.ts`.
 */
import { INT64_MAX } from "./pet.ts";

/** The largest request body when MAX_BODY_BYTES does not say (the setting's default). */
export const DEFAULT_MAX_BODY_BYTES = 65_536;

/** `limit` of `GET /pets` when the query does not give one. */
export const DEFAULT_LIMIT = 20;
/** The largest `limit` of `GET /pets`; the smallest is 1. */
export const MAX_LIMIT = 100;
/** The digits a `limit` may be written with: no sign, no leading zero, no fraction. */
export const LIMIT_PATTERN = /^[1-9][0-9]{0,2}$/;
/** The largest `petId`: ids are int64, assigned from 1 upwards. */
export const PET_ID_MAX = INT64_MAX;
/** The digits a `petId` may be written with (its range is checked against `PET_ID_MAX`). */
export const PET_ID_PATTERN = /^[1-9][0-9]{0,18}$/;
/** How long an `Idempotency-Key` may be, in characters. */
export const IDEMPOTENCY_KEY_LENGTH = { min: 1, max: 255 } as const;
/** A valid `Idempotency-Key`: 1–255 visible ASCII characters (also the OpenAPI pattern). */
export const IDEMPOTENCY_KEY = new RegExp(
  `^[\\x21-\\x7e]{${IDEMPOTENCY_KEY_LENGTH.min},${IDEMPOTENCY_KEY_LENGTH.max}}$`,
);
/** The longest `cursor` accepted; a real one is far shorter. */
export const CURSOR_MAX_LENGTH = 200;
/** A client's `X-Request-Id` that is echoed back (also the OpenAPI pattern). */
export const REQUEST_ID = /^[A-Za-z0-9._:=-]{1,200}$/;
