/**
 * The three pet endpoints in Hono on PostgreSQL (`pet_table.ts`), doing what the same-work Hono
 * peer does (`hono_contract_duties.ts`: request id, nosniff, the log line, the deprecation trio,
 * the key) and what a create on a database asks: 415 for a body that is not JSON, a malformed
 * `Idempotency-Key` refused (400), Hono's JSON parser and the TypeBox check, one row inserted per
 * create, a retry with the same key and body answered with the pet it made
 * (`Idempotent-Replayed: true`), the same key with another body 422; 201 with `Location`. The
 * reads send an `ETag` made from the ids served, `Cache-Control: private, no-cache`, `Vary`, a
 * 304 on a match and the next page's `Link`. Served by `hono_postgres_server.ts`. Dev-only
 * benchmark peer.
 */
import { Hono } from "hono";
import { IDEMPOTENCY_KEY, pageTag, petTag, requestDigest } from "./contract_duties.ts";
import { answerRead, type SameWorkEnv, useContractDuties } from "./hono_contract_duties.ts";
import { isNewPet, nextLink, parseListQuery, parsePetId } from "./pet_fixture.ts";
import type { PetTable } from "./pet_table.ts";

/** The Hono app on `table`. */
export function createHonoPostgresApp(table: PetTable): Hono<SameWorkEnv> {
  const app = new Hono<SameWorkEnv>();
  useContractDuties(app);

  app.get("/v1/pets", async (c) => {
    const query = parseListQuery((name) => c.req.query(name));
    if (typeof query === "string") {
      return c.json({ code: "invalid_query", message: query, status: 400 }, 400);
    }
    const page = await table.page(query);
    const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
    return answerRead(c, pageTag(query, page), page.pets, link);
  });

  app.get("/v1/pets/:petId", async (c) => {
    const id = parsePetId(c.req.param("petId"));
    if (id === undefined) {
      return c.json({ code: "invalid_path", message: "Bad pet id", status: 400 }, 400);
    }
    const pet = await table.get(id);
    if (pet === undefined) {
      return c.json({ code: "not_found", message: "No pet", status: 404 }, 404);
    }
    return answerRead(c, petTag(id), pet);
  });

  app.post("/v1/pets", async (c) => {
    if (!(c.req.header("content-type") ?? "").startsWith("application/json")) {
      return c.json({ code: "unsupported_media_type", message: "JSON only", status: 415 }, 415);
    }
    const key = c.req.header("idempotency-key");
    if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
      return c.json(
        { code: "validation_failed", message: "Bad Idempotency-Key", status: 400 },
        400,
      );
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
    const result = await table.create(body, claim);
    if (result.kind === "key_reused") {
      const message = "Idempotency-Key used with another body";
      return c.json({ code: "idempotency_key_reused", message, status: 422 }, 422);
    }
    c.header("location", `/v1/pets/${result.pet.id}`);
    if (result.kind === "replayed") c.header("idempotent-replayed", "true");
    return c.json(result.pet, 201);
  });

  return app;
}
