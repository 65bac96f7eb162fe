/** The three pet operations of the seed: listPets, createPet and getPet (deprecated). */
import type { RequestContext } from "../http/context.ts";
import type { Config } from "../config/config.ts";
import { isJsonContentType, readJsonBody } from "../http/body.ts";
import { HttpError } from "../http/errors.ts";
import { encodeCursor } from "../http/pagination.ts";
import { jsonReply, type Reply } from "../http/responses.ts";
import type { Route } from "../http/router.ts";
import { validateNewPet } from "../schemas/validate.ts";
import { listQueryString, parseIdempotencyKey, parseListQuery, parsePetId } from "./pet_params.ts";
import { idempotencyClaim } from "../store/idempotency.ts";
import { createCacheableReads } from "../cache/cacheable_reads.ts";
import type { BrotliEncoder } from "../http/compression.ts";

/** Routes under BASE_PATH for pets; `brotli` compresses their br bodies (node:zlib's if absent). */
export function petRoutes(
  deps: { config: Config; brotli?: BrotliEncoder },
): Route<RequestContext, Reply>[] {
  const { config } = deps;
  const publicBase = `${config.publicUrl ?? ""}${config.basePath}`;

  const reads = createCacheableReads(config.cacheBytes, deps.brotli);

  function listPets(context: RequestContext): Promise<Reply> {
    const query = parseListQuery(context.query);
    return reads.page(context.request, context.store(), query, (lastId) => {
      const cursor = encodeCursor({ afterId: lastId, status: query.status });
      return `<${publicBase}/pets?${listQueryString(query, cursor)}>; rel="next"`;
    });
  }

  async function createPet(context: RequestContext): Promise<Reply> {
    const { request } = context;
    if (!isJsonContentType(request.headers.get("content-type"))) {
      throw new HttpError(415, "unsupported_media_type", "Content-Type must be application/json");
    }
    const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
    const body = await readJsonBody(request, config.maxBodyBytes);
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new HttpError(
        400,
        "invalid_body",
        "Cannot use body: it must be a JSON object (a NewPet)",
      );
    }
    const validation = validateNewPet(body);
    if (!validation.ok) {
      const fields = validation.details.map((detail) => detail.message).join("; ");
      throw new HttpError(400, "validation_failed", `Invalid NewPet: ${fields}`, {
        details: validation.details,
      });
    }
    const newPet = validation.value;
    const claim = idempotencyKey === undefined
      ? undefined
      : idempotencyClaim(context.keyScope, idempotencyKey, newPet);
    const outcome = await context.store().create(newPet, claim);
    switch (outcome.kind) {
      case "created":
      case "replayed": {
        const headers: Record<string, string> = {
          location: `${publicBase}/pets/${outcome.pet.id}`,
        };
        if (outcome.kind === "replayed") headers["idempotent-replayed"] = "true";
        return jsonReply(outcome.pet.json, 201, headers);
      }
      case "key_reused":
        throw new HttpError(
          422,
          "idempotency_key_reused",
          "Idempotency-Key was already used with a different body",
        );
      case "key_in_flight":
        throw new HttpError(
          409,
          "idempotency_key_in_flight",
          "A request with this Idempotency-Key is still being processed; retry later",
          {
            headers: { "retry-after": "1" },
          },
        );
      case "unavailable":
        throw new HttpError(
          503,
          "unavailable",
          "The pet could not be stored; nothing was saved, retry later",
          {
            headers: { "retry-after": "1" },
          },
        );
    }
  }

  async function getPet(context: RequestContext): Promise<Reply> {
    const id = parsePetId(context.params.petId);
    const reply = id === undefined
      ? undefined
      : await reads.pet(context.request, context.store(), id);
    if (reply === undefined) {
      throw new HttpError(404, "not_found", `No pet with id ${context.params.petId}`);
    }
    return reply;
  }

  return [
    { method: "GET", pattern: "/pets", handler: listPets },
    { method: "POST", pattern: "/pets", handler: createPet },
    { method: "GET", pattern: "/pets/:petId", handler: getPet, options: { deprecated: true } },
  ];
}
