/**
 * The proxy configurations docs/deployment.md shows are the files in deploy/ that
 * test/service/proxies.test.ts runs, word for word.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { PROXY_CONFIGS } from "../support/proxies.ts";

const guide = readFileSync("docs/deployment.md", "utf8");

describe("the proxy configurations of docs/deployment.md", () => {
  for (const [proxy, path] of Object.entries(PROXY_CONFIGS)) {
    it(`shows ${path} as it is, and links it`, () => {
      const block = new RegExp("```" + proxy + "\\n([\\s\\S]*?)```").exec(guide)?.[1];
      assert.equal(block, readFileSync(path, "utf8"), `the ${proxy} block of the guide`);
      assert.ok(guide.includes(`(../${path})`), `the guide links ${path}`);
    });
  }
});
