/** The request URL's path and query, sliced from the string; and the cap on their length. */
import { MAX_PATH_SEGMENTS } from "../runtime/contract.ts";
import { HttpError } from "./errors.ts";

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
 * Path and query of an absolute URL or an origin-form target (Node, and Bun for an invalid Host):
 * the path with dot segments removed and `\` read as `/`, as Bun's URL parser reads it, and
 * whether the path as sent names nothing (`isUnroutable`).
 */
export function splitUrl(url: string): { path: string; query: string; unroutable: boolean } {
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

const MAYBE_UNROUTABLE = /\\|%5c|\/\/|\/$/i;

/**
 * A path as sent (fragment included) with a backslash (or `%5C`), an empty segment or over
 * `MAX_PATH_SEGMENTS` segments names nothing: decided as sent, as Bun's router sees it before its
 * URL parser reads `\` as `/` (runtime/bun.ts), so every runtime answers alike.
 */
function isUnroutable(sent: string): boolean {
  if (MAYBE_UNROUTABLE.test(sent)) return true;
  let slashes = 0;
  for (let at = sent.indexOf("/"); at !== -1; at = sent.indexOf("/", at + 1)) slashes++;
  return slashes > MAX_PATH_SEGMENTS;
}

/** A segment starting with `.` or `%` (`%2e`), or a backslash: what `removeDotSegments` changes. */
const MAYBE_DOT_SEGMENT = /\/[.%]|\\/;
const SINGLE_DOT = /^(?:\.|%2e)$/i;
const DOUBLE_DOT = /^(?:\.|%2e){2}$/i;

/**
 * A path with its `.` and `..` segments applied (RFC 3986 §5.2.4), reading `%2e` as a dot and `\`
 * as `/` as Bun's WHATWG parser does, so every runtime routes `/v1/docs/../pets` as `/v1/pets`.
 */
export function removeDotSegments(path: string): string {
  const segments = path.replaceAll("\\", "/").split("/");
  const output: string[] = [];
  for (let at = 1; at < segments.length; at++) {
    const segment = segments[at];
    const dots = SINGLE_DOT.test(segment) ? 1 : DOUBLE_DOT.test(segment) ? 2 : 0;
    if (dots === 2) output.pop();
    if (dots === 0) output.push(segment);
    else if (at === segments.length - 1) output.push(""); // a trailing `.` or `..` keeps its `/`
  }
  return "/" + output.join("/");
}
