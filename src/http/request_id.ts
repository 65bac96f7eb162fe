/** Request ids: a client's `X-Request-Id` is echoed when it is safe to, otherwise one is made. */
import { REQUEST_ID } from "../schemas/limits.ts";

/**
 * Made ids have the shape of a version-4 UUID: the random first four groups of one UUID drawn per
 * process, then a 48-bit counter, so no random draw per request. An id names a request, no secret.
 */
const PREFIX = crypto.randomUUID().slice(0, 23);

let counter = 0;

/** A new request id, unique within and across processes. */
export function newRequestId(): string {
  // 2^48 ids before the counter wraps: at a million requests a second, nine years.
  counter = (counter + 1) % 2 ** 48;
  return `${PREFIX}-${counter.toString(16).padStart(12, "0")}`;
}

/** The id to use for a request, given its `X-Request-Id` header. */
export function requestIdFor(header: string | null): string {
  if (header !== null && REQUEST_ID.test(header)) return header;
  return newRequestId();
}
