import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DOCS_SCRIPT } from "../../src/docs/page_script.ts";
import { assertDocsScriptLoads } from "../support/docs_script.ts";

describe("DOCS_SCRIPT", () => {
  it("is plain JavaScript: no TypeScript left, one function run at load", () => {
    assert.match(DOCS_SCRIPT, /^\(function \w*\(\) ?\{/);
    assert.match(DOCS_SCRIPT, /\}\)\(\);\n$/);
    assert.doesNotMatch(DOCS_SCRIPT, /\binterface \w+|: HTML\w+Element\b|<reference/);
  });

  it("runs on its own, with only the browser's globals, and asks for openapi.json", () => {
    assertDocsScriptLoads(DOCS_SCRIPT);
  });
});
