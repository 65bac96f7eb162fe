/**
 * The three pet endpoints in Fastify on Node doing the duties our contract puts on each request,
 * in Fastify's idiom (`fastify_contract_duties.ts`: its pino logger with one line per request,
 * `genReqId`, an `onRequest` hook for the headers and the key). The reads send an `ETag` made from the ids served,
 * `Cache-Control: private, no-cache` and `Vary`, and answer 304 when `If-None-Match` holds the
 * tag; a create sends `Location`. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import { createSameWorkFastify, sendRead } from "./fastify_contract_duties.ts";
import { pageTag, petTag } from "./contract_duties.ts";
import {
  listenAddress,
  NewPetSchema,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
} from "./pet_fixture.ts";

const store = new PetMemoryStore();
const { port, host } = listenAddress();
const app = createSameWorkFastify();

app.get("/v1/pets", (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const parsed = parseListQuery((name) => query[name]);
  if (typeof parsed === "string") {
    return reply.code(400).send({ code: "invalid_query", message: parsed, status: 400 });
  }
  const page = store.list(parsed);
  const link = page.hasMore ? nextLink(parsed, page.pets[page.pets.length - 1].id) : undefined;
  return sendRead(request, reply, pageTag(parsed, page), page.pets, link);
});

app.get("/v1/pets/:petId", (request, reply) => {
  const id = parsePetId((request.params as { petId: string }).petId);
  if (id === undefined) {
    return reply.code(400).send({ code: "invalid_path", message: "Bad pet id", status: 400 });
  }
  const pet = store.get(id);
  if (pet === undefined) {
    return reply.code(404).send({ code: "not_found", message: "No pet", status: 404 });
  }
  return sendRead(request, reply, petTag(id), pet);
});

app.post("/v1/pets", { schema: { body: NewPetSchema } }, (request, reply) => {
  const pet = store.create(request.body as Parameters<PetMemoryStore["create"]>[0]);
  return reply.code(201).header("location", `/v1/pets/${pet.id}`).send(pet);
});

await app.listen({ port, host });
