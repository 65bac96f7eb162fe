/**
 * On the runtime under test (deno, bun, or the node build): the `openapi` sub-command prints,
 * byte for byte, the document the running service serves, with the same settings; the docs page
 * that renders it is served with its script, which that runtime compiled from its TypeScript.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runService } from "../support/server_process.ts";
import { assertDocsScriptLoads } from "../support/docs_script.ts";
import { useService } from "../support/service_fixture.ts";

const env = { API_KEYS: "openapi-test-key", BASE_PATH: "/api/v1", PUBLIC_URL: "https://pets.test" };

describe("openapi sub-command, GET {BASE_PATH}/openapi.json and the docs page", () => {
  const service = useService({ key: env.API_KEYS, env });

  it("print and serve the same text, with the int64 bounds digit for digit", async () => {
    const served = await fetch(`${service.url}/api/v1/openapi.json`);
    assert.equal(served.status, 200);
    const text = await served.text();
    const printed = await runService(["openapi"], { env });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, text);
    assert.match(text, /"minimum": -9223372036854775808,\s*"maximum": 9223372036854775807/);
    assert.match(text, /"url": "https:\/\/pets\.test\/api\/v1"/);
  });

  it("GET {BASE_PATH}/docs serves the page and a script that loads on its own", async () => {
    const page = await fetch(`${service.url}/api/v1/docs`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script src="docs\/app\.js" defer>/);
    const script = await fetch(`${service.url}/api/v1/docs/app.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /^text\/javascript/);
    assertDocsScriptLoads(await script.text());
  });
});
