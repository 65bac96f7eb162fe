/** W3C Trace Context: the trace id of an exact version-00 `traceparent`, for the log line. */

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
