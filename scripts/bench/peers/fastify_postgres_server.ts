/**
 * The three pet endpoints in Fastify on Node on PostgreSQL (`pet_table.ts`), with the duties of
 * the same-work Fastify peer (`fastify_contract_duties.ts`: the log line, request id, headers,
 * the key) and what a create on a database asks: Fastify's JSON parser (415 for another type)
 * and the compiled TypeBox check, a malformed `Idempotency-Key` refused (400), one row inserted
 * per create, a retry with the same key and body answered with the pet it made
 * (`Idempotent-Replayed: true`), the same key with another body 422; 201 with `Location`. The
 * reads send an `ETag` made from the ids served, `Cache-Control: private, no-cache`, `Vary`, a
 * 304 on a match and the next page's `Link`. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import { IDEMPOTENCY_KEY, pageTag, petTag, requestDigest } from "./contract_duties.ts";
import { createSameWorkFastify, sendRead } from "./fastify_contract_duties.ts";
import {
  type BenchPet,
  listenAddress,
  NewPetSchema,
  nextLink,
  parseListQuery,
  parsePetId,
} from "./pet_fixture.ts";
import { openPetTable } from "./pet_table.ts";

const table = await openPetTable();
const { port, host } = listenAddress();
const app = createSameWorkFastify();
app.addHook("onClose", () => table.close());

app.get("/v1/pets", async (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const parsed = parseListQuery((name) => query[name]);
  if (typeof parsed === "string") {
    return reply.code(400).send({ code: "invalid_query", message: parsed, status: 400 });
  }
  const page = await table.page(parsed);
  const link = page.hasMore ? nextLink(parsed, page.pets[page.pets.length - 1].id) : undefined;
  return sendRead(request, reply, pageTag(parsed, page), page.pets, link);
});

app.get("/v1/pets/:petId", async (request, reply) => {
  const id = parsePetId((request.params as { petId: string }).petId);
  if (id === undefined) {
    return reply.code(400).send({ code: "invalid_path", message: "Bad pet id", status: 400 });
  }
  const pet = await table.get(id);
  if (pet === undefined) {
    return reply.code(404).send({ code: "not_found", message: "No pet", status: 404 });
  }
  return sendRead(request, reply, petTag(id), pet);
});

app.post("/v1/pets", { schema: { body: NewPetSchema } }, async (request, reply) => {
  const key = request.headers["idempotency-key"];
  if (key !== undefined && (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key))) {
    return reply.code(400)
      .send({ code: "validation_failed", message: "Bad Idempotency-Key", status: 400 });
  }
  const body = request.body as Omit<BenchPet, "id">;
  const claim = key === undefined
    ? undefined
    : { scope: request.keyFingerprint!, key, digest: requestDigest(body) };
  const result = await table.create(body, claim);
  if (result.kind === "key_reused") {
    const message = "Idempotency-Key used with another body";
    return reply.code(422).send({ code: "idempotency_key_reused", message, status: 422 });
  }
  reply.code(201).header("location", `/v1/pets/${result.pet.id}`);
  if (result.kind === "replayed") reply.header("idempotent-replayed", "true");
  return reply.send(result.pet);
});

await app.listen({ port, host });
