/**
 * The 200 and 304 of a cacheable GET (`/pets`, `/pets/{petId}`): a strong `ETag`, `Cache-Control:
 * private, no-cache` (a browser may keep the body but revalidates it; shared caches keep
 * nothing: the responses need a key) and `Vary: Accept-Encoding` (the coding depends on it), on
 * the 304 as on the 200 (RFC 9110 §15.4.5: a 304 carries the headers the 200 would have for
 * caches to update).
 */
import type { CachedResponse } from "../cache/response_cache.ts";
import { ifNoneMatchMatches } from "./conditional.ts";
import type { Reply } from "./responses.ts";

/** `Cache-Control` of the cacheable GETs' 200s and 304s. */
export const REVALIDATE = "private, no-cache";

/** 304 when the request's If-None-Match matches `response`'s tag, else the 200 with the body. */
export function cacheableReply(request: Request, response: CachedResponse): Reply {
  if (ifNoneMatchMatches(request.headers.get("if-none-match"), response.etag)) {
    return notModified(response.etag);
  }
  return okReply(response);
}

/** The 200 with `response`'s body, for a request whose If-None-Match was already checked. */
export function okReply(response: CachedResponse): Reply {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    etag: response.etag,
    "cache-control": REVALIDATE,
    vary: "Accept-Encoding",
  };
  if (response.coding !== "identity") headers["content-encoding"] = response.coding;
  if (response.link !== undefined) headers.link = response.link;
  return { status: 200, body: response.body, headers };
}

/** The 304 for a response tagged `etag`: no body, the validator and the caching headers. */
export function notModified(etag: string): Reply {
  return {
    status: 304,
    body: null,
    headers: { etag, "cache-control": REVALIDATE, vary: "Accept-Encoding" },
  };
}
