/**
 * The cap on a request's URL (path and query). Runtimes cap the whole request head on their own
 * (docs/security.md, Limits); this cap keeps long URLs out of the router, the query parser and the logs,
 * with answers from docs/api.md's table: a path that long names nothing (404 `not_found`), and a
 * query that long is not a valid `limit`/`status`/`cursor` query (400 `invalid_query`).
 */
import { HttpError } from "./errors.ts";

/** Longest path plus query accepted, in characters (the request target is ASCII). */
export const MAX_URL_LENGTH = 8192;

/** Throws 404 for an over-long path, 400 `invalid_query` for an over-long path plus query. */
export function checkUrlLength(path: string, query: string): void {
  if (path.length > MAX_URL_LENGTH) {
    throw new HttpError(
      404,
      "not_found",
      `No such path: the path is over ${MAX_URL_LENGTH} characters`,
    );
  }
  if (path.length + 1 + query.length > MAX_URL_LENGTH && query !== "") {
    throw new HttpError(
      400,
      "invalid_query",
      `The query string is too long: path and query must be at most ${MAX_URL_LENGTH} characters`,
    );
  }
}
