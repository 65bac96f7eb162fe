/**
 * Response headers that are the same for every response of one kind, made once, and the one
 * function that builds a request's Response from such a set and the request's own headers.
 *
 * Why: building a Response from a plain object of 7–9 headers was a fifth of the JavaScript
 * time of a Deno `GET /v1/pets/{id}` and about a fifth of a Bun one. The global `Response`
 * copies a `Headers` it is given by its internal list, far cheaper than reading an object's
 * keys (scripts/bench/response_headers.ts: Deno ~7 → ~5 µs, Bun ~2.1 → ~1.7 µs for a get's
 * set), so the constant part goes in as a prebuilt `Headers` and only the rest is set one by
 * one. The Node adapter's Response keeps a plain object as it is, so it gets one object.
 */
import type { ReplyBody, ResponseConstructor } from "./responses.ts";

/** A set of constant headers, as a plain object (for the Node adapter) and as `Headers`. */
export interface HeaderSet {
  readonly record: Readonly<Record<string, string>>;
  readonly headers: Headers;
}

/** Makes a header set once (at start-up): lower-case names. */
export function headerSet(record: Record<string, string>): HeaderSet {
  return { record: Object.freeze({ ...record }), headers: new Headers(record) };
}

/**
 * The Response of `status` and `body` with `base`'s headers, then `own` (which win). With the
 * global `Response` (`adapterResponse` undefined) `base` is copied by the runtime; an adapter's
 * class gets one new plain object.
 */
export function buildResponse(
  adapterResponse: ResponseConstructor | undefined,
  reply: { status: number; body: ReplyBody },
  headers: { base: HeaderSet; own: Record<string, string> },
): Response {
  const { base, own } = headers;
  if (adapterResponse !== undefined) {
    const record: Record<string, string> = {};
    for (const name in base.record) record[name] = base.record[name];
    for (const name in own) record[name] = own[name];
    return new adapterResponse(reply.body, { status: reply.status, headers: record });
  }
  const response = new Response(reply.body, { status: reply.status, headers: base.headers });
  for (const name in own) response.headers.set(name, own[name]);
  return response;
}
