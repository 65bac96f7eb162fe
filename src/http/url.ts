/**
 * The request URL's path and query, read by slicing the string (no `new URL()` per request), with
 * the path's dot segments removed; and the cap on their length. Runtimes cap the whole request
 * head on their own (docs/security.md, Limits); this cap keeps long URLs out of the router, the
 * query parser and the logs, with answers from docs/api.md's table: a path that long names
 * nothing (404 `not_found`), and a query that long is not a valid `limit`/`status`/`cursor` query
 * (400 `invalid_query`).
 */
import { MAX_PATH_SEGMENTS } from "../runtime/contract.ts";
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

/** Path and query of a request URL, and whether its path as sent can name a route at all. */
export interface SplitUrl {
  /** The path with its dot segments removed and `\` read as `/`, as Bun's URL parser reads it. */
  readonly path: string;
  readonly query: string;
  /** The path as sent names nothing, whatever `path` reads (`isUnroutable`). */
  readonly unroutable: boolean;
}

/**
 * Path and query of a request URL. The URL is absolute (`http://host/path?query`, the authority
 * ending at its first `/`, `?` or `#`) or the origin-form target itself (`/path?query`), as the
 * Node adapter gives it, and Bun when the Host header is not a valid host. Dot segments are
 * removed only from a path that may have some: one regular expression test is all an ordinary
 * path costs.
 */
export function splitUrl(url: string): SplitUrl {
  let authorityStart = 0;
  if (url.charCodeAt(0) !== 0x2f /* / */) {
    const schemeEnd = url.indexOf("://");
    if (schemeEnd !== -1) authorityStart = schemeEnd + 3;
  }
  const slash = url.indexOf("/", authorityStart);
  const hashStart = url.indexOf("#", authorityStart);
  let queryStart = url.indexOf("?", authorityStart);
  // The path as sent runs to the first `?`, a `#` included: what Bun's router matches.
  const sentEnd = queryStart === -1 ? url.length : queryStart;
  let pathEnd = hashStart === -1 ? url.length : hashStart;
  if (queryStart !== -1 && queryStart < pathEnd) pathEnd = queryStart;
  else queryStart = -1; // none, or a `?` in the fragment
  // No `/` before the query or fragment: the path is empty (`http://host?query`).
  const pathStart = slash !== -1 && slash < pathEnd ? slash : pathEnd;
  let path = url.slice(pathStart, pathEnd) || "/";
  const sent = slash !== -1 && slash < sentEnd ? url.slice(slash, sentEnd) : "/";
  const unroutable = isUnroutable(sent);
  if (MAYBE_DOT_SEGMENT.test(path)) path = removeDotSegments(path);
  const query = queryStart === -1
    ? ""
    : url.slice(queryStart + 1, hashStart === -1 ? undefined : hashStart);
  return { path, query, unroutable };
}

/** `/x` 64 times is 128 characters: a path no longer has at most 64 segments. */
const MIN_LENGTH_OVER_MAX_SEGMENTS = 2 * MAX_PATH_SEGMENTS;
const MAYBE_UNROUTABLE = /\\|%5c|\/\/|\/$/i;

/**
 * Whether a path as sent (up to its query, a fragment included) names nothing. It does when it
 * holds a backslash, sent as is or percent-encoded (`%5C`): a backslash is a character, never a
 * `/`, so `/v1\pets` is no request for `/v1/pets`. And when it holds an empty segment (`//`, a
 * trailing `/`, the root `/`) or more than `MAX_PATH_SEGMENTS` segments, even where dot segments would
 * remove them (`//../v1/pets`). Those never matched a route anyway; they are decided on the path as
 * sent because Bun hands over only its URL parser's result, in which `\` has become `/` and a `..`
 * has removed what came before it. Bun's adapter sees the segments as sent through Bun's router
 * instead, which matches only up to `MAX_PATH_SEGMENTS` non-empty ones and decodes `%5C`: this rule is
 * the one it can apply alike, so every runtime gives the same answer.
 */
function isUnroutable(sent: string): boolean {
  if (MAYBE_UNROUTABLE.test(sent)) return true;
  // An ordinary path is too short to hold more segments than that: its slashes are not counted.
  if (sent.length <= MIN_LENGTH_OVER_MAX_SEGMENTS) return false;
  let slashes = 0;
  for (let at = sent.indexOf("/"); at !== -1; at = sent.indexOf("/", at + 1)) slashes++;
  return slashes > MAX_PATH_SEGMENTS;
}

/** A segment starting with `.` or `%` (`%2e`), or a backslash: what `removeDotSegments` changes. */
const MAYBE_DOT_SEGMENT = /\/[.%]|\\/;
const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/**
 * A path with its `.` and `..` segments applied and removed (RFC 3986 §5.2.4,
 * remove_dot_segments), so that every runtime routes `/v1/docs/../pets` as `/v1/pets`. Bun hands
 * over paths already normalised by the WHATWG URL parser, which also takes `%2e` for a dot and
 * `\` for a `/` in http(s) URLs; the same is done here so that Deno and Node give the same answer
 * (a path sent with a backslash names nothing, `isUnroutable`, but where it reads as pointing
 * still decides whether a key is asked for first). `..` never climbs above the root, and a dot
 * segment at the end leaves a trailing `/`.
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
