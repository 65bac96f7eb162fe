/**
 * Replies and the one place that turns them into responses. Route handlers return a `Reply` (a
 * status, a body that is already JSON text or bytes, and their own headers); the app adds the
 * common headers to the same plain object and builds exactly one response per request with the
 * `ResponseConstructor` it was given. That constructor defaults to the global `Response`; a
 * runtime adapter may supply a lighter, Response-compatible class (Node does: building an undici
 * Response and its web stream costs about a fifth of a request there).
 */

/** A response body: text, UTF-8 bytes, or null for no content. */
export type ReplyBody = string | Uint8Array<ArrayBuffer> | null;

/** What a route answers; the app makes it the request's one Response. */
export interface Reply {
  readonly status: number;
  readonly body: ReplyBody;
  /** Lower-case header names. They win over the app's common headers of the same name. */
  readonly headers: Record<string, string>;
}

/** The init every response of the app is built with: plain, lower-case headers. */
export interface PlainResponseInit {
  readonly status: number;
  readonly headers: Record<string, string>;
}

/** A constructor of Response-compatible objects: the global `Response`, or an adapter's own. */
export type ResponseConstructor = new (body: ReplyBody, init: PlainResponseInit) => Response;

/** `Cache-Control` of authenticated responses: nothing may store them (they depend on the key). */
export const AUTHENTICATED_CACHE_CONTROL = "no-store";

/** A reply whose body is the given JSON text or bytes. */
export function jsonReply(
  body: string | Uint8Array<ArrayBuffer>,
  status = 200,
  headers: Record<string, string> = {},
): Reply {
  headers["content-type"] = "application/json";
  return { status, body, headers };
}

/** The two `Headers` methods the CORS and rate-limit helpers use; `Headers` itself fits. */
export interface HeaderTarget {
  set(name: string, value: string): void;
  append(name: string, value: string): void;
}

/** `HeaderTarget` over a plain object of lower-case header names (the app's common headers). */
export function plainHeaderTarget(headers: Record<string, string>): HeaderTarget {
  return {
    set(name, value) {
      headers[name] = value;
    },
    append(name, value) {
      const before = headers[name];
      headers[name] = before === undefined ? value : `${before}, ${value}`;
    },
  };
}
