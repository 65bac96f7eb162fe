import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJsonText } from "../../src/http/json.ts";
import type { JsonValue } from "../../src/schemas/json_value.ts";
import { openApiJson } from "../../src/routes/openapi.ts";
import { testApp } from "../support/app.ts";
import { schemaErrors } from "../support/json_schema.ts";

type Json = { [key: string]: JsonValue };

function parse(text: string): Json {
  const parsed = parseJsonText(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return withPrototypes(parsed.value) as Json;
}

/** The exact parser makes prototype-less objects; deepEqual compares prototypes too. */
function withPrototypes(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withPrototypes);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withPrototypes(v)]));
}

const text = openApiJson({ basePath: "/v1" });
const document = parse(text);
const paths = document.paths as Record<string, Record<string, Json>>;
const operations: [string, Json][] = [
  ["listPets", paths["/pets"].get],
  ["createPet", paths["/pets"].post],
  ["getPet", paths["/pets/{petId}"].get],
];

function headersOf(op: Json, status: string): string[] {
  return Object.keys(((op.responses as Json)[status] as Json).headers as Json);
}

function walk(value: JsonValue, visit: (key: string, value: JsonValue) => void): void {
  if (Array.isArray(value)) value.forEach((item) => walk(item, visit));
  else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      visit(key, item);
      walk(item, visit);
    }
  }
}

describe("openApiDocument()", () => {
  it("is OpenAPI 3.1 with info version 1.0.0 and the seed's operations", () => {
    assert.equal(document.openapi, "3.1.0");
    assert.equal((document.info as Json).version, "1.0.0");
    assert.deepEqual(operations.map(([, op]) => op.operationId), [
      "listPets",
      "createPet",
      "getPet",
    ]);
    assert.deepEqual(Object.keys(paths), ["/pets", "/pets/{petId}"]);
  });

  it("names the schemas as the seed does", () => {
    const schemas = (document.components as Json).schemas as Json;
    assert.deepEqual(Object.keys(schemas).sort(), ["Error", "NewPet", "Pet", "PetStatus", "Pets"]);
    assert.deepEqual((schemas.PetStatus as Json).enum, ["available", "pending", "sold"]);
    assert.deepEqual((schemas.Pets as Json).items, { $ref: "#/components/schemas/Pet" });
  });

  it("writes categoryId as int64 with the exact bounds and no TypeBox internals", () => {
    const exact =
      /"categoryId": \{\s*"type": "integer",[^}]*"format": "int64",\s*"minimum": -9223372036854775808,\s*"maximum": 9223372036854775807\s*\}/g;
    assert.equal(text.match(exact)?.length, 2, "NewPet and Pet"); // exact digits, not 9223372036854776000
    walk(document, (key) => assert.ok(!key.startsWith("~"), `TypeBox key ${key} leaked`));
    assert.doesNotMatch(text, /"bigint"|~kind|~refine|~optional/);
  });

  it("applies the bearer scheme to every operation", () => {
    const schemes = (document.components as Json).securitySchemes as Json;
    assert.deepEqual(schemes.bearerAuth, {
      type: "http",
      scheme: "bearer",
      description: (schemes.bearerAuth as Json).description,
    });
    for (const [id, op] of operations) assert.deepEqual(op.security, [{ bearerAuth: [] }], id);
  });

  it("marks getPet deprecated with its sunset date", () => {
    const getPet = operations[2][1];
    assert.equal(getPet.deprecated, true);
    assert.equal(getPet["x-sunset"], "2030-12-05T00:00:00.000Z");
    assert.match(getPet.description as string, /Thu, 05 Dec 2030 00:00:00 GMT/);
    for (const status of Object.keys(getPet.responses as Json)) {
      for (const name of ["Deprecation", "Sunset", "Link"]) {
        assert.ok(headersOf(getPet, status).includes(name), `${status} ${name}`);
      }
    }
  });

  it("lists every status of docs/api.md's error table each operation can return", () => {
    const expected: Record<string, string[]> = {
      listPets: ["200", "304", "400", "401", "429", "500", "503"],
      createPet: ["201", "400", "401", "409", "413", "415", "422", "429", "500", "503"],
      getPet: ["200", "304", "400", "401", "404", "410", "429", "500", "503"],
    };
    for (const [id, op] of operations) {
      assert.deepEqual(Object.keys(op.responses as Json), expected[id], id);
    }
  });

  it("declares the response headers", () => {
    const [[, list], [, create], [, get]] = operations;
    assert.ok(headersOf(list, "200").includes("Link"));
    assert.ok(headersOf(create, "201").includes("Location"));
    assert.ok(headersOf(create, "201").includes("Idempotent-Replayed"));
    assert.ok(headersOf(get, "200").includes("Sunset"));
    for (const [id, op] of operations) {
      for (const status of Object.keys(op.responses as Json)) {
        const names = headersOf(op, status);
        for (const name of ["X-Request-Id", "RateLimit", "RateLimit-Policy"]) {
          assert.ok(names.includes(name), `${id} ${status} ${name}`);
        }
        if (["409", "429", "503"].includes(status)) assert.ok(names.includes("Retry-After"));
        if (status === "401") assert.ok(names.includes("WWW-Authenticate"));
      }
    }
  });

  it("declares the caching headers of the cacheable GETs' 200s and 304s, required where always sent", () => {
    const [[, list], , [, get]] = operations;
    const components = (document.components as Json).headers as Record<string, Json>;
    const component = (op: Json, status: string, name: string) => {
      const headers = (op.responses as Record<string, Json>)[status].headers as Record<
        string,
        Json
      >;
      const ref = headers[name]?.$ref as string | undefined;
      assert.ok(ref !== undefined, `${status} ${name}`);
      return components[ref.split("/").pop()!];
    };
    for (const op of [list, get]) {
      for (const status of ["200", "304"]) {
        for (const name of ["ETag", "Cache-Control", "Vary"]) {
          assert.equal(component(op, status, name).required, true, `${status} ${name}`);
        }
      }
      assert.notEqual(component(op, "200", "Content-Encoding").required, true);
      assert.equal((op.responses as Record<string, Json>)["304"].content, undefined);
    }
    assert.deepEqual(component(list, "200", "Cache-Control").schema, {
      type: "string",
      enum: ["private, no-cache"],
    });
    for (const name of ["Deprecation", "Sunset", "Link"]) component(get, "304", name);
  });

  it("declares cursor, limit, status and the Idempotency-Key header", () => {
    const parameters = (document.components as Json).parameters as Record<string, Json>;
    const names = (op: Json) =>
      (op.parameters as Json[]).map((p) => parameters[(p.$ref as string).split("/").pop()!].name);
    assert.deepEqual(names(operations[0][1]), [
      "limit",
      "status",
      "cursor",
      "If-None-Match",
      "X-Request-Id",
    ]);
    assert.deepEqual(names(operations[1][1]), ["Idempotency-Key", "X-Request-Id"]);
    assert.deepEqual(names(operations[2][1]), ["petId", "If-None-Match", "X-Request-Id"]);
    assert.deepEqual(parameters.limit.schema, {
      type: "integer",
      minimum: 1n,
      maximum: 100n,
      default: 20n,
    });
  });

  it("has examples for each body, and each is valid under its schema", () => {
    let count = 0;
    walk(document, (key, value) => {
      if (key !== "application/json") return;
      const media = value as Json;
      const examples = Object.values(media.examples as Json) as Json[];
      assert.ok(examples.length > 0);
      for (const example of examples) {
        assert.deepEqual(
          schemaErrors(media.schema, example.value, document),
          [],
          example.summary as string,
        );
        count++;
      }
    });
    assert.ok(count >= 25, `${count} examples`);
  });

  it("states the Error body's stable codes, status range and JSON Pointer paths", () => {
    const error = (document.components as Json).schemas as Json;
    const properties = (error.Error as Json).properties as Json;
    const code = properties.code as Json;
    // Written out: the table of stable codes clients switch on.
    assert.deepEqual([...(code.enum as string[])].sort(), [
      "gone",
      "idempotency_key_in_flight",
      "idempotency_key_reused",
      "internal_error",
      "invalid_body",
      "invalid_path",
      "invalid_query",
      "method_not_allowed",
      "not_found",
      "payload_too_large",
      "rate_limited",
      "unauthorized",
      "unavailable",
      "unsupported_media_type",
      "validation_failed",
    ]);
    assert.match(code.description as string, /new codes may be added in a later minor version/i);
    const status = properties.status as Json;
    assert.deepEqual([status.minimum, status.maximum], [400n, 599n]);
    const detail = ((properties.details as Json).items as Json).properties as Json;
    assert.equal((detail.path as Json).format, "json-pointer");
  });

  it("marks the headers always sent as required, with their shapes", () => {
    const headers = (document.components as Json).headers as Record<string, Json>;
    const required = Object.keys(headers).filter((name) => headers[name].required === true);
    assert.deepEqual(required.sort(), [
      "CacheControl",
      "CacheControlRevalidate",
      "Deprecation",
      "ETag",
      "Location",
      "RetryAfter",
      "SuccessorLink",
      "Sunset",
      "VaryAcceptEncoding",
      "WwwAuthenticate",
      "XRequestId",
    ]);
    const schema = (name: string) => headers[name].schema as Json;
    assert.deepEqual(schema("WwwAuthenticate").enum, [
      'Bearer realm="animal-store"',
      'Bearer realm="animal-store", error="invalid_token"',
    ]);
    assert.deepEqual(schema("Sunset").enum, ["Thu, 05 Dec 2030 00:00:00 GMT"]);
    assert.equal(schema("Deprecation").pattern, "^@[0-9]+$");
    assert.match(schema("SuccessorLink").pattern as string, /rel="successor-version"/);
    assert.equal(schema("Location").format, "uri-reference");
    for (const [name, op] of operations) {
      for (const status of Object.keys(op.responses as Json)) {
        const names = headersOf(op, status);
        assert.ok(names.includes("Cache-Control"), `${name} ${status} Cache-Control`);
        if (["409", "429", "503"].includes(status)) {
          assert.ok(names.includes("Retry-After"), `${name} ${status}`);
        }
        if (status === "401") assert.ok(names.includes("WWW-Authenticate"), `${name} 401`);
        if (status === "201") assert.ok(names.includes("Location"), `${name} 201`);
      }
    }
  });

  it("bounds the Idempotency-Key and names a contact and a licence", () => {
    const parameter = ((document.components as Json).parameters as Json).idempotencyKey as Json;
    const schema = parameter.schema as Json;
    assert.deepEqual([schema.minLength, schema.maxLength], [1n, 255n]);
    const info = document.info as Json;
    assert.equal(typeof (info.contact as Json).name, "string");
    assert.equal(typeof (info.license as Json).name, "string");
    // OpenAPI 3.1: a licence has an SPDX `identifier` or a `url`, never both.
    assert.ok(
      ((info.license as Json).url === undefined) !==
        ((info.license as Json).identifier === undefined),
    );
  });

  it("lists production and staging as server variables, or PUBLIC_URL when set", () => {
    const servers = document.servers as Json[];
    assert.deepEqual(servers.map((s) => [s.url, s.description]), [
      ["{origin}/v1", "production"],
      ["{origin}/v1", "staging"],
    ]);
    const pinned = parse(openApiJson({ basePath: "/api/v2", publicUrl: "https://pets.test" }));
    assert.deepEqual(pinned.servers, [{
      url: "https://pets.test/api/v2",
      description: "This deployment",
    }]);
  });
});

describe("GET /v1/openapi.json", () => {
  it("serves the document without a key, as the settings shape it", async () => {
    const { request } = testApp({ env: { BASE_PATH: "/api", PUBLIC_URL: "https://pets.test" } });
    const response = await request("/api/openapi.json", { key: null });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/json");
    assert.equal(
      await response.text(),
      openApiJson({ basePath: "/api", publicUrl: "https://pets.test" }),
    );
    assert.equal((await request("/api/openapi.json", { method: "HEAD", key: null })).status, 200);
    assert.equal((await request("/api/openapi.json", { method: "POST", key: null })).status, 405);
  });
});
