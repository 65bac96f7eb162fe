/**
 * The three pet endpoints in Fastify on Node doing the duties our contract puts on each request,
 * in Fastify's idiom: its pino logger (ISO time, level names, no pid or hostname, written
 * asynchronously so lines leave in batches) with `disableRequestLogging` and one line per
 * request from an `onResponse` hook (the same fields as ours, the request id as pino's binding);
 * `genReqId` applies the same request-id rule as ours; an `onRequest` hook sets `X-Request-Id`,
 * `nosniff` and, on `/v1/pets/:petId`, the deprecation trio, then checks the key with a Map
 * lookup (before the body is parsed). The reads send an `ETag` made from the ids served,
 * `Cache-Control: private, no-cache` and `Vary`, and answer 304 when `If-None-Match` holds the
 * tag; a create sends `Location`. Listens on `HOST`:`PORT`. Dev-only benchmark peer.
 */
import Fastify, { LogController } from "fastify";
import { pino } from "pino";
import {
  acceptedKey,
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
  isNewPet,
  listenAddress,
  NewPetSchema,
  nextLink,
  parseListQuery,
  parsePetId,
  PetMemoryStore,
  UNAUTHORIZED_BODY,
} from "./pet_fixture.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The accepted key's fingerprint, for the log line. */
    keyFingerprint: string | undefined;
  }
}

const store = new PetMemoryStore();
const { port, host } = listenAddress();

const logger = pino({
  base: undefined,
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
}, pino.destination({ dest: 1, sync: false }));

const app = Fastify({
  loggerInstance: logger,
  // Fastify 5.12's form of `disableRequestLogging: true` and `requestIdLogLabel`.
  logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: "requestId" }),
  requestIdHeader: false,
  genReqId: (request) => {
    const header = request.headers["x-request-id"];
    return requestIdFor(typeof header === "string" ? header : undefined);
  },
});
app.decorateRequest("keyFingerprint", undefined);

// TypeBox compiles the check once; Fastify calls it for every body (instead of Ajv).
app.setValidatorCompiler(() => (value: unknown) =>
  isNewPet(value) ? { value } : { error: new Error("Invalid NewPet") }
);

app.addHook("onRequest", (request, reply, done) => {
  reply.header("x-request-id", request.id);
  reply.header("x-content-type-options", NOSNIFF);
  reply.header("cache-control", NO_STORE);
  if (request.routeOptions.url === "/v1/pets/:petId") reply.headers(DEPRECATION_HEADERS);
  request.keyFingerprint = acceptedKey(request.headers.authorization);
  if (request.keyFingerprint === undefined) {
    // Answered here: Fastify then skips the rest of the lifecycle (and never reads the body).
    reply.code(401).header("content-type", "application/json")
      .header("www-authenticate", 'Bearer realm="animal-store"').send(UNAUTHORIZED_BODY);
    return;
  }
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

app.get("/v1/pets", (request, reply) => {
  const query = request.query as Record<string, string | undefined>;
  const parsed = parseListQuery((name) => query[name]);
  if (typeof parsed === "string") {
    return reply.code(400).send({ code: "invalid_query", message: parsed, status: 400 });
  }
  const page = store.list(parsed);
  const etag = pageTag(parsed, page);
  reply.header("etag", etag).header("cache-control", REVALIDATE).header("vary", VARY);
  if (page.hasMore) reply.header("link", nextLink(parsed, page.pets[page.pets.length - 1].id));
  if (tagMatches(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.send(page.pets);
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
  const etag = petTag(id);
  reply.header("etag", etag).header("cache-control", REVALIDATE).header("vary", VARY);
  if (tagMatches(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.send(pet);
});

app.post("/v1/pets", { schema: { body: NewPetSchema } }, (request, reply) => {
  const pet = store.create(request.body as Parameters<PetMemoryStore["create"]>[0]);
  return reply.code(201).header("location", `/v1/pets/${pet.id}`).send(pet);
});

await app.listen({ port, host });
