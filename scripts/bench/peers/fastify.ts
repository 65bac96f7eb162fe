/**
 * Fastify on Node. `PEER=as-is`: as its users write the endpoints (auth in an `onRequest` hook,
 * Fastify's JSON parser, a compiled TypeBox validator, no logger). `PEER=same-work`: also our
 * contract's duties in Fastify's idiom (its pino logger, asynchronous, one line from
 * `onResponse`; `genReqId`; the headers and the key in `onRequest`; ETag, Cache-Control, Vary,
 * 304). `PEER=postgres`: the same-work server on PostgreSQL (`pet_table.ts`).
 */
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { pino } from "pino";
import {
  acceptedKey,
  type BenchPet,
  DEPRECATION_HEADERS,
  isAuthorized,
  isNewPet,
  listenAddress,
  NewPetSchema,
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

declare module "fastify" {
  interface FastifyRequest {
    /** The accepted key's fingerprint, for the log line. */
    keyFingerprint: string | undefined;
  }
}

const sameWork = VARIANT !== "as-is";
const app = Fastify(
  sameWork
    ? {
      loggerInstance: pino({
        base: undefined,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      }, pino.destination({ dest: 1, sync: false })),
      // Fastify 5.12's form of `disableRequestLogging: true` and `requestIdLogLabel`.
      logController: new LogController({
        disableRequestLogging: true,
        requestIdLogLabel: "requestId",
      }),
      requestIdHeader: false,
      genReqId: (request) => {
        const header = request.headers["x-request-id"];
        return requestIdFor(typeof header === "string" ? header : undefined);
      },
    }
    : { logger: false },
);
app.decorateRequest("keyFingerprint", undefined);

// TypeBox compiles the check once; Fastify calls it for every body (instead of Ajv).
app.setValidatorCompiler(() => (value: unknown) =>
  isNewPet(value) ? { value } : { error: new Error("Invalid NewPet") }
);

const unauthorized = (reply: FastifyReply) =>
  reply.code(401).header("content-type", "application/json")
    .header("www-authenticate", 'Bearer realm="animal-store"').send(UNAUTHORIZED_BODY);

if (!sameWork) {
  app.addHook("onRequest", (request, reply, done) => {
    // Answered here: Fastify then skips the rest of the lifecycle (and never reads the body).
    if (!isAuthorized(request.headers.authorization)) return void unauthorized(reply);
    reply.header("cache-control", "no-store");
    done();
  });
} else {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    reply.header("x-content-type-options", NOSNIFF);
    reply.header("cache-control", NO_STORE);
    if (request.routeOptions.url === "/v1/pets/:petId") reply.headers(DEPRECATION_HEADERS);
    request.keyFingerprint = acceptedKey(request.headers.authorization);
    if (request.keyFingerprint === undefined) return void unauthorized(reply);
    done();
  });
  app.addHook("onResponse", (request, reply, done) => {
    const query = request.url.indexOf("?");
    request.log.info({
      method: request.method,
      path: query === -1 ? request.url : request.url.slice(0, query),
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      key: request.keyFingerprint,
    }, "request");
    done();
  });
}

/** A same-work read's answer: `ETag`, `Cache-Control`, `Vary`, the next page's `Link`, 304. */
function sendRead(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  body: unknown,
  link?: string,
) {
  reply.header("etag", etag).header("cache-control", REVALIDATE).header("vary", VARY);
  if (link !== undefined) reply.header("link", link);
  if (tagMatches(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.send(body);
}

const queryOf = (request: FastifyRequest) => {
  const query = request.query as Record<string, string | undefined>;
  return parseListQuery((name) => query[name]);
};
const badQuery = (reply: FastifyReply, message: string) =>
  reply.code(400).send({ code: "invalid_query", message, status: 400 });
const petIdOf = (request: FastifyRequest) =>
  parsePetId((request.params as { petId: string }).petId);
const badId = (reply: FastifyReply) =>
  reply.code(400).send({ code: "invalid_path", message: "Bad pet id", status: 400 });
const notFound = (reply: FastifyReply) =>
  reply.code(404).send({ code: "not_found", message: "No pet", status: 404 });

if (VARIANT === "postgres") {
  const table = await openPetTable();
  app.addHook("onClose", () => table.close());
  app.get("/v1/pets", async (request, reply) => {
    const query = queryOf(request);
    if (typeof query === "string") return badQuery(reply, query);
    const page = await table.page(query);
    const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
    return sendRead(request, reply, pageTag(query, page), page.pets, link);
  });
  app.get("/v1/pets/:petId", async (request, reply) => {
    const id = petIdOf(request);
    if (id === undefined) return badId(reply);
    const pet = await table.get(id);
    return pet === undefined ? notFound(reply) : sendRead(request, reply, petTag(id), pet);
  });
  app.post("/v1/pets", { schema: { body: NewPetSchema } }, async (request, reply) => {
    const pet = await table.create(request.body as Omit<BenchPet, "id">);
    return reply.code(201).header("location", `/v1/pets/${pet.id}`).send(pet);
  });
} else {
  const store = new PetMemoryStore();
  app.get("/v1/pets", (request, reply) => {
    const query = queryOf(request);
    if (typeof query === "string") return badQuery(reply, query);
    const page = store.list(query);
    const link = page.hasMore ? nextLink(query, page.pets[page.pets.length - 1].id) : undefined;
    if (sameWork) return sendRead(request, reply, pageTag(query, page), page.pets, link);
    if (link !== undefined) reply.header("link", link);
    return reply.send(page.pets);
  });
  app.get("/v1/pets/:petId", (request, reply) => {
    const id = petIdOf(request);
    if (!sameWork) reply.headers(DEPRECATION_HEADERS);
    else if (id === undefined) return badId(reply);
    const pet = id === undefined ? undefined : store.get(id);
    if (pet === undefined) return notFound(reply);
    return sameWork ? sendRead(request, reply, petTag(pet.id), pet) : reply.send(pet);
  });
  app.post("/v1/pets", { schema: { body: NewPetSchema } }, (request, reply) => {
    const pet = store.create(request.body as Omit<BenchPet, "id">);
    return reply.code(201).header("location", `/v1/pets/${pet.id}`).send(pet);
  });
}

const { port, host } = listenAddress();
await app.listen({ port, host });
