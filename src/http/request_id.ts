/**
 * Request ids (a client's `X-Request-Id` is echoed when it is safe to, otherwise one is made) and
 * the W3C Trace Context id, for the log line.
 */
import { REQUEST_ID } from "../schemas/limits.ts";
import { HEX_BYTES } from "./digest64.ts";

/**
 * Made ids have a version-4 UUID's shape: one UUID's random first four groups per process, then
 * a 48-bit counter; cheaper than `crypto.randomUUID()` per request. An id is no secret.
 */
const PREFIX = crypto.randomUUID().slice(0, 23);

let counter = 0;

/** A new request id, unique within and across processes. */
export function newRequestId(): string {
  // 2^48 ids before the counter wraps: at a million requests a second, nine years.
  counter = (counter + 1) % 2 ** 48;
  return `${PREFIX}-${hex48(counter)}`;
}

/** 12 hex digits of a 48-bit value, by lookups rather than `toString(16)` and a pad. */
function hex48(value: number): string {
  const high = Math.floor(value / 2 ** 24);
  const low = value % 2 ** 24;
  return HEX_BYTES[high >>> 16] + HEX_BYTES[(high >>> 8) & 0xff] + HEX_BYTES[high & 0xff] +
    HEX_BYTES[low >>> 16] + HEX_BYTES[(low >>> 8) & 0xff] + HEX_BYTES[low & 0xff];
}

/** The id to use for a request, given its `X-Request-Id` header. */
export function requestIdFor(header: string | null): string {
  if (header !== null && REQUEST_ID.test(header)) return header;
  return newRequestId();
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_PARENT_ID = "0".repeat(16);

/** The trace id of a valid version-00 `traceparent` value; anything else is ignored. */
export function traceIdOf(traceparent: string | null): string | undefined {
  if (traceparent === null || traceparent.length !== 55) return undefined;
  const match = TRACEPARENT.exec(traceparent);
  const valid = match !== null && match[1] !== ZERO_TRACE_ID && match[2] !== ZERO_PARENT_ID;
  return valid ? match[1] : undefined;
}
