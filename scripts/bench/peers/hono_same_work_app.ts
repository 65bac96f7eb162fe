/**
 * The three pet endpoints in Hono doing the duties our contract puts on each request, in Hono's
 * idiom: one middleware on every path sets `X-Request-Id` (the same rule as ours) and
 * `nosniff`, awaits `next()`, then writes the request's JSON log line (the same fields as ours,
 * batched to stdout); a middleware puts the deprecation trio on every answer of
 * `/v1/pets/:petId` (401 included); the bearer-auth middleware looks the key up in a Map. The
 * reads send an `ETag` made from the ids served, `Cache-Control: private, no-cache` and
 * `Vary`, and answer 304 when `If-None-Match` holds the tag; a create sends `Location`.
 * Served by `hono_same_work_server.ts`. Dev-only benchmark peer.
 */
import { Hono } from "hono";
import { createPetHandler } from "./hono_app.ts";
import {
  acceptedKey,
  createRequestLog,
  durationSince,
  NO_STORE,
  NOSNIFF,
  pageTag,
  petTag,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  VARY,
} from "./contract_duties.ts";
import {
  DEPRECATION_HEADERS,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

type Env = { Variables: { requestId: string; key: string | undefined } };

/** The same-work Hono app with an in-memory store of the benchmark's pets. */
export function createHonoSameWorkApp(): Hono<Env> {
  const store = new PetMemoryStore();
  const log = createRequestLog();
  const app = new Hono<Env>();

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

  app.get("/v1/pets", (c) => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    const page = store.list(query);
    const etag = pageTag(query, page);
    c.header("etag", etag);
    c.header("cache-control", REVALIDATE);
    c.header("vary", VARY);
    if (page.hasMore) c.header("link", nextLink(query, page.pets[page.pets.length - 1].id));
    if (tagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
    return c.json(page.pets);
  });

  app.get("/v1/pets/:petId", (c) => {
    const id = parsePetId(c.req.param("petId"));
    if (id === undefined) {
      return c.json({ code: "invalid_path", message: "Bad pet id", status: 400 }, 400);
    }
    const pet = store.get(id);
    if (pet === undefined) {
      return c.json({ code: "not_found", message: "No pet", status: 404 }, 404);
    }
    const etag = petTag(id);
    c.header("etag", etag);
    c.header("cache-control", REVALIDATE);
    c.header("vary", VARY);
    if (tagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
    return c.json(pet);
  });

  app.post("/v1/pets", createPetHandler(store));

  return app;
}
