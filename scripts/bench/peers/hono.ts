/**
 * The three pet endpoints in Hono, served as each runtime's Hono docs show (`Bun.serve` with
 * `app.fetch`, `Deno.serve`, `@hono/node-server`). `PEER=as-is`: as Hono users write them, a
 * bearer-auth middleware on `/v1/*`, `c.req.query()`, `c.json()`, a TypeBox check of the body.
 * `PEER=same-work`: also our contract's per-request duties in Hono's idiom: a middleware on `*`
 * sets `X-Request-Id` and `nosniff`, awaits `next()`, then writes the log line; one puts the
 * deprecation trio on every answer of `/v1/pets/:petId`; the key by a Map lookup; the reads send
 * an `ETag` made from the ids served, `Cache-Control`, `Vary` and 304 on a match.
 * `PEER=postgres`: the same-work app on PostgreSQL (`pet_table.ts`) with what a create on a
 * database asks: a malformed `Idempotency-Key` refused, a retry answered with its pet
 * (`Idempotent-Replayed: true`), the key with another body 422. Dev-only benchmark peer.
 */
import { type Context, Hono } from "hono";
import {
  acceptedKey,
  type BenchPet,
  createRequestLog,
  DEPRECATION_HEADERS,
  durationSince,
  IDEMPOTENCY_KEY,
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
  requestDigest,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  UNAUTHORIZED_BODY,
  VARIANT,
  VARY,
} from "./fixture.ts";
import { type CreateResult, type IdempotencyClaim, openPetTable } from "./pet_table.ts";

declare const Bun: { serve(options: object): unknown } | undefined;
declare const Deno: { serve(options: object, handler: unknown): unknown } | undefined;

type Env = { Variables: { requestId: string; key: string | undefined } };
type Maybe<T> = T | Promise<T>;
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
  app.post("/v1/pets", createHandler((body) => ({ kind: "created", pet: store.create(body) })));
  return app;
}

/**
 * `POST /v1/pets`: 415 for a body that is not JSON, Hono's JSON parser, the TypeBox check, 201
 * with `Location`; `keyed` (on PostgreSQL), the `Idempotency-Key` too.
 */
function createHandler(
  create: (body: Omit<BenchPet, "id">, claim?: IdempotencyClaim) => Maybe<CreateResult>,
  keyed = false,
) {
  return async (c: Context<Env>) => {
    if (!(c.req.header("content-type") ?? "").startsWith("application/json")) {
      return c.json({ code: "unsupported_media_type", message: "JSON only", status: 415 }, 415);
    }
    const key = keyed ? c.req.header("idempotency-key") : undefined;
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      const message = "Bad Idempotency-Key";
      return c.json({ code: "validation_failed", message, status: 400 }, 400);
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
    const claim = key === undefined
      ? undefined
      : { scope: c.get("key")!, key, digest: requestDigest(body) };
    const outcome = create(body, claim);
    const result = outcome instanceof Promise ? await outcome : outcome;
    if (result.kind === "key_reused") {
      const message = "Idempotency-Key used with another body";
      return c.json({ code: "idempotency_key_reused", message, status: 422 }, 422);
    }
    c.header("location", `/v1/pets/${result.pet.id}`);
    if (result.kind === "replayed") c.header("idempotent-replayed", "true");
    return c.json(result.pet, 201);
  };
}

/** `f(value)`, once `value` settles if it is a promise (the memory store's answers stay sync). */
const then = <T, R>(value: Maybe<T>, f: (settled: T) => R) =>
  value instanceof Promise ? value.then(f) : f(value);

/** The same-work app over a store: in memory, or the PostgreSQL table. */
function sameWorkApp(store: {
  page(query: ListQuery): Maybe<{ pets: BenchPet[]; hasMore: boolean }>;
  get(id: number): Maybe<BenchPet | undefined>;
  create(body: Omit<BenchPet, "id">, claim?: IdempotencyClaim): Maybe<CreateResult>;
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

  const answerRead = <T>(c: Context<Env>, etag: string, body: T, link?: string) => {
    c.header("etag", etag);
    c.header("cache-control", REVALIDATE);
    c.header("vary", VARY);
    if (link !== undefined) c.header("link", link);
    if (tagMatches(c.req.header("if-none-match"), etag)) return c.body(null, 304);
    return c.json(body);
  };
  app.get("/v1/pets", (c) => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    return then(store.page(query), (page) => {
      const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
      return answerRead(c, pageTag(query, page), page.pets, link);
    });
  });
  app.get("/v1/pets/:petId", (c) => {
    const id = parsePetId(c.req.param("petId"));
    if (id === undefined) {
      return c.json({ code: "invalid_path", message: "Bad pet id", status: 400 }, 400);
    }
    return then(
      store.get(id),
      (pet) =>
        pet === undefined
          ? c.json({ code: "not_found", message: "No pet", status: 404 }, 404)
          : answerRead(c, petTag(id), pet),
    );
  });
  const keyed = VARIANT === "postgres";
  app.post("/v1/pets", createHandler((body, claim) => store.create(body, claim), keyed));
  return app;
}

const memory = new PetMemoryStore();
const app = VARIANT === "postgres"
  ? sameWorkApp(await openPetTable())
  : VARIANT === "same-work"
  ? sameWorkApp({
    page: (query) => memory.list(query),
    get: (id) => memory.get(id),
    create: (body) => ({ kind: "created", pet: memory.create(body) }),
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
