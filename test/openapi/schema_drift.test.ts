/**
 * The OpenAPI document and the runtime checks cannot drift: samples generated from the
 * document's schemas are sent to the handler, and the handler must accept exactly those the
 * document calls valid. Responses must match the document's schemas, statuses and headers.
 *
 * Two wire-format rules are stricter than JSON Schema can say and are left out of the samples:
 * `1.0` or `1e3` for `categoryId` (JSON Schema calls them integers; the API refuses them) and
 * lone surrogates in `name` (not Unicode characters, so outside JSON Schema's data model). Both
 * are stated in the schema descriptions and tested in test/app.test.ts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type JsonValue, parseJsonExact } from "../../src/http/json.ts";
import { openApiJson } from "../../src/openapi/document.ts";
import { stringifyExact } from "../../src/openapi/exact_json.ts";
import { testApp } from "../support/app.ts";
import { resolveRef, schemaErrors } from "../support/json_schema.ts";
import { candidatesFor, objectCandidates } from "./samples.ts";

type Json = { [key: string]: JsonValue };

function parseExact(text: string): JsonValue {
  const parsed = parseJsonExact(text);
  if (!parsed.ok) throw new Error(`not JSON: ${parsed.reason}: ${text.slice(0, 200)}`);
  return parsed.value;
}

const document = parseExact(openApiJson({ basePath: "/v1" })) as Json;
const schemas = (document.components as Json).schemas as Json;
const paths = document.paths as Record<string, Record<string, Json>>;

function operation(path: string, method: string): Json {
  return paths[path][method];
}

function parameterSchema(op: Json, name: string): Json {
  for (const parameter of op.parameters as Json[]) {
    const resolved = resolveRef(document, parameter.$ref as string);
    if (resolved.name === name) return resolved.schema as Json;
  }
  throw new Error(`No parameter ${name}`);
}

const DOCUMENTED_HEADERS = [
  "link",
  "location",
  "deprecation",
  "sunset",
  "idempotent-replayed",
  "retry-after",
  "ratelimit",
  "ratelimit-policy",
  "x-request-id",
  "www-authenticate",
];

/** Checks a response against the document: status listed, headers declared, body schema. */
async function assertDocumented(op: Json, response: Response, label: string) {
  const declared = (op.responses as Record<string, Json>)[String(response.status)];
  assert.ok(declared, `${op.operationId} does not document status ${response.status} (${label})`);
  const names = Object.keys((declared.headers ?? {}) as Json).map((name) => name.toLowerCase());
  for (const header of DOCUMENTED_HEADERS) {
    if (response.headers.has(header)) {
      assert.ok(names.includes(header), `${op.operationId} ${response.status} lacks ${header}`);
    }
  }
  const schema = ((declared.content as Json)["application/json"] as Json).schema;
  const body = parseExact(await response.text());
  assert.deepEqual(schemaErrors(schema, body, document), [], `${label}: body off the document`);
}

describe("NewPet in the document and the handler agree", () => {
  const newPet = schemas.NewPet as Json;
  const createPet = operation("/pets", "post");
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
  const listPets = operation("/pets", "get");
  const getPet = operation("/pets/{petId}", "get");

  /** A value as it appears in a URL; the document types it, so parse it back as it would. */
  function validParameter(schema: Json, value: JsonValue): boolean {
    return schemaErrors(schema, value, document).length === 0;
  }

  for (const name of ["limit", "status"]) {
    it(`listPets ${name}: 200 exactly for the values the document allows`, async () => {
      const { request } = testApp();
      await request("/v1/pets", { method: "POST", body: '{"name":"Rex","categoryId":1}' });
      const schema = parameterSchema(listPets, name);
      for (const value of candidatesFor(schema, document)) {
        if (value === null || value === true) continue; // not expressible in a query string
        const text = String(value);
        const valid = validParameter(schema, typedLike(schema, text));
        const response = await request(`/v1/pets?${name}=${encodeURIComponent(text)}`);
        assert.equal(response.status, valid ? 200 : 400, `${name}=${text.slice(0, 40)}`);
        await assertDocumented(listPets, response, `${name}=${text}`);
      }
    });
  }

  it("getPet petId: 400 exactly for the values the document refuses", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: '{"name":"Rex","categoryId":1}' });
    const schema = parameterSchema(getPet, "petId");
    for (const value of candidatesFor(schema, document)) {
      if (value === null || value === true) continue;
      const text = String(value);
      const valid = validParameter(schema, typedLike(schema, text));
      const response = await request(`/v1/pets/${encodeURIComponent(text)}`);
      if (valid) assert.ok([200, 404].includes(response.status), `petId=${text}`);
      else assert.equal(response.status, 400, `petId=${text}`);
      await assertDocumented(getPet, response, `petId=${text}`);
    }
  });
});

describe("responses match the document", () => {
  it("error statuses and headers of each operation are documented", async () => {
    const { request } = testApp({ env: { RATE_LIMIT: "1000" } });
    const createPet = operation("/pets", "post");
    const cases: [Json, string, RequestInit & { key?: string | null }][] = [
      [createPet, "/v1/pets", { method: "POST", body: '{"name":"Rex","categoryId":1}' }],
      [createPet, "/v1/pets", {
        method: "POST",
        body: '{"name":"Rex","categoryId":1}',
        headers: { "idempotency-key": "k1" },
      }],
      [createPet, "/v1/pets", {
        method: "POST",
        body: '{"name":"Rex","categoryId":1}',
        headers: { "idempotency-key": "k1" },
      }],
      [createPet, "/v1/pets", {
        method: "POST",
        body: '{"name":"Rey","categoryId":1}',
        headers: { "idempotency-key": "k1" },
      }],
      [createPet, "/v1/pets", { method: "POST", body: "{", key: null }],
      [createPet, "/v1/pets", { method: "POST", body: "{" }],
      [createPet, "/v1/pets", {
        method: "POST",
        body: "{}",
        headers: { "content-type": "text/plain" },
      }],
      [createPet, "/v1/pets", { method: "POST", body: "x".repeat(70_000) }],
      [operation("/pets", "get"), "/v1/pets?limit=1", {}],
      [operation("/pets", "get"), "/v1/pets?cursor=abc", {}],
      [operation("/pets/{petId}", "get"), "/v1/pets/1", {}],
      [operation("/pets/{petId}", "get"), "/v1/pets/99", {}],
      [operation("/pets/{petId}", "get"), "/v1/pets/1", { key: "wrong" }],
    ];
    for (const [op, path, init] of cases) {
      const response = await request(path, init);
      await assertDocumented(op, response, `${init.method ?? "GET"} ${path}`);
    }
  });
});

/** A URL text typed as the document's schema would read it: integers become bigints. */
function typedLike(schema: Json, text: string): JsonValue {
  const resolved = typeof schema.$ref === "string" ? resolveRef(document, schema.$ref) : schema;
  if (resolved.type !== "integer") return text;
  return /^-?(0|[1-9][0-9]*)$/.test(text) ? BigInt(text) : text;
}
