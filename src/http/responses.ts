/**
 * The seam between the app and the runtime adapters (a `Reply` handed once per request to the
 * adapter's `Respond`), and the constant headers of replies.
 */

/** The parts of a request the app reads: a web `Request` has them; Node's adapter builds them. */
export interface AppRequest {
  readonly method: string;
  /** Absolute (`http://host/path?query`) or the origin-form target itself (`/path?query`). */
  readonly url: string;
  readonly headers: {
    get(name: string): string | null;
    has(name: string): boolean;
  };
  /** Null for a request without a body (GET, HEAD). */
  readonly body: ReadableStream<Uint8Array> | null;
  arrayBuffer(): Promise<ArrayBuffer>;
  /**
   * Set (true) by an adapter whose runtime's `url` no longer shows the path as sent (Bun) when
   * that path names nothing (`splitUrl`'s `unroutable`); the others leave it unset.
   */
  readonly unroutable?: boolean;
}

/** What a route answers, and what the app hands the adapter's `Respond` once per request. */
export interface Reply {
  readonly status: number;
  /** Text, UTF-8 bytes, or null for no content. */
  readonly body: string | Uint8Array<ArrayBuffer> | null;
  /** Lower-case names; a fresh object per reply, since the app adds the request's headers. */
  readonly headers: Record<string, string>;
}

/** Makes a runtime's response of the request's whole reply (every header included). */
export type Respond<R> = (reply: Reply) => R;

/** The reply as a web `Response`. */
export function webResponse(reply: Reply): Response {
  return new Response(reply.body, { status: reply.status, headers: reply.headers });
}

/** `Cache-Control` of authenticated responses: they depend on the key, so nothing may store them. */
export const AUTHENTICATED_CACHE_CONTROL = "no-store";

/** `Cache-Control` of the cacheable GETs' 200s and 304s (see http/conditional_get.ts). */
export const REVALIDATE = "private, no-cache";

/** Constant headers with lower-case names, made once. */
export type HeaderSet = Readonly<Record<string, string>>;

/** The constant headers of a path's replies, one set per kind, made when the route is added. */
export interface ReplyHeaders {
  /** An OPTIONS answer, given before any key check: nosniff and the path's deprecation trio. */
  readonly options: HeaderSet;
  /** Any other reply (errors included): also JSON, and `no-store` where a key is asked for. */
  readonly reply: HeaderSet;
  /** The 200 of a cacheable GET: the tag's revalidation rules instead of `no-store`. */
  readonly ok: HeaderSet;
  /** The 304 of a cacheable GET: the 200's headers without the content's type. */
  readonly notModified: HeaderSet;
}

/** The header sets of a path, `keyed` (`no-store` even on a 401) and `deprecation` or not. */
export function replyHeaders(
  declaration: { keyed: boolean; deprecation?: Record<string, string> },
): ReplyHeaders {
  const options = { "x-content-type-options": "nosniff", ...declaration.deprecation };
  const json = { ...options, "content-type": "application/json" };
  const revalidate = { "cache-control": REVALIDATE, vary: "Accept-Encoding" };
  return {
    options: Object.freeze(options),
    reply: Object.freeze(
      declaration.keyed ? { ...json, "cache-control": AUTHENTICATED_CACHE_CONTROL } : json,
    ),
    ok: Object.freeze({ ...json, ...revalidate }),
    notModified: Object.freeze({ ...options, ...revalidate }),
  };
}

/** A reply whose body is the given JSON text or bytes, on top of `base` (a `reply` set). */
export function jsonReply(
  base: HeaderSet,
  body: string | Uint8Array<ArrayBuffer>,
  status = 200,
  headers?: Record<string, string>,
): Reply {
  return { status, body, headers: { ...base, ...headers } };
}
