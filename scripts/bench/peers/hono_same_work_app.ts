/**
 * The three pet endpoints in Hono doing the duties our contract puts on each request, in Hono's
 * idiom: the middleware of `hono_contract_duties.ts` (request id, nosniff, the log line, the
 * deprecation trio, the key looked up in a Map). The reads send an `ETag` made from the ids
 * served, `Cache-Control: private, no-cache` and `Vary`, and answer 304 when `If-None-Match`
 * holds the tag; a create sends `Location`.
 * Served by `hono_same_work_server.ts`. Dev-only benchmark peer.
 */
import { Hono } from "hono";
import { createPetHandler } from "./hono_app.ts";
import { answerRead, type SameWorkEnv, useContractDuties } from "./hono_contract_duties.ts";
import { pageTag, petTag } from "./contract_duties.ts";
import { nextLink, parseListQuery, parsePetId, PetMemoryStore } from "./pet_fixture.ts";

/** The same-work Hono app with an in-memory store of the benchmark's pets. */
export function createHonoSameWorkApp(): Hono<SameWorkEnv> {
  const store = new PetMemoryStore();
  const app = new Hono<SameWorkEnv>();
  useContractDuties(app);

  app.get("/v1/pets", (c) => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    const page = store.list(query);
    const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
    return answerRead(c, pageTag(query, page), page.pets, link);
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
    return answerRead(c, petTag(id), pet);
  });

  app.post("/v1/pets", createPetHandler(store));

  return app;
}
