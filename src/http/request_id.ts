/** Request ids: a client's `X-Request-Id` is echoed when it is safe to, otherwise one is made. */
import { REQUEST_ID } from "../schemas/limits.ts";

/**
 * Made ids have the shape of a version-4 UUID: 72 random bits drawn once per process, then a
 * 48-bit counter. Unique within a process by the counter and across processes by the random
 * part, and several times cheaper than `crypto.randomUUID()`, which showed in the profile of
 * every request. A request id names a request; it is no secret.
 */
const PREFIX = (() => {
  const hex = Array.from(
    crypto.getRandomValues(new Uint8Array(10)),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
  const variant = "89ab"[parseInt(hex[15], 16) & 3];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-${variant}${
    hex.slice(16, 19)
  }`;
})();

/** 12 hex digits of the counter's low bits: the last group of the UUID shape. */
const COUNTER_DIGITS = 12;
const ZEROS = "0".repeat(COUNTER_DIGITS);
let counter = 0;

/** A new request id, unique within and across processes. */
export function newRequestId(): string {
  // 2^48 ids before the counter wraps: at a million requests a second, nine years.
  counter = (counter + 1) % 2 ** 48;
  const digits = counter.toString(16);
  return `${PREFIX}-${ZEROS.slice(digits.length)}${digits}`;
}

/** The id to use for a request, given its `X-Request-Id` header. */
export function requestIdFor(header: string | null): string {
  if (header !== null && REQUEST_ID.test(header)) return header;
  return newRequestId();
}
