import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { DOCS_SCRIPT } from "../../src/docs/page_script.ts";
import { docsScriptModule, MODULE_PATH } from "../../scripts/generate_docs_script.ts";

describe("src/docs/page_script.ts", () => {
  it("is up to date with its source src/docs/page/script.ts", async () => {
    const checkedIn = await readFile(new URL(`../../${MODULE_PATH}`, import.meta.url), "utf8");
    assert.equal(
      checkedIn,
      await docsScriptModule(),
      "run: node_modules/.bin/deno run -A scripts/generate_docs_script.ts",
    );
  });

  it("holds the script as plain JavaScript: no TypeScript left, one function run at load", () => {
    assert.match(DOCS_SCRIPT, /^\(\(\) => \{\n/);
    assert.match(DOCS_SCRIPT, /\n\}\)\(\);\n$/);
    assert.doesNotMatch(DOCS_SCRIPT, /\binterface \w+|: HTML\w+Element\b|<reference/);
  });
});
