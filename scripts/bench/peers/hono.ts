/**
 * Hono, served as each runtime's Hono docs show. `PEER=as-is`: as its users write the endpoints
 * (a bearer-auth middleware, `c.req.query()`, `c.json()`, TypeBox). `PEER=same-work`: also our
 * contract's duties in Hono's idiom (middleware around `await next()` for the request id,
 * nosniff and the log line; the deprecation trio; ETag, Cache-Control, Vary, 304).
 * `PEER=postgres`: the same-work app on PostgreSQL (`pet_table.ts`).
 */
import { type Context, Hono } from "hono";
import {
  acceptedKey,
  type BenchPet,
  createRequestLog,
  DEPRECATION_HEADERS,
  durationSince,
  isAuthorized,
  isNewPet,
  listenAddress,
  type ListQuery,
  nextLink,
  NO_STORE,
  NOSNIFF,
  pageTag,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  petTag,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  UNAUTHORIZED_BODY,
  VARIANT,
  VARY,
} from "./fixture.ts";
import { openPetTable } from "./pet_table.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

type Env = { Variables: { requestId: string; key: string | undefined } };
type Maybe<T> = T | Promise<T>;
type Page = { pets: BenchPet[]; hasMore: boolean };
const UNAUTHORIZED = {
  "content-type": "application/json",
  "www-authenticate": 'Bearer realm="animal-store"',
};

function asIsApp(store: PetMemoryStore): Hono<Env> {
  const app = new Hono<Env>();
  app.use("/v1/*", async (c, next) => {
    if (!isAuthorized(c.req.header("authorization"))) {
      return c.body(UNAUTHORIZED_BODY, 401, UNAUTHORIZED);
    }
    c.header("cache-control", "no-store");
    await next();
  });
  app.get("/v1/pets", (c) => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    const page = store.list(query);
    if (page.hasMore) c.header("link", nextLink(query, page.pets[page.pets.length - 1].id));
    return c.json(page.pets);
  });
  app.get("/v1/pets/:petId", (c) => {
    for (const name in DEPRECATION_HEADERS) c.header(name, DEPRECATION_HEADERS[name]);
    const id = parsePetId(c.req.param("petId"));
    const pet = id === undefined ? undefined : store.get(id);
    if (pet === undefined) {
      return c.json({ code: "not_found", message: "No pet", status: 404 }, 404);
    }
    return c.json(pet);
  });
  app.post("/v1/pets", createHandler((body) => store.create(body)));
  return app;
}

/** `POST /v1/pets`: 415 for a body that is not JSON, Hono's JSON parser, the TypeBox check. */
function createHandler(create: (body: Omit<BenchPet, "id">) => Maybe<BenchPet>) {
  return async (c: Context<Env>) => {
    if (!(c.req.header("content-type") ?? "").startsWith("application/json")) {
      return c.json({ code: "unsupported_media_type", message: "JSON only", status: 415 }, 415);
    }
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json({ code: "invalid_body", message: "Malformed JSON", status: 400 }, 400);
    }
    if (!isNewPet(body)) {
      return c.json({ code: "validation_failed", message: "Invalid NewPet", status: 400 }, 400);
    }
    const created = create(body);
    const pet = created instanceof Promise ? await created : created;
    c.header("location", `/v1/pets/${pet.id}`);
    return c.json(pet, 201);
  };
}

/** A same-work read's answer: `ETag`, `Cache-Control`, `Vary`, the next page's `Link`, 304. */
function answerRead<T>(c: Context<Env>, etag: string, body: T, link?: string): Response {
  c.header("etag", etag);
  c.header("cache-control", REVALIDATE);
  c.header("vary", VARY);
  if (link !== undefined) c.header("link", link);
  if (tagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
  return c.json(body);
}

function answerPage(
  c: Context<Env>,
  query: ListQuery,
  page: Page,
): Response {
  const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
  return answerRead(c, pageTag(query, page), page.pets, link);
}

function answerPet(c: Context<Env>, id: number, pet: BenchPet | undefined): Response {
  if (pet === undefined) return c.json({ code: "not_found", message: "No pet", status: 404 }, 404);
  return answerRead(c, petTag(id), pet);
}

/** The same-work app over a store: in memory, or the PostgreSQL table. */
function sameWorkApp(store: {
  page(query: ListQuery): Maybe<Page>;
  get(id: number): Maybe<BenchPet | undefined>;
  create(body: Omit<BenchPet, "id">): Maybe<BenchPet>;
}): Hono<Env> {
  const app = new Hono<Env>();
  const log = createRequestLog();
  app.use("*", async (c, next) => {
    const started = performance.now();
    const requestId = requestIdFor(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.header("x-request-id", requestId);
    c.header("x-content-type-options", NOSNIFF);
    await next();
    const { method, path } = c.req;
    const durationMs = durationSince(started);
    log({ method, path, status: c.res.status, durationMs, requestId, key: c.get("key") });
  });
  app.use("/v1/pets/:petId", async (c, next) => {
    for (const name in DEPRECATION_HEADERS) c.header(name, DEPRECATION_HEADERS[name]);
    await next();
  });
  app.use("/v1/*", async (c, next) => {
    const key = acceptedKey(c.req.header("authorization"));
    c.header("cache-control", NO_STORE);
    if (key === undefined) return c.body(UNAUTHORIZED_BODY, 401, UNAUTHORIZED);
    c.set("key", key);
    await next();
  });

  app.get("/v1/pets", (c): Response | Promise<Response> => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    const page = store.page(query);
    if (!(page instanceof Promise)) return answerPage(c, query, page);
    return (page as Promise<Page>).then((settled) => answerPage(c, query, settled));
  });
  app.get("/v1/pets/:petId", (c): Response | Promise<Response> => {
    const id = parsePetId(c.req.param("petId"));
    if (id === undefined) {
      return c.json({ code: "invalid_path", message: "Bad pet id", status: 400 }, 400);
    }
    const pet = store.get(id);
    if (!(pet instanceof Promise)) return answerPet(c, id, pet);
    return (pet as Promise<BenchPet | undefined>).then((settled) => answerPet(c, id, settled));
  });
  app.post("/v1/pets", createHandler((body) => store.create(body)));
  return app;
}

const memory = new PetMemoryStore();
const app = VARIANT === "postgres"
  ? sameWorkApp(await openPetTable())
  : VARIANT === "same-work"
  ? sameWorkApp({
    page: (query) => memory.list(query),
    get: (id) => memory.get(id),
    create: (body) => memory.create(body),
  })
  : asIsApp(memory);
const { port, host } = listenAddress();
if (typeof Bun !== "undefined") {
  Bun.serve({ port, hostname: host, fetch: app.fetch });
} else if (typeof Deno !== "undefined") {
  Deno.serve({ port, hostname: host, onListen() {} }, app.fetch);
} else {
  const { serve } = await import("@hono/node-server");
  serve({ fetch: app.fetch, port, hostname: host });
}
