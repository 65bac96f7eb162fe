import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DOCS_SCRIPT } from "../../src/docs/page_script.ts";
import { testApp } from "../support/app.ts";

describe("GET /v1/docs", () => {
  const assets: [string, RegExp][] = [
    ["/v1/docs", /^text\/html; charset=utf-8$/],
    ["/v1/docs/app.js", /^text\/javascript; charset=utf-8$/],
    ["/v1/docs/style.css", /^text\/css; charset=utf-8$/],
  ];

  it("serves the page and its assets without a key, under a strict CSP", async () => {
    const { request } = testApp();
    for (const [path, type] of assets) {
      const response = await request(path, { key: null });
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get("content-type") ?? "", type, path);
      assert.match(response.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      const body = await response.text();
      // Offline: nothing is loaded from another origin.
      assert.doesNotMatch(body, /(src|href)=["']?(https?:)?\/\//, path);
      assert.doesNotMatch(body, /@import|fetch\(["']https?:/, path);
    }
  });

  it("follows BASE_PATH", async () => {
    const { request } = testApp({ env: { BASE_PATH: "/api" } });
    assert.equal((await request("/api/docs", { key: null })).status, 200);
    assert.equal((await request("/api/docs/app.js", { key: null })).status, 200);
    assert.equal((await request("/v1/docs", { key: null })).status, 404);
  });

  it("the page script is valid JavaScript", () => {
    assert.doesNotThrow(() => new Function(DOCS_SCRIPT));
  });
});
