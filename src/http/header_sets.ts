/**
 * Response headers that are the same for every response of one kind, made once at start-up, and
 * the one function that builds a request's Response from such a set and the request's own headers.
 *
 * Measured (scripts/bench/response_headers.ts, then scripts/bench/revisions.sh): a prebuilt
 * `Headers` given to `new Response` and then `response.headers.set(...)` for the rest is cheaper in
 * a micro-benchmark on Deno and Bun, but dearer once served (Deno ~+3 µs CPU a GET, Bun no gain):
 * the runtimes' servers read a Response built from a plain object by a faster path. So every
 * runtime, the Node adapter's light Response included, gets one plain object per request.
 */
import type { ReplyBody, ResponseConstructor } from "./responses.ts";

/** A set of constant headers with lower-case names. */
export type HeaderSet = Readonly<Record<string, string>>;

/** Makes a header set once (at start-up). */
export function headerSet(record: Record<string, string>): HeaderSet {
  return Object.freeze({ ...record });
}

/** The Response of `reply` with `base`'s headers, then `own` (which win), as one plain object. */
export function buildResponse(
  ResponseClass: ResponseConstructor,
  reply: { status: number; body: ReplyBody },
  headers: { base: HeaderSet; own: Record<string, string> },
): Response {
  const { base, own } = headers;
  const record: Record<string, string> = {};
  for (const name in base) record[name] = base[name];
  for (const name in own) record[name] = own[name];
  return new ResponseClass(reply.body, { status: reply.status, headers: record });
}
