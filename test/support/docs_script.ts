/**
 * Runs the docs page's script, as served, with stand-ins for the only browser globals it touches
 * when it loads. The text is a runtime's or a bundler's compilation of one function, and only that
 * text reaches the browser, so a name it takes from its module (or a helper a bundler adds) fails
 * here with a ReferenceError, without a browser.
 */
import assert from "node:assert/strict";

/** Asserts that `script` is one function called once and that, loaded, it asks for openapi.json. */
export function assertDocsScriptLoads(script: string): void {
  assert.match(script, /^\(function \w*\(\) ?\{[^]*\}\)\(\);\n$/);
  const requested: string[] = [];
  const fetch = (url: string) => {
    requested.push(url);
    return new Promise(() => {});
  };
  const location = { pathname: "/v1/docs", href: "http://localhost/v1/docs" };
  new Function("fetch", "location", "document", script)(fetch, location, {});
  assert.deepEqual(requested, ["openapi.json"]);
}
