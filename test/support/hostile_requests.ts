/**
 * fast-check arbitraries for hostile requests: arbitrary methods, paths, query strings, headers
 * and bodies (random JSON, deep nesting, huge numbers, `__proto__` keys, invalid UTF-8, NUL
 * bytes), plus the checks every response must pass. Used by the property tests and
 * `scripts/fuzz.ts`.
 */
import fc from "fast-check";
import { Compile } from "typebox/compile";
import { ErrorBody } from "../../src/schemas/error.ts";

/** Every status docs/api.md allows (its Error table, plus 200, 201 and 204). 500 is never fine. */
export const CONTRACT_STATUSES: ReadonlySet<number> = new Set([
  200,
  201,
  204,
  400,
  401,
  404,
  405,
  409,
  410,
  413,
  415,
  422,
  429,
  503,
]);

const errorBody = Compile(ErrorBody);

/** A generated request, kept as plain data so a failing case prints readably. */
export interface HostileRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string | Uint8Array<ArrayBuffer> | undefined;
}

const printable = (maxLength: number) =>
  fc.array(fc.integer({ min: 0x20, max: 0x7e }), { maxLength }).map((codes) =>
    String.fromCharCode(...codes)
  );

/** Any string, lone surrogates and control characters included. */
const anyText = fc.string({ unit: "binary", maxLength: 40 });

const method = fc.oneof(
  { weight: 3, arbitrary: fc.constant("POST") },
  { weight: 1, arbitrary: fc.constant("GET") },
  fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "post", "get"),
  fc.stringMatching(/^[A-Z]{1,10}$/).filter((m) => !["CONNECT", "TRACE", "TRACK"].includes(m)),
);

const segment = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom("v1", "pets", "pets", "1", "2", "healthz", "readyz") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "0",
      "-1",
      "1.5",
      "9223372036854775807",
      "9223372036854775808",
      "store",
      "orders",
      "openapi.json",
      "docs",
      "",
      "..",
      "%00",
      "%FF",
      "%2F",
      "__proto__",
    ),
  },
  { weight: 2, arbitrary: anyText.map(encodeURIComponentSafe) },
);

const path = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom("/v1/pets", "/v1/pets", "/v1/pets", "/v1/pets/1", "/healthz"),
  },
  { weight: 2, arbitrary: segment.map((id) => `/v1/pets/${id}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("/readyz", "/v1", "/v1/", "/", "/v1/pets/", "//v1/pets"),
  },
  {
    weight: 2,
    arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) =>
      "/" + parts.join("/")
    ),
  },
);

const queryValue = fc.oneof(
  fc.constantFrom("1", "20", "100", "0", "101", "abc", "", "available", "sold", "pending", "x.y"),
  printable(30).map(encodeURIComponent),
  anyText.map(encodeURIComponentSafe),
  fc.constantFrom("%zz", "%", "%E0%A4%A", "a+b", "MC5hdmFpbGFibGU.abc"),
);
const query = fc.array(
  fc.tuple(fc.constantFrom("limit", "status", "cursor", "x", "__proto__", ""), queryValue),
  { maxLength: 4 },
).map((pairs) => pairs.map(([key, value]) => `${key}=${value}`).join("&"));

const VALID_KEYS = ["test-key-1", "test-key-2"];

const headers = fc.record({
  authorization: fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...VALID_KEYS).map((key) => `Bearer ${key}`) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("Bearer wrong", "Basic abc", "Bearer", "bearer  test-key-1 "),
    },
    { weight: 1, arbitrary: printable(40) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  ),
  "content-type": fc.oneof(
    {
      weight: 5,
      arbitrary: fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
      ),
    },
    fc.constantFrom("text/plain", "application/jsonx", "multipart/form-data", undefined),
    printable(30),
  ),
  "idempotency-key": fc.option(fc.oneof(printable(20), fc.constantFrom("k1", "k2", "k3")), {
    freq: 2,
    nil: undefined,
  }),
  "x-request-id": fc.option(printable(30), { nil: undefined }),
  origin: fc.option(fc.constantFrom("https://app.example.com", "https://evil.example", "null"), {
    nil: undefined,
  }),
});

/** An int64-ish literal written exactly, or a number form the contract refuses. */
const numberText = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String) },
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom("1.5", "1.0", "1e3", "-0", "1e400", "-1e-400", "9007199254740993"),
  fc.integer({ min: 20, max: 2000 }).map((n) => "9".repeat(n)),
);

const petish = fc.record({
  name: fc.oneof(
    { weight: 4, arbitrary: printable(30).map((text) => JSON.stringify(`P${text}`)) },
    fc.constantFrom('"Rex"', '"  "', '""', '"a\\u0000b"', '"a\u0000b"', '"\\ud800"', "null", "1"),
    anyText.map((text) => JSON.stringify(text)),
  ),
  categoryId: numberText,
  status: fc.option(fc.constantFrom('"available"', '"sold"', '"lost"', "null", '"pending"'), {
    nil: undefined,
  }),
  extra: fc.option(fc.constantFrom('"__proto__":{"admin":true}', '"constructor":{}', '"x":1'), {
    freq: 3,
    nil: undefined,
  }),
}).map(({ name, categoryId, status, extra }) =>
  `{"name":${name},"categoryId":${categoryId}${status === undefined ? "" : `,"status":${status}`}${
    extra === undefined ? "" : `,${extra}`
  }}`
);

const nesting = fc.tuple(fc.integer({ min: 1, max: 3000 }), fc.boolean()).map(([depth, arrays]) =>
  arrays ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
);

const body = fc.oneof(
  { weight: 10, arbitrary: petish },
  { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
  { weight: 1, arbitrary: nesting },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => new Uint8Array(bytes)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":1},"name":"P","categoryId":1}',
      '{"name":"Dup","name":"Dup2","categoryId":1}',
      '{"name":"A","categoryId":1}\u0000',
      "\uFEFF{}",
      "",
      " ",
      "null",
      "[]",
      '"text"',
    ),
  },
  {
    weight: 1,
    // Invalid UTF-8 inside an otherwise valid pet.
    arbitrary: fc.constantFrom([0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xf0, 0x28, 0x8c]).map(
      (bad) =>
        Uint8Array.from([
          ...new TextEncoder().encode('{"name":"'),
          ...bad,
          ...new TextEncoder().encode('","categoryId":1}'),
        ]),
    ),
  },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

/** Arbitrary hostile requests. */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.record({
  method,
  path,
  query,
  headers,
  body,
});

/** The `Request` for a generated case (GET and HEAD never carry a body). */
export function toRequest(generated: HostileRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(generated.headers)) {
    if (value !== undefined) headers.set(name, value);
  }
  const upper = generated.method.toUpperCase();
  const body = upper === "GET" || upper === "HEAD" ? undefined : generated.body;
  const url = `http://localhost${generated.path}${
    generated.query === "" ? "" : "?"
  }${generated.query}`;
  return new Request(url, { method: generated.method, headers, body });
}

/** Checks one response against the contract; returns the problem, or undefined. */
export async function contractViolation(
  request: Request,
  response: Response,
): Promise<string | undefined> {
  if (!CONTRACT_STATUSES.has(response.status)) return `status ${response.status} is not in SPEC`;
  if (response.headers.get("x-content-type-options") !== "nosniff") return "no nosniff";
  const text = await response.text();
  if (response.status < 300) return undefined;
  if (request.method === "HEAD") return text === "" ? undefined : "HEAD with a body";
  if (!/^application\/json/.test(response.headers.get("content-type") ?? "")) {
    return "error without application/json";
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `error body is not JSON: ${text.slice(0, 100)}`;
  }
  if (!errorBody.Check(parsed)) return `error body does not match ErrorBody: ${text.slice(0, 200)}`;
  if ((parsed as { status: number }).status !== response.status) return "status differs in body";
  if (response.status === 429 && response.headers.get("retry-after") === null) {
    return "429 without Retry-After";
  }
  if (response.status === 405 && response.headers.get("allow") === null) return "405 without Allow";
  return undefined;
}

function encodeURIComponentSafe(text: string): string {
  // encodeURIComponent throws on lone surrogates; send those as raw percent bytes instead.
  return text.isWellFormed() ? encodeURIComponent(text) : "%ED%A0%80";
}

/** Well-formed creates (some with repeated Idempotency-Keys), to mix with the hostile ones. */
export const validCreate: fc.Arbitrary<HostileRequest> = fc.record({
  name: printable(30).map((text) => `P${text}`),
  categoryId: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  status: fc.option(fc.constantFrom("available", "pending", "sold"), { nil: undefined }),
  idempotencyKey: fc.option(fc.constantFrom("k1", "k2", "k3"), { freq: 2, nil: undefined }),
}).map(({ name, categoryId, status, idempotencyKey }) => ({
  method: "POST",
  path: "/v1/pets",
  query: "",
  headers: {
    authorization: `Bearer ${VALID_KEYS[0]}`,
    "content-type": "application/json",
    "idempotency-key": idempotencyKey,
  },
  body: `{"name":${JSON.stringify(name)},"categoryId":${categoryId}${
    status === undefined ? "" : `,"status":"${status}"`
  }}`,
}));
