/**
 * The request URL's path and query, read by slicing the string (no `new URL()` per request), with
 * the path's dot segments removed; and the cap on their length. Runtimes cap the whole request
 * head on their own (docs/security.md, Limits); this cap keeps long URLs out of the router, the
 * query parser and the logs, with answers from docs/api.md's table: a path that long names
 * nothing (404 `not_found`), and a query that long is not a valid `limit`/`status`/`cursor` query
 * (400 `invalid_query`).
 */
import { HttpError } from "./errors.ts";

/** In characters: the request target is ASCII. */
const MAX_URL_LENGTH = 8192;

/** Throws 404 for an over-long path, 400 for an over-long path plus query. */
export function checkUrlLength(path: string, query: string): void {
  if (path.length > MAX_URL_LENGTH) {
    const message = `No such path: the path is over ${MAX_URL_LENGTH} characters`;
    throw new HttpError(404, "not_found", message);
  }
  if (path.length + 1 + query.length > MAX_URL_LENGTH && query !== "") {
    const message = "The query string is too long: path and query must be at most " +
      `${MAX_URL_LENGTH} characters`;
    throw new HttpError(400, "invalid_query", message);
  }
}

/**
 * Path and query of a request URL. The URL is absolute (`http://host/path?query`, the authority
 * ending at its first `/`, `?` or `#`) or the origin-form target itself (`/path?query`), as the
 * Node adapter gives it, and Bun when the Host header is not a valid host. Dot segments are
 * removed only from a path that may have some: one regular expression test is all an ordinary
 * path costs.
 */
export function splitUrl(url: string): { path: string; query: string } {
  let authorityStart = 0;
  if (url.charCodeAt(0) !== 0x2f /* / */) {
    const schemeEnd = url.indexOf("://");
    if (schemeEnd !== -1) authorityStart = schemeEnd + 3;
  }
  const slash = url.indexOf("/", authorityStart);
  const hashStart = url.indexOf("#", authorityStart);
  let queryStart = url.indexOf("?", authorityStart);
  let pathEnd = hashStart === -1 ? url.length : hashStart;
  if (queryStart !== -1 && queryStart < pathEnd) pathEnd = queryStart;
  else queryStart = -1; // none, or a `?` in the fragment
  // No `/` before the query or fragment: the path is empty (`http://host?query`).
  const pathStart = slash !== -1 && slash < pathEnd ? slash : pathEnd;
  let path = url.slice(pathStart, pathEnd) || "/";
  if (MAYBE_DOT_SEGMENT.test(path)) path = removeDotSegments(path);
  const query = queryStart === -1
    ? ""
    : url.slice(queryStart + 1, hashStart === -1 ? undefined : hashStart);
  return { path, query };
}

/** A segment starting with `.` or `%` (`%2e`), or a backslash: what `removeDotSegments` changes. */
const MAYBE_DOT_SEGMENT = /\/[.%]|\\/;
const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/**
 * A path with its `.` and `..` segments applied and removed (RFC 3986 §5.2.4,
 * remove_dot_segments), so that every runtime routes `/v1/docs/../pets` as `/v1/pets`. Bun hands
 * over paths already normalised by the WHATWG URL parser, which also takes `%2e` for a dot and
 * `\` for a `/` in http(s) URLs; the same is done here so that Deno and Node give the same answer.
 * `..` never climbs above the root, and a dot segment at the end leaves a trailing `/`.
 */
export function removeDotSegments(path: string): string {
  const segments = path.replaceAll("\\", "/").split("/");
  const output: string[] = [];
  // segments[0] is the empty string before the path's leading "/".
  for (let at = 1; at < segments.length; at++) {
    const segment = segments[at];
    const last = at === segments.length - 1;
    if (SINGLE_DOT.test(segment)) {
      if (last) output.push("");
    } else if (DOUBLE_DOT.test(segment)) {
      output.pop();
      if (last) output.push("");
    } else {
      output.push(segment);
    }
  }
  return "/" + output.join("/");
}
