/**
 * The three pet endpoints in Fastify on Node, as a Fastify user would write them: bearer auth in
 * an `onRequest` hook (before the body is parsed), Fastify's JSON body parser, the body checked
 * by a compiled TypeBox validator (`validatorCompiler`), objects sent as JSON. No logger.
 * Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import Fastify from "fastify";
import {
  DEPRECATION_HEADERS,
  isAuthorized,
  isNewPet,
  listenAddress,
  NewPetSchema,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

const store = new PetMemoryStore();
const { port, host } = listenAddress();
const app = Fastify({ logger: false });

// TypeBox compiles the check once; Fastify calls it for every body (instead of Ajv).
app.setValidatorCompiler(() => (value: unknown) =>
  isNewPet(value) ? { value } : { error: new Error("Invalid NewPet") }
);

app.addHook("onRequest", (request, reply, done) => {
  if (!isAuthorized(request.headers.authorization)) {
    // Answered here: Fastify then skips the rest of the lifecycle (and never reads the body).
    reply.code(401).header("content-type", "application/json")
      .header("www-authenticate", 'Bearer realm="animal-store"').send(UNAUTHORIZED_BODY);
    return;
  }
  reply.header("cache-control", "no-store");
  done();
});

app.get("/v1/pets", (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const parsed = parseListQuery((name) => query[name]);
  if (typeof parsed === "string") {
    return reply.code(400).send({ code: "invalid_query", message: parsed, status: 400 });
  }
  const page = store.list(parsed);
  if (page.hasMore) reply.header("link", nextLink(parsed, page.pets[page.pets.length - 1].id));
  return reply.send(page.pets);
});

app.get("/v1/pets/:petId", (request, reply) => {
  reply.headers(DEPRECATION_HEADERS);
  const id = parsePetId((request.params as { petId: string }).petId);
  const pet = id === undefined ? undefined : store.get(id);
  if (pet === undefined) {
    return reply.code(404).send({ code: "not_found", message: "No pet", status: 404 });
  }
  return reply.send(pet);
});

app.post("/v1/pets", { schema: { body: NewPetSchema } }, (request, reply) => {
  const pet = store.create(request.body as Parameters<PetMemoryStore["create"]>[0]);
  return reply.code(201).header("location", `/v1/pets/${pet.id}`).send(pet);
});

await app.listen({ port, host });
