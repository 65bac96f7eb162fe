/**
 * The OpenAPI 3.1 document of the service, built from the TypeBox schemas that validate
 * requests (`schemas/pet.ts`): one source of truth, served at `{BASE_PATH}/openapi.json` and
 * printed by the `openapi` sub-command. Its text comes from `stringifyExact`, so the int64
 * bounds are written digit for digit.
 */
import { DEPRECATED_AT, SUNSET_AT, SUNSET_VALUE } from "../http/deprecation.ts";
import { ErrorBody } from "../schemas/error.ts";
import { INT64_MAX, NewPet, Pet, Pets, PetStatus } from "../schemas/pet.ts";
import { VERSION } from "../version.ts";
import { headerRef, HEADERS, parameterRef, PARAMETERS, SECURITY_SCHEMES } from "./components.ts";
import { errorResponses } from "./error_responses.ts";
import { type ExactJsonValue, stringifyExact } from "./exact_json.ts";
import { componentSchemas } from "./schema_to_json.ts";

type Json = { [key: string]: ExactJsonValue };

/** What the document depends on: where the API lives. */
export interface DocumentOptions {
  /** `BASE_PATH`, e.g. `/v1` (`""` for the root). */
  readonly basePath: string;
  /** `PUBLIC_URL` (an origin), when set. */
  readonly publicUrl?: string;
}

const SECURITY = [{ bearerAuth: [] }];
const DEPRECATED_ON = new Date(DEPRECATED_AT).toISOString().slice(0, 10);
/** On every response of every operation: all of them need a key. */
const COMMON_HEADERS: Json = {
  "X-Request-Id": headerRef("XRequestId"),
  "Cache-Control": headerRef("CacheControl"),
  RateLimit: headerRef("RateLimit"),
  "RateLimit-Policy": headerRef("RateLimitPolicy"),
};
const DEPRECATION_HEADERS: Json = {
  Deprecation: headerRef("Deprecation"),
  Sunset: headerRef("Sunset"),
  Link: headerRef("SuccessorLink"),
};
/** The validator and caching headers of a cacheable GET's 200 and 304. */
const CACHING_HEADERS: Json = {
  ETag: headerRef("ETag"),
  "Cache-Control": headerRef("CacheControlRevalidate"),
  Vary: headerRef("VaryAcceptEncoding"),
};
// Placeholders on the example domain the servers use: a deployment states its own.
const CONTACT: Json = {
  name: "Animal Store API team",
  url: "https://pets.example.com/support",
  email: "api@pets.example.com",
};
const LICENSE: Json = { name: "Proprietary", url: "https://pets.example.com/terms" };

/** The 304 of a cacheable GET; `extra` are the headers every response of the path has. */
function notModified(extra: Json = {}): Json {
  return {
    description: "Not Modified: `If-None-Match` matched the current `ETag`; no body",
    headers: {
      ...COMMON_HEADERS,
      ...extra,
      // After the common ones: these GETs may be kept by the client, so their Cache-Control wins.
      ...CACHING_HEADERS,
    },
  };
}

const rex = { id: 1, name: "Rex", categoryId: 7, status: "available" };
const tom = { id: 2, name: "Tom", categoryId: INT64_MAX };

/** The document as a value (int64 bounds as bigints). */
export function openApiDocument(options: DocumentOptions): Json {
  const schemas = componentSchemas({ PetStatus, NewPet, Pet, Pets, Error: ErrorBody });
  return {
    openapi: "3.1.0",
    info: {
      title: "Animal Store API",
      version: "1.0.0",
      contact: CONTACT,
      license: LICENSE,
      summary: "List, add and get the animals a store offers",
      description:
        `A JSON HTTP service for a store's catalogue of animals. Every operation needs an API key as a bearer token. \`categoryId\` is any int64, kept digit for digit (parse responses with a big-integer-aware JSON parser to keep values beyond 2^53). Served by animal-store ${VERSION}.`,
    },
    servers: servers(options),
    security: SECURITY,
    tags: [{ name: "pets", description: "The animals of the store" }],
    paths: {
      "/pets": { get: listPets(), post: createPet() },
      "/pets/{petId}": { get: getPet() },
    },
    components: {
      schemas,
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

/** The document as served: exact JSON text, pretty-printed. */
export function openApiJson(options: DocumentOptions): string {
  return stringifyExact(openApiDocument(options)) + "\n";
}

function servers(options: DocumentOptions): Json[] {
  if (options.publicUrl !== undefined) {
    return [{ url: `${options.publicUrl}${options.basePath}`, description: "This deployment" }];
  }
  const server = (description: string, origin: string): Json => ({
    url: `{origin}${options.basePath}`,
    description,
    variables: {
      origin: { default: origin, description: `Scheme and host of the ${description} service` },
    },
  });
  return [
    server("production", "https://pets.example.com"),
    server("staging", "https://staging.pets.example.com"),
  ];
}

function json(schemaName: string, examples: Json): Json {
  return {
    "application/json": { schema: { $ref: `#/components/schemas/${schemaName}` }, examples },
  };
}

function listPets(): Json {
  return {
    operationId: "listPets",
    summary: "List pets",
    description:
      'Pets in ascending id order, as a plain JSON array. When more follow, the `Link` header has the next page\'s URL (`rel="next"`); walking the links returns every matching pet exactly once, even while pets are created. A full page never changes (only a full last page gains its `next` link): revalidate with `If-None-Match` and the `ETag` to get a 304. Bodies over 1 KiB come as br or gzip when `Accept-Encoding` allows.',
    tags: ["pets"],
    security: SECURITY,
    parameters: ["limit", "status", "cursor", "ifNoneMatch", "requestId"].map(parameterRef),
    responses: {
      "200": {
        description: "A page of pets",
        headers: {
          "Content-Encoding": headerRef("ContentEncoding"),
          Link: headerRef("NextLink"),
          ...COMMON_HEADERS,
          ...CACHING_HEADERS,
        },
        content: json("Pets", {
          page: { summary: "A page of two pets", value: [rex, tom] },
          empty: { summary: "No pet matches", value: [] },
        }),
      },
      "304": notModified(),
      ...errorResponses([400, 401, 429, 500, 503], {
        only400: ["invalid_query"],
        extraHeaders: COMMON_HEADERS,
      }),
    },
  };
}

function createPet(): Json {
  return {
    operationId: "createPet",
    summary: "Add a pet",
    description:
      "Stores the pet durably (fsync) before answering 201. Send `Idempotency-Key` to make a retry safe.",
    tags: ["pets"],
    security: SECURITY,
    parameters: ["idempotencyKey", "requestId"].map(parameterRef),
    requestBody: {
      required: true,
      description: "The pet to add; any other field is refused",
      content: json("NewPet", {
        available: {
          summary: "With a status",
          value: { name: "Rex", categoryId: 7, status: "available" },
        },
        int64: {
          summary: "Without a status, largest categoryId",
          value: { name: "Tom", categoryId: INT64_MAX },
        },
      }),
    },
    responses: {
      "201": {
        description: "Added (or replayed for a repeated Idempotency-Key)",
        headers: {
          Location: headerRef("Location"),
          "Idempotent-Replayed": headerRef("IdempotentReplayed"),
          ...COMMON_HEADERS,
        },
        content: json("Pet", { created: { summary: "The new pet", value: rex } }),
      },
      ...errorResponses([400, 401, 409, 413, 415, 422, 429, 500, 503], {
        only400: ["invalid_body", "validation_failed"],
        extraHeaders: COMMON_HEADERS,
      }),
    },
  };
}

function getPet(): Json {
  return {
    operationId: "getPet",
    summary: "Get a pet (deprecated)",
    description:
      `Deprecated since ${DEPRECATED_ON}; sunset ${SUNSET_VALUE}: from then on it answers 410 \`gone\`. Use \`GET /pets\` with the \`status\` filter instead. Every response carries \`Deprecation\`, \`Sunset\` and a \`Link\` to the successor.`,
    tags: ["pets"],
    deprecated: true,
    "x-sunset": new Date(SUNSET_AT).toISOString(),
    security: SECURITY,
    parameters: ["petId", "ifNoneMatch", "requestId"].map(parameterRef),
    responses: {
      "200": {
        description: "The pet",
        headers: {
          "Content-Encoding": headerRef("ContentEncoding"),
          ...DEPRECATION_HEADERS,
          ...COMMON_HEADERS,
          ...CACHING_HEADERS,
        },
        content: json("Pet", { pet: { summary: "A pet", value: rex } }),
      },
      "304": notModified(DEPRECATION_HEADERS),
      ...errorResponses([400, 401, 404, 410, 429, 500, 503], {
        only400: ["invalid_path"],
        extraHeaders: { ...DEPRECATION_HEADERS, ...COMMON_HEADERS },
      }),
    },
  };
}
