/** The three pet operations of the seed: listPets, createPet and getPet (deprecated). */
import type { AppRoute, RequestContext } from "../app/context.ts";
import { unavailable } from "../app/lifecycle.ts";
import type { Config } from "../config/config.ts";
import { readJsonBody, unsupportedBodyReason } from "../http/body.ts";
import { HttpError, RETRY_IN_A_SECOND } from "../http/errors.ts";
import type { BrotliEncoder, Reply } from "../runtime/contract.ts";
import { validateNewPet } from "../schemas/validate.ts";
import { ERROR_MESSAGES } from "../schemas/error.ts";
import { parseIdempotencyKey, parseListQuery, parsePetId } from "./pet_params.ts";
import { idempotencyClaim, MAX_PET_ID } from "../store/store.ts";
import { createConditionalGet } from "../http/conditional_get.ts";
import type { Operation } from "../openapi/document.ts";
import { INT64_MAX } from "../schemas/pet.ts";

const newRex = { name: "Rex", categoryId: 7, status: "available" };
const newTom = { name: "Tom", categoryId: INT64_MAX };
const rex = { id: 1, ...newRex };
const tom = { id: 2, ...newTom };

const ID_SPACE_EXHAUSTED =
  `The pet could not be stored: the id space is exhausted (ids stop at ${MAX_PET_ID}); nothing was saved`;
const SAFE_RETRY = "so it may or may not have been saved. A retry with the same Idempotency-Key " +
  "is safe (it returns the pet if it was saved)";
/** A 503 whose create may have been stored after all, by why the store cannot tell. */
const OUTCOME_UNKNOWN = {
  data_file_failed: "The outcome is unknown: the data file failed while this pet was being " +
    `written, ${SAFE_RETRY}; the service takes no creates until restarted`,
  commit_unconfirmed: "The outcome is unknown: the connection to the database was lost while " +
    `this pet was being committed, ${SAFE_RETRY}`,
} as const;

/** The pet routes as data: each one's method and pattern, and what the OpenAPI document says. */
export const PET_OPERATIONS: readonly Operation<"listPets" | "createPet" | "getPet">[] = [
  {
    method: "GET",
    pattern: "/pets",
    operationId: "listPets",
    summary: "List pets",
    description:
      'Pets in ascending id order, as a plain JSON array. When more follow, the `Link` header has the next page\'s URL (`rel="next"`); walking the links returns every matching pet exactly once, even while pets are created. A full page never changes (only a full last page gains its `next` link): revalidate with `If-None-Match` and the `ETag` to get a 304. Bodies over 1 KiB come as br or gzip when `Accept-Encoding` allows.',
    cacheable: true,
    parameters: ["limit", "status", "cursor"],
    response: {
      status: 200,
      description: "A page of pets",
      headers: { Link: "NextLink" },
      schema: "Pets",
      examples: {
        page: { summary: "A page of two pets", value: [rex, tom] },
        empty: { summary: "No pet matches", value: [] },
      },
    },
    errors: ["invalid_query"],
  },
  {
    method: "POST",
    pattern: "/pets",
    operationId: "createPet",
    summary: "Add a pet",
    description:
      "Stores the pet durably (fsync) before answering 201. Send `Idempotency-Key` to make a retry safe.",
    parameters: ["idempotencyKey"],
    requestBody: {
      description: "The pet to add; any other field is refused",
      schema: "NewPet",
      examples: {
        available: { summary: "With a status", value: newRex },
        int64: { summary: "Without a status, largest categoryId", value: newTom },
      },
    },
    response: {
      status: 201,
      description: "Added (or replayed for a repeated Idempotency-Key)",
      headers: { Location: "Location", "Idempotent-Replayed": "IdempotentReplayed" },
      schema: "Pet",
      examples: { created: { summary: "The new pet", value: rex } },
    },
    errors: [
      "invalid_body",
      "validation_failed",
      "idempotency_key_in_flight",
      "payload_too_large",
      "unsupported_media_type",
      "idempotency_key_reused",
    ],
  },
  {
    method: "GET",
    pattern: "/pets/:petId",
    operationId: "getPet",
    summary: "Get a pet (deprecated)",
    description: "Use `GET /pets` with the `status` filter instead.",
    deprecated: true,
    cacheable: true,
    response: {
      status: 200,
      description: "The pet",
      schema: "Pet",
      examples: { pet: { summary: "A pet", value: rex } },
    },
    errors: ["invalid_path", "not_found"],
  },
];

/** Routes under BASE_PATH for pets; `brotli` compresses their br bodies. */
export function petRoutes(deps: { config: Config; brotli?: BrotliEncoder }): AppRoute[] {
  const { config, brotli } = deps;
  const publicBase = `${config.publicUrl ?? ""}${config.basePath}`;
  const reads = createConditionalGet({ cacheBytes: config.cacheBytes, brotli, publicBase });

  function listPets(context: RequestContext): Promise<Reply> | Reply {
    return reads.page(context, parseListQuery(context.query));
  }

  async function createPet(context: RequestContext): Promise<Reply> {
    const { request } = context;
    const type = request.headers.get("content-type");
    const unsupported = unsupportedBodyReason(type, request.headers.get("content-encoding"));
    if (unsupported !== undefined) throw new HttpError(415, "unsupported_media_type", unsupported);
    const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
    const body = await readJsonBody(request, config.maxBodyBytes);
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new HttpError(400, "invalid_body", ERROR_MESSAGES.notJsonObject);
    }
    const validation = validateNewPet(body);
    if (!validation.ok) {
      const fields = validation.details.map((detail) => detail.message).join("; ");
      throw new HttpError(400, "validation_failed", ERROR_MESSAGES.invalidNewPet(fields), {
        details: validation.details,
      });
    }
    const claim = idempotencyKey === undefined
      ? undefined
      : idempotencyClaim(context.keyScope, idempotencyKey, validation.value);
    const outcome = await context.store().create(validation.value, claim);
    switch (outcome.kind) {
      case "created":
      case "replayed": {
        const headers: Record<string, string> = {
          ...context.headers.reply,
          location: `${publicBase}/pets/${outcome.pet.id}`,
        };
        if (outcome.kind === "replayed") headers["idempotent-replayed"] = "true";
        return { status: 201, body: outcome.pet.json, headers };
      }
      case "key_reused":
        throw new HttpError(422, "idempotency_key_reused", ERROR_MESSAGES.keyReused);
      case "key_in_flight": {
        const retry = { headers: RETRY_IN_A_SECOND };
        throw new HttpError(409, "idempotency_key_in_flight", ERROR_MESSAGES.keyInFlight, retry);
      }
      case "unavailable":
        // No retry helps once the ids run out (docs/operations.md, "The id ceiling").
        if (outcome.idSpaceExhausted) throw new HttpError(503, "unavailable", ID_SPACE_EXHAUSTED);
        throw unavailable(
          outcome.outcomeUnknown === undefined
            ? "The pet could not be stored; nothing was saved, retry later"
            : OUTCOME_UNKNOWN[outcome.outcomeUnknown],
        );
    }
  }

  function getPet(context: RequestContext): Promise<Reply> | Reply {
    const id = parsePetId(context.params.petId);
    const reply = id === undefined ? undefined : reads.pet(context, id);
    if (reply instanceof Promise) return reply.then((reply) => reply ?? noSuchPet(context));
    return reply ?? noSuchPet(context);
  }

  function noSuchPet(context: RequestContext): never {
    throw new HttpError(404, "not_found", ERROR_MESSAGES.noPet(context.params.petId));
  }

  const handlers = { listPets, createPet, getPet };
  return PET_OPERATIONS.map(({ method, pattern, operationId, deprecated }) => ({
    method,
    pattern,
    handler: handlers[operationId],
    options: { deprecated, readsStore: true },
  }));
}
