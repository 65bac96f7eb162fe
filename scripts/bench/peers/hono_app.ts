/**
 * The three pet endpoints in Hono, written as a Hono user would: a bearer-auth middleware on
 * `/v1/*` (it runs before any body is read), `c.req.query()`, `c.json()`, and a TypeBox check of
 * the body. Served by `hono_server.ts` on each runtime. Dev-only benchmark peer.
 */
import { type Context, Hono } from "hono";
import {
  DEPRECATION_HEADERS,
  isAuthorized,
  isNewPet,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

/** The Hono app with an in-memory store of the benchmark's pets. */
export function createHonoApp(): Hono {
  const store = new PetMemoryStore();
  const app = new Hono();

  app.use("/v1/*", async (c, next) => {
    if (!isAuthorized(c.req.header("authorization"))) {
      return c.body(UNAUTHORIZED_BODY, 401, {
        "content-type": "application/json",
        "www-authenticate": 'Bearer realm="animal-store"',
      });
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

  app.post("/v1/pets", createPetHandler(store));

  return app;
}

/**
 * `POST /v1/pets` as a Hono handler: 415 for a body that is not JSON, Hono's JSON parser, the
 * TypeBox check, 201 with `Location`. The same in the as-is and the same-work app.
 */
export function createPetHandler(store: PetMemoryStore) {
  return async (c: Context) => {
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
    const pet = store.create(body);
    c.header("location", `/v1/pets/${pet.id}`);
    return c.json(pet, 201);
  };
}
