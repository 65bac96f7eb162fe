/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/): reads the trace id of a request's
 * `traceparent` header, so the request's log line joins the caller's trace.
 *
 * Only version 00 is read, in its exact form: `00-<32 hex trace id>-<16 hex parent id>-<2 hex
 * flags>`, lower-case hex as the recommendation requires, neither id all zeros. Anything else is
 * ignored (the recommendation says to drop an invalid header, not to fail the request).
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE_ID = "0".repeat(32);
const ZERO_PARENT_ID = "0".repeat(16);

/** The trace id of a valid version-00 `traceparent` value, or undefined. */
export function traceIdOf(traceparent: string | null): string | undefined {
  if (traceparent === null || traceparent.length !== 55) return undefined;
  const match = TRACEPARENT.exec(traceparent);
  const valid = match !== null && match[1] !== ZERO_TRACE_ID && match[2] !== ZERO_PARENT_ID;
  return valid ? match[1] : undefined;
}
