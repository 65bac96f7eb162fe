/**
 * The OpenAPI 3.1 document from the operations the routes declare and the schemas that validate
 * requests: parameters, deprecation, caching and errors follow from each route, and the reusable
 * parts (parameters, headers, docs/api.md's error table) carry the values of the enforcing code.
 */
import { CHALLENGE_INVALID_KEY, CHALLENGE_NO_KEY } from "../http/auth.ts";
import {
  DEPRECATED_AT,
  DEPRECATION_VALUE,
  SUCCESSOR_REL,
  SUNSET_AT,
  SUNSET_VALUE,
} from "../http/deprecation.ts";
import { AUTHENTICATED_CACHE_CONTROL, REVALIDATE } from "../http/responses.ts";
import { ERROR_MESSAGES, ErrorBody, type ErrorCode } from "../schemas/error.ts";
import {
  DEFAULT_LIMIT,
  DEFAULT_MAX_BODY_BYTES,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_LENGTH,
  MAX_LIMIT,
  PET_ID_MAX,
  REQUEST_ID,
} from "../schemas/limits.ts";
import { NewPet, Pet, Pets, PetStatus } from "../schemas/pet.ts";
import { VERSION } from "../app/version.ts";
import type { ExactJsonObject as Json, ExactJsonValue } from "./schema_to_json.ts";
import { componentSchemas } from "./schema_to_json.ts";

function parameter(name: string, where: "query" | "path" | "header", rest: Json): Json {
  return { name, in: where, required: where === "path", ...rest };
}

const PARAMETERS = {
  limit: parameter("limit", "query", {
    description:
      `Page size: at most this many pets. Given twice, or not an integer from 1 to ${MAX_LIMIT}, is 400`,
    schema: { type: "integer", minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
  }),
  status: parameter("status", "query", {
    description: "Only pets with this status (pets created without a status never match)",
    schema: { $ref: "#/components/schemas/PetStatus" },
  }),
  cursor: parameter("cursor", "query", {
    description:
      'Opaque position from the `Link: <…>; rel="next"` header of the previous page; keep `limit` and `status` as they were. An altered cursor is 400',
    schema: { type: "string", minLength: 1 },
  }),
  petId: parameter("petId", "path", {
    description: "Identifier of the pet",
    schema: { type: "integer", format: "int64", minimum: 1, maximum: PET_ID_MAX },
  }),
  idempotencyKey: parameter("Idempotency-Key", "header", {
    description:
      "Makes the create safe to retry (IETF draft, as Stripe does it): the same key with the same body returns the original 201 with `Idempotent-Replayed: true`; with a different body, 422. Scoped per API key, kept across restarts",
    schema: { type: "string", ...IDEMPOTENCY_KEY_LENGTH, pattern: IDEMPOTENCY_KEY.source },
  }),
  ifNoneMatch: parameter("If-None-Match", "header", {
    description:
      "RFC 9110: the `ETag`s of copies the client holds (a comma-separated list, or `*`; `W/` tags match too). When one matches, the answer is 304 with no body. A 304 does not count against the rate limit",
    schema: { type: "string" },
  }),
  requestId: parameter("X-Request-Id", "header", {
    description: "Echoed back when it is 1 to 200 characters of `[A-Za-z0-9._:=-]`",
    schema: { type: "string", pattern: REQUEST_ID.source },
  }),
} satisfies Json;

type ParameterName = keyof typeof PARAMETERS;

/** What each `components.headers` entry means; a response's `headers` map names the header. */
const HEADER_DESCRIPTIONS = {
  XRequestId: "The request id, as sent or generated; also in the log line",
  CacheControl: "Authenticated responses depend on the key: no cache may store them",
  NextLink:
    'RFC 8288. `<URL>; rel="next"` when more pets follow: the same query plus a `cursor`. Absent on the last page',
  Location: "URL of the new pet: path-absolute, or absolute on PUBLIC_URL when that is set",
  IdempotentReplayed:
    "`true` when this 201 replays the answer to an earlier request with the same Idempotency-Key",
  Deprecation:
    "RFC 9745: when this endpoint was deprecated, as a structured-field date (`@` and Unix seconds); one fixed value",
  Sunset: "RFC 8594: when this endpoint stops working (it then answers 410)",
  SuccessorLink: "RFC 8288: the replacement of this endpoint, `GET /pets`",
  RetryAfter: "RFC 9110: seconds to wait before retrying",
  RateLimit:
    "IETF draft ratelimit-headers: requests left (`r`) and seconds until the window resets (`t`); only with RATE_LIMIT set",
  RateLimitPolicy:
    "IETF draft ratelimit-headers: requests allowed (`q`) per window of `w` seconds; only with RATE_LIMIT set",
  ETag:
    "RFC 9110: a strong validator of this response, fixed by the pets it holds, whether more follow, and the coding (each coding has its own tag). The same after a restart and on every instance. Send it back in `If-None-Match` to revalidate",
  CacheControlRevalidate:
    "A client may keep the response but must revalidate it (`If-None-Match`) before using it; shared caches must not keep it",
  VaryAcceptEncoding:
    "The body's coding depends on the request's `Accept-Encoding`; with CORS on, `Origin` is listed too",
  ContentEncoding:
    "`br` or `gzip` when the body is over 1 KiB and `Accept-Encoding` allows it (q-values honoured, `br` preferred at an equal q); absent when the body is sent as is",
  WwwAuthenticate:
    'RFC 6750: `Bearer realm="animal-store"` when no key was sent, plus `error="invalid_token"` when a key was sent but not accepted',
};

type HeaderName = keyof typeof HEADER_DESCRIPTIONS;

/** Each header's schema and example; "optional" marks one a response may lack. */
type HeaderSchema = [schema: Json, example?: ExactJsonValue, optional?: "optional"];
const HEADER_SCHEMAS: Record<HeaderName, HeaderSchema> = {
  XRequestId: [{ type: "string" }, "req-4f9c1b"],
  CacheControl: [{ type: "string", enum: [AUTHENTICATED_CACHE_CONTROL] }],
  NextLink: [
    { type: "string", pattern: '^<[^>]*>; rel="next"$' },
    '</v1/pets?limit=20&cursor=MjAu.3LmVTpCgDpW8N0d0>; rel="next"',
    "optional",
  ],
  Location: [
    { type: "string", format: "uri-reference", pattern: "/pets/[1-9][0-9]*$" },
    "/v1/pets/1",
  ],
  IdempotentReplayed: [{ type: "string", enum: ["true"] }, undefined, "optional"],
  Deprecation: [{ type: "string", pattern: "^@[0-9]+$" }, DEPRECATION_VALUE],
  Sunset: [{ type: "string", enum: [SUNSET_VALUE] }, SUNSET_VALUE],
  SuccessorLink: [
    { type: "string", pattern: `^<[^>]*/pets>; rel="${SUCCESSOR_REL}"$` },
    `</v1/pets>; rel="${SUCCESSOR_REL}"`,
  ],
  RetryAfter: [{ type: "integer", minimum: 0 }, 1],
  RateLimit: [{ type: "string" }, '"per-key";r=59;t=60', "optional"],
  RateLimitPolicy: [{ type: "string" }, '"per-key";q=60;w=60', "optional"],
  ETag: [{ type: "string", pattern: '^"[\\x21\\x23-\\x7e]*"$' }, '"3f9a0c1d2b4e5f60"'],
  CacheControlRevalidate: [{ type: "string", enum: [REVALIDATE] }, REVALIDATE],
  VaryAcceptEncoding: [
    { type: "string", pattern: "^Accept-Encoding(, Origin)?$" },
    "Accept-Encoding",
  ],
  ContentEncoding: [{ type: "string", enum: ["br", "gzip"] }, "br", "optional"],
  WwwAuthenticate: [
    { type: "string", enum: [CHALLENGE_NO_KEY, CHALLENGE_INVALID_KEY] },
    CHALLENGE_NO_KEY,
  ],
};

const HEADERS: Json = Object.fromEntries(
  Object.entries(HEADER_SCHEMAS).map(([name, [schema, example, optional]]) => [name, {
    description: HEADER_DESCRIPTIONS[name as HeaderName],
    required: optional === undefined || undefined,
    schema,
    example,
  }]),
);

function headerRefs(names: Readonly<Record<string, HeaderName>>): Json {
  return Object.fromEntries(
    Object.entries(names).map(([name, ref]) => [name, { $ref: `#/components/headers/${ref}` }]),
  );
}

function parameterRef(name: string): Json {
  if (!(name in PARAMETERS)) throw new Error(`No parameter ${name} in components.parameters`);
  return { $ref: `#/components/parameters/${name}` };
}

const RETRY_AFTER = headerRefs({ "Retry-After": "RetryAfter" });
const WWW_AUTHENTICATE = headerRefs({ "WWW-Authenticate": "WwwAuthenticate" });

/** docs/api.md's error table: each status's description, and the headers it adds. */
const STATUSES: Record<number, [description: string, headers?: Json]> = {
  400: ["The request is not valid"],
  401: ["The API key is missing, malformed or not accepted", WWW_AUTHENTICATE],
  404: ["No pet with this id"],
  409: ["A create with the same Idempotency-Key is still being written; retry later", RETRY_AFTER],
  410: ["The endpoint is past its sunset date and was removed"],
  413: [`The body is larger than MAX_BODY_BYTES (${DEFAULT_MAX_BODY_BYTES} by default)`],
  415: ["The body is not sent as application/json in UTF-8, without a content coding"],
  422: ["The Idempotency-Key was used before with a different body"],
  429: ["Over the rate limit of this API key (RATE_LIMIT)", RETRY_AFTER],
  500: ["An unexpected error; the request id finds it in the log"],
  503: [
    "The store did not finish loading within 10 s, cannot reach its database, or the disk refused the write (nothing was saved)",
    RETRY_AFTER,
  ],
};

/** Each code an operation can answer: its status and an example message. */
const CODES: Partial<Record<ErrorCode, [status: number, message: string]>> = {
  invalid_body: [400, ERROR_MESSAGES.notJsonObject],
  validation_failed: [400, ERROR_MESSAGES.invalidNewPet("name is required")],
  invalid_query: [400, ERROR_MESSAGES.badLimit(MAX_LIMIT, '"0"')],
  invalid_path: [400, ERROR_MESSAGES.badPetId(PET_ID_MAX, '"abc"')],
  unauthorized: [401, ERROR_MESSAGES.missingKey],
  not_found: [404, ERROR_MESSAGES.noPet("42")],
  idempotency_key_in_flight: [409, ERROR_MESSAGES.keyInFlight],
  gone: [410, ERROR_MESSAGES.removed(SUNSET_VALUE, "/v1/pets")],
  payload_too_large: [413, ERROR_MESSAGES.bodyTooLarge(DEFAULT_MAX_BODY_BYTES)],
  unsupported_media_type: [415, ERROR_MESSAGES.notJson],
  idempotency_key_reused: [422, ERROR_MESSAGES.keyReused],
  rate_limited: [429, ERROR_MESSAGES.rateLimited(100, 1)],
  internal_error: [500, ERROR_MESSAGES.internal],
  unavailable: [503, ERROR_MESSAGES.loading],
};

/** The Error responses of these `codes`: one per status, an example per code, with `headers`. */
function errorResponses(codes: readonly ErrorCode[], headers: Json): Record<string, Json> {
  const unknown = codes.filter((code) => CODES[code] === undefined);
  if (unknown.length > 0) throw new Error(`No example for error codes ${unknown.join(", ")}`);
  // In the table's order, so a status lists its codes the same way whatever the caller's order.
  const examplesByStatus: Record<number, Json> = {};
  for (const [code, [status, message]] of Object.entries(CODES)) {
    if (!codes.includes(code as ErrorCode)) continue;
    const value = { code, message, status, requestId: "req-4f9c1b" };
    (examplesByStatus[status] ??= {})[code] = { summary: code, value };
  }
  const responses = Object.entries(examplesByStatus).map(([status, examples]) => {
    const [description, extra] = STATUSES[Number(status)];
    const all = { ...headers, ...extra };
    return [status, { description, headers: all, content: content("Error", examples) }];
  });
  return Object.fromEntries(responses);
}

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
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "The API key as a bearer token: `Authorization: Bearer <API_KEY>`",
        },
      },
    },
  };
}

function servers({ basePath, publicUrl }: DocumentOptions): Json[] {
  if (publicUrl !== undefined) {
    return [{ url: `${publicUrl}${basePath}`, description: "This deployment" }];
  }
  const origins = [["production", SITE], ["staging", "https://staging.pets.example.com"]];
  return origins.map(([description, origin]) => ({
    url: `{origin}${basePath}`,
    description,
    variables: {
      origin: { default: origin, description: `Scheme and host of the ${description} service` },
    },
  }));
}

function describe(operation: Operation): Json {
  const { deprecated = false, cacheable = false, response } = operation;
  const parameters = [...operation.pattern.matchAll(/:([A-Za-z0-9]+)/g)].map((m) => m[1]);
  parameters.push(...operation.parameters ?? [], ...cacheable ? ["ifNoneMatch"] : [], "requestId");
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
      content: content(operation.requestBody.schema, operation.requestBody.examples),
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
        content: content(response.schema, response.examples),
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

function content(schema: keyof typeof SCHEMAS, examples: Json): Json {
  return { "application/json": { schema: { $ref: `#/components/schemas/${schema}` }, examples } };
}
