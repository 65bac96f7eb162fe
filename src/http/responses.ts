/** The constant headers of replies, made once per path and kind; the app adds the request's own. */
import type { Reply } from "../runtime/contract.ts";

/** `Cache-Control` of authenticated responses: they depend on the key, so nothing may store them. */
export const AUTHENTICATED_CACHE_CONTROL = "no-store";
/** `Cache-Control` of the cacheable GETs' 200s and 304s (http/conditional_get.ts). */
export const REVALIDATE = "private, no-cache";

export type HeaderSet = Readonly<Record<string, string>>;

/** The constant headers of a path's replies, one set per kind. */
export interface ReplyHeaders {
  /** An OPTIONS answer, given before any key check: nosniff and the path's deprecation trio. */
  readonly options: HeaderSet;
  /** Any other reply (errors included): also JSON, and `no-store` where a key is asked for. */
  readonly reply: HeaderSet;
  /** The 200 of a cacheable GET: the tag's revalidation rules instead of `no-store`. */
  readonly ok: HeaderSet;
  /** Its 304: the 200's headers without the content's type. */
  readonly notModified: HeaderSet;
}

/** The header sets of a path, `keyed` (`no-store` even on a 401) and deprecated or not. */
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

/** A 200 whose body is the given JSON text, on top of `base` (a `reply` set). */
export function jsonReply(base: HeaderSet, body: string, headers?: Record<string, string>): Reply {
  return { status: 200, body, headers: { ...base, ...headers } };
}
