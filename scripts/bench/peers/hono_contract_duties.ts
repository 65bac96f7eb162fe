/**
 * The duties our contract puts on every request, as Hono middleware (the same-work Hono peers
 * share them: `hono_same_work_app.ts` on the memory store, `hono_postgres_app.ts` on
 * PostgreSQL). One middleware on every path sets `X-Request-Id` (the same rule as ours) and
 * `nosniff`, awaits `next()`, then writes the request's JSON log line (the same fields as ours,
 * batched to stdout); one puts the deprecation trio on every answer of `/v1/pets/:petId` (401
 * included); the bearer-auth middleware looks the key up in a Map and keeps its fingerprint.
 * Dev-only benchmark code.
 */
import type { Context, Hono } from "hono";
import {
  acceptedKey,
  createRequestLog,
  durationSince,
  NO_STORE,
  NOSNIFF,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  VARY,
} from "./contract_duties.ts";
import { DEPRECATION_HEADERS, UNAUTHORIZED_BODY } from "./pet_fixture.ts";

/** The variables the duties set: the request id and the accepted key's fingerprint. */
export type SameWorkEnv = { Variables: { requestId: string; key: string | undefined } };

/** Registers the duties' middleware on `app`, before its routes. */
export function useContractDuties(app: Hono<SameWorkEnv>): void {
  const log = createRequestLog();

  app.use("*", async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFor(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.header("x-request-id", requestId);
    c.header("x-content-type-options", NOSNIFF);
    await next();
    log({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: durationSince(started),
      requestId,
      key: c.get("key"),
    });
  });

  app.use("/v1/pets/:petId", async (c, next) => {
    for (const name in DEPRECATION_HEADERS) c.header(name, DEPRECATION_HEADERS[name]);
    await next();
  });

  app.use("/v1/*", async (c, next) => {
    const key = acceptedKey(c.req.header("authorization"));
    c.header("cache-control", NO_STORE);
    if (key === undefined) {
      return c.body(UNAUTHORIZED_BODY, 401, {
        "content-type": "application/json",
        "www-authenticate": 'Bearer realm="animal-store"',
      });
    }
    c.set("key", key);
    await next();
  });
}

/**
 * Answers a read the way both same-work Hono apps do: `ETag`, `Cache-Control: private,
 * no-cache`, `Vary` and (a page with more) `Link`, then 304 when `If-None-Match` holds the tag,
 * else `body` as JSON.
 */
export function answerRead<T>(
  c: Context<SameWorkEnv>,
  etag: string,
  body: T,
  link?: string,
): Response {
  c.header("etag", etag);
  c.header("cache-control", REVALIDATE);
  c.header("vary", VARY);
  if (link !== undefined) c.header("link", link);
  if (tagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
  return c.json(body);
}
