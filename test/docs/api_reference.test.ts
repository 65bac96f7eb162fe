/**
 * docs/api.md against the served OpenAPI document, where the two overlap: the stable error codes
 * and their statuses, the page-size bounds, the body limit, the name length, the deprecation
 * dates and the header names. The document is built from the code, so a rule changed in the code
 * without the reference (or the reverse) fails here.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../src/config/config.ts";
import { DEPRECATED_AT, SUNSET_AT } from "../../src/http/deprecation.ts";
import { openApiJson } from "../../src/routes/openapi.ts";
import { readPage, section } from "./markdown.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const document: Json = JSON.parse(openApiJson({ basePath: "/v1" }));
const apiMd = readPage("docs/api.md");

/**
 * Codes the reference lists that no operation of the document returns: a 405 answers a method
 * that no operation has, so the document has no place for it.
 */
const CODES_OUTSIDE_OPERATIONS = new Set(["method_not_allowed"]);

/** Every operation of the document, with its id. */
function operations(): Json[] {
  const found: Json[] = [];
  for (const item of Object.values(document.paths) as Json[]) {
    for (const op of Object.values(item) as Json[]) {
      if (op !== null && typeof op === "object" && op.responses !== undefined) found.push(op);
    }
  }
  return found;
}

/** Error code → HTTP status, from the examples of the document's error responses. */
function documentCodes(): Map<string, number> {
  const codes = new Map<string, number>();
  for (const op of operations()) {
    for (const [status, response] of Object.entries(op.responses) as [string, Json][]) {
      if (Number(status) < 400) continue;
      const examples = response.content?.["application/json"]?.examples ?? {};
      for (const example of Object.values(examples) as Json[]) {
        codes.set(example.value.code, Number(status));
      }
    }
  }
  const codeEnum: string[] | undefined = document.components.schemas.Error.properties.code.enum;
  for (const code of codeEnum ?? []) if (!codes.has(code)) codes.set(code, NaN);
  return codes;
}

/** Error code → HTTP status, from the table of api.md's "Errors" section. */
function referenceCodes(): Map<string, number> {
  const codes = new Map<string, number>();
  for (
    const match of section(apiMd, "Errors").matchAll(/^\|\s*(\d{3})\s*\|\s*`([a-z_]+)`\s*\|/gm)
  ) {
    codes.set(match[2], Number(match[1]));
  }
  return codes;
}

/** The one line of a Markdown table in `text` whose first cell is `cell`. */
function tableRow(text: string, cell: string): string {
  const rows = text.split("\n").filter((line) => line.split("|")[1]?.trim() === cell);
  assert.equal(rows.length, 1, `one table row for ${cell}`);
  return rows[0];
}

/** Every header name the document declares: response headers, header parameters, the scheme. */
function documentHeaders(): Set<string> {
  const names = new Set<string>(["Authorization"]);
  for (const op of operations()) {
    for (const response of Object.values(op.responses) as Json[]) {
      for (const name of Object.keys(response.headers ?? {})) names.add(name);
    }
  }
  for (const parameter of Object.values(document.components.parameters) as Json[]) {
    if (parameter.in === "header") names.add(parameter.name);
  }
  return names;
}

describe("docs/api.md against the OpenAPI document", () => {
  it("lists every error code of the document, with the same status", () => {
    const reference = referenceCodes();
    for (const [code, status] of documentCodes()) {
      assert.ok(reference.has(code), `api.md's error table lacks ${code}`);
      if (!Number.isNaN(status)) assert.equal(reference.get(code), status, code);
    }
  });

  it("lists no error code the document does not know", () => {
    const known = documentCodes();
    const reference = referenceCodes();
    assert.ok(reference.size >= 15, `the error table has ${reference.size} codes`);
    for (const code of reference.keys()) {
      assert.ok(
        known.has(code) || CODES_OUTSIDE_OPERATIONS.has(code),
        `${code} is not in the document`,
      );
    }
  });

  it("states the page-size bounds and default of the limit parameter", () => {
    const { minimum, maximum, default: fallback } = document.components.parameters.limit.schema;
    const rule = `${minimum} to ${maximum}, default ${fallback}`;
    assert.ok(tableRow(section(apiMd, "Endpoints"), "`limit`").includes(`from ${rule}`));
    assert.ok(tableRow(section(apiMd, "Limits"), "page size `limit`").includes(rule));
  });

  it("states the default body limit the document and the settings use", () => {
    const defaultBytes = loadConfig({}).maxBodyBytes;
    const description: string = document.paths["/pets"].post.responses["413"].description;
    assert.ok(description.includes(String(defaultBytes)), description);
    assert.ok(
      tableRow(section(apiMd, "Limits"), "request body").includes(
        `${defaultBytes} bytes by default`,
      ),
    );
    assert.ok(tableRow(section(apiMd, "Errors"), "413").includes(`(${defaultBytes} by default)`));
  });

  it("states the name length of NewPet", () => {
    const name = document.components.schemas.NewPet.properties.name;
    const rule = `${name.minLength} to ${name.maxLength} characters`;
    assert.ok(tableRow(section(apiMd, "Resources"), "`name`").includes(rule));
    assert.ok(
      tableRow(section(apiMd, "Limits"), "`name`").includes(
        `${name.minLength} to ${name.maxLength}`,
      ),
    );
  });

  it("states the deprecation and sunset the service sends", () => {
    const deprecation = section(apiMd, "Deprecation and sunset");
    assert.ok(deprecation.includes(`\`@${DEPRECATED_AT / 1000}\``));
    assert.ok(deprecation.includes(`\`${new Date(SUNSET_AT).toUTCString()}\``));
    assert.equal(document.paths["/pets/{petId}"].get.deprecated, true);
  });

  it("names every header the document declares in its table of headers", () => {
    const table = section(apiMd, "Headers at a glance").toLowerCase();
    for (const name of documentHeaders()) {
      assert.ok(table.includes(`\`${name.toLowerCase()}\``), `api.md's header table lacks ${name}`);
    }
  });
});
