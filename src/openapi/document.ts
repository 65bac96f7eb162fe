/**
 * The OpenAPI 3.1 document, from the operations the routes declare and the schemas that validate
 * requests; what follows from a route (parameters, deprecation, caching, errors) is derived here.
 */
import { DEPRECATED_AT, SUNSET_AT, SUNSET_VALUE } from "../http/deprecation.ts";
import { ErrorBody, type ErrorCode } from "../schemas/error.ts";
import { NewPet, Pet, Pets, PetStatus } from "../schemas/pet.ts";
import { VERSION } from "../app/version.ts";
import {
  errorResponses,
  type HeaderName,
  headerRefs,
  HEADERS,
  type ParameterName,
  parameterRef,
  PARAMETERS,
  SECURITY_SCHEMES,
} from "./components.ts";
import type { ExactJsonObject as Json, ExactJsonValue } from "./schema_to_json.ts";
import { componentSchemas } from "./schema_to_json.ts";

const SCHEMAS = { PetStatus, NewPet, Pet, Pets, Error: ErrorBody };

/** A body: its schema's name under `components.schemas`, and named examples. */
export interface Body {
  readonly description: string;
  readonly schema: keyof typeof SCHEMAS;
  readonly examples: Record<string, { summary: string; value: ExactJsonValue }>;
}

/** One operation, declared next to its route; the document derives the rest from it. */
export interface Operation<Id extends string = string> {
  readonly method: "GET" | "POST";
  /** The router's pattern: each `:name` segment is the path parameter `name`. */
  readonly pattern: string;
  readonly operationId: Id;
  readonly summary: string;
  readonly description: string;
  /** Also what makes the app send the deprecation headers, and 410 from the sunset on. */
  readonly deprecated?: boolean;
  /** A GET answered with an `ETag`, revalidated to 304, compressed when allowed. */
  readonly cacheable?: boolean;
  /** Query and header parameters (path parameters come from the pattern). */
  readonly parameters?: readonly ParameterName[];
  readonly requestBody?: Body;
  /** The success response and the headers it adds to those every response has. */
  readonly response: Body & {
    readonly status: 200 | 201;
    readonly headers?: Readonly<Record<string, HeaderName>>;
  };
  /** The error codes it can answer beyond those of every authenticated operation. */
  readonly errors: readonly ErrorCode[];
}

/** Where the API lives: `BASE_PATH` and `PUBLIC_URL`. */
export type DocumentOptions = { readonly basePath: string; readonly publicUrl?: string };

const SECURITY = [{ bearerAuth: [] }];
const DEPRECATED_SINCE = `Deprecated since ${
  new Date(DEPRECATED_AT).toISOString().slice(0, 10)
}; sunset ${SUNSET_VALUE}: from then on it answers 410 \`gone\`.`;
const DEPRECATED_HEADERS =
  "Every response carries `Deprecation`, `Sunset` and a `Link` to the successor.";
/** A key missing or refused, a quota spent, a fault, a store not ready: any operation with a key. */
const KEYED_ERRORS: ErrorCode[] = ["unauthorized", "rate_limited", "internal_error", "unavailable"];
const SITE = "https://pets.example.com";
const TAG = { name: "pets", description: "The animals of the store" };
/** On every response of every operation: all of them need a key. */
const COMMON_HEADERS = headerRefs({
  "X-Request-Id": "XRequestId",
  "Cache-Control": "CacheControl",
  RateLimit: "RateLimit",
  "RateLimit-Policy": "RateLimitPolicy",
});
const DEPRECATION_HEADERS = headerRefs({
  Deprecation: "Deprecation",
  Sunset: "Sunset",
  Link: "SuccessorLink",
});
const CACHING_HEADERS = headerRefs({
  ETag: "ETag",
  "Cache-Control": "CacheControlRevalidate",
  Vary: "VaryAcceptEncoding",
});

/** The document of these operations, as a value (int64 bounds as bigints). */
export function openApiDocument(options: DocumentOptions, operations: readonly Operation[]): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    const path = operation.pattern.replace(/:([A-Za-z0-9]+)/g, "{$1}");
    paths[path] = { ...paths[path], [operation.method.toLowerCase()]: describe(operation) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Animal Store API",
      version: "1.0.0",
      // Placeholders on the example domain the servers use: a deployment states its own.
      contact: {
        name: "Animal Store API team",
        url: `${SITE}/support`,
        email: "api@pets.example.com",
      },
      license: { name: "Proprietary", url: `${SITE}/terms` },
      summary: "List, add and get the animals a store offers",
      description:
        `A JSON HTTP service for a store's catalogue of animals. Every operation needs an API key as a bearer token. \`categoryId\` is any int64, kept digit for digit (parse responses with a big-integer-aware JSON parser to keep values beyond 2^53). Served by animal-store ${VERSION}.`,
    },
    servers: servers(options),
    security: SECURITY,
    tags: [TAG],
    paths,
    components: {
      schemas: componentSchemas(SCHEMAS),
      parameters: PARAMETERS,
      headers: HEADERS,
      securitySchemes: SECURITY_SCHEMES,
    },
  };
}

function servers({ basePath, publicUrl }: DocumentOptions): Json[] {
  if (publicUrl !== undefined) {
    return [{ url: `${publicUrl}${basePath}`, description: "This deployment" }];
  }
  return [["production", SITE], ["staging", "https://staging.pets.example.com"]].map(
    ([description, origin]) => {
      const variable = {
        default: origin,
        description: `Scheme and host of the ${description} service`,
      };
      return { url: `{origin}${basePath}`, description, variables: { origin: variable } };
    },
  );
}

function describe(operation: Operation): Json {
  const { deprecated = false, cacheable = false, response } = operation;
  const pathParameters = [...operation.pattern.matchAll(/:([A-Za-z0-9]+)/g)].map((m) => m[1]);
  const parameters = [
    ...pathParameters,
    ...operation.parameters ?? [],
    ...cacheable ? ["ifNoneMatch"] : [],
    "requestId",
  ];
  const deprecation = deprecated ? DEPRECATION_HEADERS : {};
  const always = { ...deprecation, ...COMMON_HEADERS };
  const errors = [...operation.errors, ...KEYED_ERRORS, ...deprecated ? ["gone" as const] : []];
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: deprecated
      ? `${DEPRECATED_SINCE} ${operation.description} ${DEPRECATED_HEADERS}`
      : operation.description,
    tags: [TAG.name],
    deprecated: deprecated || undefined,
    "x-sunset": deprecated ? new Date(SUNSET_AT).toISOString() : undefined,
    security: SECURITY,
    parameters: parameters.map(parameterRef),
    requestBody: operation.requestBody === undefined ? undefined : {
      required: true,
      description: operation.requestBody.description,
      content: content(operation.requestBody),
    },
    responses: {
      [response.status]: {
        description: response.description,
        headers: {
          ...cacheable ? headerRefs({ "Content-Encoding": "ContentEncoding" }) : {},
          ...headerRefs(response.headers ?? {}),
          ...always,
          // Last: these GETs may be kept by the client, so their Cache-Control wins.
          ...cacheable ? CACHING_HEADERS : {},
        },
        content: content(response),
      },
      "304": cacheable
        ? {
          description: "Not Modified: `If-None-Match` matched the current `ETag`; no body",
          headers: { ...COMMON_HEADERS, ...deprecation, ...CACHING_HEADERS },
        }
        : undefined,
      ...errorResponses(errors, always),
    },
  };
}

function content(body: Body): Json {
  const schema = { $ref: `#/components/schemas/${body.schema}` };
  return { "application/json": { schema, examples: body.examples } };
}
