/**
 * The OpenAPI document and the runtime checks cannot drift: samples generated from the
 * document's schemas are sent to the handler, and the handler must accept exactly those the
 * document calls valid. Responses must match the document's schemas, statuses and headers.
 *
 * Two wire-format rules are stricter than JSON Schema can say and are left out of the samples:
 * `1.0` or `1e3` for `categoryId` (JSON Schema calls them integers; the API refuses them) and
 * lone surrogates in `name` (not Unicode characters, so outside JSON Schema's data model). Both
 * are stated in the schema descriptions and tested in test/app/creating.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJsonText } from "../../src/http/json.ts";
import type { JsonValue } from "../../src/schemas/json_value.ts";
import { SUNSET_AT } from "../../src/http/deprecation.ts";
import { openApiJson } from "../../src/routes/openapi.ts";
import { PET_OPERATIONS } from "../../src/routes/pets.ts";
import { stringifyExact } from "../../src/openapi/schema_to_json.ts";
import { testApp } from "../support/app.ts";
import { resolveRef, schemaErrors } from "../support/json_schema.ts";
import { candidatesFor, objectCandidates } from "./samples.ts";

type Json = { [key: string]: JsonValue };

function parseExact(text: string): JsonValue {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new Error(`not JSON: ${parsed.reason}: ${text.slice(0, 200)}`);
  return parsed.value;
}

const document = parseExact(openApiJson({ basePath: "/v1" })) as Json;
const schemas = (document.components as Json).schemas as Json;
const paths = document.paths as Record<string, Record<string, Json>>;

/**
 * The document's operation for a request, found as the router finds it: the declared route whose
 * method (HEAD as GET) and pattern match. So a case names only the request, never its operation.
 */
function operationFor(method: string, url: string): Json {
  const path = url.replace(/^\/v1|\?.*$/g, "");
  const route = PET_OPERATIONS.find((candidate) =>
    candidate.method === (method === "HEAD" ? "GET" : method) &&
    new RegExp(`^${candidate.pattern.replace(/:\w+/g, "[^/]+")}$`).test(path)
  );
  assert.ok(route, `${method} ${url} reaches no declared operation`);
  return paths[route.pattern.replace(/:(\w+)/g, "{$1}")][route.method.toLowerCase()];
}

function parameterSchema(op: Json, name: string): Json {
  for (const parameter of op.parameters as Json[]) {
    const resolved = resolveRef(document, parameter.$ref as string);
    if (resolved.name === name) return resolved.schema as Json;
  }
  throw new Error(`No parameter ${name}`);
}

/**
 * Headers any response may carry without the document listing them: the representation's own,
 * the hardening header, and those of optional features (CORS) that describe the HTTP exchange
 * rather than the operation.
 */
const COMMON_HEADERS = new Set([
  "content-type",
  "content-length",
  "x-content-type-options",
  "vary",
  "access-control-allow-origin",
  "access-control-expose-headers",
]);

interface DeclaredHeader {
  readonly required: boolean;
  readonly schema: Json;
}

/** The headers the document declares for one response, by lower-case name, refs resolved. */
function declaredHeaders(response: Json): Map<string, DeclaredHeader> {
  const declared = new Map<string, DeclaredHeader>();
  for (const [name, entry] of Object.entries((response.headers ?? {}) as Json)) {
    const header = typeof (entry as Json).$ref === "string"
      ? resolveRef(document, (entry as Json).$ref as string)
      : entry as Json;
    declared.set(name.toLowerCase(), {
      required: header.required === true,
      schema: header.schema as Json,
    });
  }
  return declared;
}

/**
 * The response carries every header the document marks required (with a value its schema
 * allows), and no header beyond those the document lists and `COMMON_HEADERS`.
 */
function assertHeadersDocumented(
  declared: Map<string, DeclaredHeader>,
  response: Response,
  label: string,
) {
  for (const [name, header] of declared) {
    const value = response.headers.get(name);
    if (value === null) {
      assert.ok(!header.required, `${label}: lacks ${name}, which the document marks required`);
      continue;
    }
    const errors = schemaErrors(header.schema, typedLike(header.schema, value), document);
    assert.deepEqual(errors, [], `${label}: ${name}: ${value} is off the document`);
  }
  for (const [name] of response.headers) {
    if (COMMON_HEADERS.has(name) || name.startsWith("access-control-")) continue;
    assert.ok(declared.has(name), `${label}: carries ${name}, which the document does not list`);
  }
}

/** Checks a response against the document: status listed, headers declared, body schema. */
async function assertDocumented(op: Json, response: Response, label: string) {
  const declared = (op.responses as Record<string, Json>)[String(response.status)];
  assert.ok(declared, `${op.operationId} does not document status ${response.status} (${label})`);
  assertHeadersDocumented(declaredHeaders(declared), response, `${label} → ${response.status}`);
  const text = await response.text();
  if (text === "") return; // HEAD
  const schema = ((declared.content as Json)["application/json"] as Json).schema;
  const body = parseExact(text);
  assert.deepEqual(schemaErrors(schema, body, document), [], `${label}: body off the document`);
}

/**
 * A method the path does not have gets 405 with `Allow`, which no operation can declare: it
 * must carry `Allow` and every header the path's operations require on all their responses
 * (the deprecation headers on /pets/{petId}), and nothing any of them does not list.
 */
async function assertDocumented405(path: string, response: Response, label: string) {
  assert.equal(response.status, 405, label);
  const all = Object.values(paths[path]).flatMap((op) =>
    Object.values(op.responses as Record<string, Json>).map(declaredHeaders)
  );
  const declared = new Map<string, DeclaredHeader>([["allow", { required: true, schema: {} }]]);
  for (const headers of all) {
    for (const [name, header] of headers) {
      const everywhere = all.every((other) => other.get(name)?.required === true);
      declared.set(name, { required: everywhere, schema: everywhere ? header.schema : {} });
    }
  }
  assertHeadersDocumented(declared, response, `${label} → 405`);
  const body = parseExact(await response.text());
  const schema = { $ref: "#/components/schemas/Error" };
  assert.deepEqual(schemaErrors(schema, body, document), [], `${label}: body off the document`);
}

describe("NewPet in the document and the handler agree", () => {
  const newPet = schemas.NewPet as Json;
  const createPet = operationFor("POST", "/v1/pets");
  const samples = objectCandidates(newPet, document);

  it("the document's NewPet schema says what docs/api.md says at the boundaries", () => {
    const valid = (value: JsonValue) => schemaErrors(newPet, value, document).length === 0;
    const max = 9223372036854775807n;
    assert.ok(valid({ name: "Rex", categoryId: max }));
    assert.ok(valid({ name: "Rex", categoryId: -max - 1n }));
    assert.ok(!valid({ name: "Rex", categoryId: max + 1n }));
    assert.ok(!valid({ name: "Rex", categoryId: -max - 2n }));
    assert.ok(valid({ name: "😀".repeat(200), categoryId: 1n }));
    assert.ok(!valid({ name: "a".repeat(201), categoryId: 1n }));
    assert.ok(!valid({ name: " \t ", categoryId: 1n }));
    assert.ok(!valid({ name: "a\u0085", categoryId: 1n }));
    for (const status of ["available", "pending", "sold"]) {
      assert.ok(valid({ name: "Rex", categoryId: 1n, status }));
    }
    assert.ok(!valid({ name: "Rex", categoryId: 1n, status: null }));
    assert.ok(!valid({ name: "Rex", categoryId: 1n, extra: 1n }));
  });

  it(`every generated body is accepted (201) exactly when the document says valid (${samples.length} bodies)`, async () => {
    const { request } = testApp();
    let accepted = 0;
    for (const { value, label } of samples) {
      const valid = schemaErrors(newPet, value, document).length === 0;
      const response = await request("/v1/pets", {
        method: "POST",
        body: stringifyExact(value, 0),
      });
      assert.equal(response.status, valid ? 201 : 400, `${label}: document says ${valid}`);
      await assertDocumented(createPet, response, label);
      if (valid) accepted++;
    }
    assert.ok(accepted >= 20 && accepted < samples.length - 20, `accepted ${accepted}`);
  });
});

describe("parameters in the document and the handler agree", () => {
  const cases: [name: string, url: (text: string) => string, valid: number[]][] = [
    ["limit", (text) => `/v1/pets?limit=${text}`, [200]],
    ["status", (text) => `/v1/pets?status=${text}`, [200]],
    ["petId", (text) => `/v1/pets/${text}`, [200, 404]],
  ];
  for (const [name, url, validStatuses] of cases) {
    it(`${name}: ${validStatuses.join(" or ")} exactly for the values the document allows`, async () => {
      const { request } = testApp();
      await request("/v1/pets", { method: "POST", body: '{"name":"Rex","categoryId":1}' });
      const op = operationFor("GET", url("1"));
      const schema = parameterSchema(op, name);
      for (const value of candidatesFor(schema, document)) {
        if (value === null || value === true) continue; // not expressible in a URL
        const text = String(value);
        const valid = schemaErrors(schema, typedLike(schema, text), document).length === 0;
        const response = await request(url(encodeURIComponent(text)));
        const label = `${name}=${text.slice(0, 40)}`;
        if (valid) assert.ok(validStatuses.includes(response.status), label);
        else assert.equal(response.status, 400, label);
        await assertDocumented(op, response, label);
      }
    });
  }
});

describe("responses match the document", () => {
  const rex = '{"name":"Rex","categoryId":1}';
  type Case = [string, RequestInit & { key?: string | null }];

  async function check(app: ReturnType<typeof testApp>, cases: Case[]) {
    for (const [path, init] of cases) {
      const method = init.method ?? "GET";
      const response = await app.request(path, init);
      await assertDocumented(operationFor(method, path), response, `${method} ${path}`);
    }
  }

  it("error statuses and headers of each operation are documented", async () => {
    const app = testApp({ env: { RATE_LIMIT: "1000" } });
    const post = (body: string, init: RequestInit & { key?: string | null } = {}): Case => [
      "/v1/pets",
      { method: "POST", body, ...init },
    ];
    await check(app, [
      post(rex),
      post(rex, { headers: { "idempotency-key": "k1" } }),
      post(rex, { headers: { "idempotency-key": "k1" } }),
      post('{"name":"Rey","categoryId":1}', { headers: { "idempotency-key": "k1" } }),
      post(rex, { headers: { "idempotency-key": "" } }),
      post("{", { key: null }),
      post("{", { key: "wrong" }),
      post("{"),
      post('{"name":""}'),
      post("{}", { headers: { "content-type": "text/plain" } }),
      post("x".repeat(70_000)),
      ["/v1/pets?limit=1", {}],
      ["/v1/pets?limit=1", { method: "HEAD" }],
      ["/v1/pets?cursor=abc", {}],
      ["/v1/pets", { key: null }],
      ["/v1/pets", { key: "wrong" }],
      ["/v1/pets/1", {}],
      ["/v1/pets/1", { method: "HEAD" }],
      ["/v1/pets/99", {}],
      ["/v1/pets/abc", {}],
      ["/v1/pets/1", { key: "wrong" }],
      ["/v1/pets/1", { key: null }],
    ]);
  });

  it("405 answers carry Allow and the headers their path always has, on every declared path", async () => {
    const app = testApp();
    for (const pattern of new Set(PET_OPERATIONS.map((route) => route.pattern))) {
      const url = `/v1${pattern.replace(/:\w+/g, "1")}`;
      const response = await app.request(url, { method: "DELETE" });
      await assertDocumented405(pattern.replace(/:(\w+)/g, "{$1}"), response, `DELETE ${url}`);
    }
  });

  it("410 after the sunset carries the documented headers", async () => {
    const app = testApp({ clock: () => SUNSET_AT });
    await check(app, [["/v1/pets/1", {}], ["/v1/pets/1", { key: null }]]);
  });

  it("409 while the same Idempotency-Key is being written carries the documented headers", async () => {
    const app = testApp();
    let release = () => {};
    app.store.writeGate = new Promise<void>((resolve) => release = resolve);
    const init = { method: "POST", body: rex, headers: { "idempotency-key": "slow" } };
    const first = app.request("/v1/pets", init);
    await check(app, [["/v1/pets", init]]);
    release();
    await assertDocumented(operationFor("POST", "/v1/pets"), await first, "the first POST");
  });

  it("429 over the rate limit carries the documented headers on every operation", async () => {
    const app = testApp({ env: { RATE_LIMIT: "1" } });
    await check(app, [
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", {}],
      ["/v1/pets/1", {}],
    ]);
  });

  it("503 while loading, on a refused write and on a lost store carries the documented headers", async () => {
    await check(testApp({ storeLoaded: false, loadWaitMs: 10 }), [
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", {}],
      ["/v1/pets/1", {}],
    ]);
    const app = testApp();
    app.store.failWrites = true;
    await check(app, [["/v1/pets", { method: "POST", body: rex }]]);
    app.store.available = false;
    await check(app, [["/v1/pets", {}], ["/v1/pets/1", {}]]);
  });

  it("500 from a store that throws carries the documented headers", async () => {
    const app = testApp();
    const broken = () => {
      throw new Error("disk on fire");
    };
    Object.assign(app.store, { get: broken, listJson: broken, create: broken });
    await check(app, [
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", {}],
      ["/v1/pets/1", {}],
    ]);
  });

  it("with CORS, PUBLIC_URL and a request id the headers stay documented", async () => {
    const app = testApp({
      env: { CORS_ORIGINS: "https://app.example.com", PUBLIC_URL: "https://pets.example.com" },
    });
    const headers = { origin: "https://app.example.com", "x-request-id": "abc-1" };
    await check(app, [
      ["/v1/pets", { method: "POST", body: rex, headers }],
      ["/v1/pets?limit=1", { headers }],
      ["/v1/pets?limit=1", { headers, key: null }],
      ["/v1/pets/1", { headers }],
    ]);
  });
});

/** A header or URL text typed as the document's schema reads it: integers become bigints. */
function typedLike(schema: Json, text: string): JsonValue {
  const resolved = typeof schema.$ref === "string" ? resolveRef(document, schema.$ref) : schema;
  return resolved.type === "integer" && /^-?(0|[1-9][0-9]*)$/.test(text) ? BigInt(text) : text;
}
