/**
 * The duties our contract puts on every request, in Fastify's idiom, for the same-work Fastify
 * peers (`fastify_same_work_server.ts` on the memory store, `fastify_postgres_server.ts` on
 * PostgreSQL): its pino logger (ISO time, level names, no pid or hostname,
 * `pino.destination({ sync: false })` so lines leave in batches) with request logging off and
 * one line per request from an `onResponse` hook (the same fields as ours, the request id as
 * pino's binding); `genReqId` applies the same request-id rule as ours; an `onRequest` hook sets
 * `X-Request-Id`, `nosniff`, `Cache-Control: no-store` and, on `/v1/pets/:petId`, the
 * deprecation trio, then checks the key with a Map lookup (before the body is parsed). Bodies
 * are checked by the compiled TypeBox NewPet check. Dev-only benchmark code.
 */
import Fastify, { type FastifyReply, type FastifyRequest, LogController } from "fastify";
import { pino } from "pino";
import {
  acceptedKey,
  NO_STORE,
  NOSNIFF,
  requestIdFor,
  REVALIDATE,
  tagMatches,
  VARY,
} from "./contract_duties.ts";
import { DEPRECATION_HEADERS, isNewPet, UNAUTHORIZED_BODY } from "./pet_fixture.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The accepted key's fingerprint, for the log line. */
    keyFingerprint: string | undefined;
  }
}

/** A Fastify instance with the duties' logger and hooks, ready for its routes. */
export function createSameWorkFastify() {
  const logger = pino({
    base: undefined,
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  }, pino.destination({ dest: 1, sync: false }));

  const app = Fastify({
    loggerInstance: logger,
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

  return app;
}

/**
 * Answers a read the way both same-work Fastify servers do: `ETag`, `Cache-Control: private,
 * no-cache`, `Vary` and (a page with more) `Link`, then 304 when `If-None-Match` holds the tag,
 * else `body`.
 */
export function sendRead(
  request: FastifyRequest,
  reply: FastifyReply,
  etag: string,
  body: unknown,
  link?: string,
): FastifyReply {
  reply.header("etag", etag).header("cache-control", REVALIDATE).header("vary", VARY);
  if (link !== undefined) reply.header("link", link);
  if (tagMatches(request.headers["if-none-match"], etag)) return reply.code(304).send();
  return reply.send(body);
}
