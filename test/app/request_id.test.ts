/** X-Request-Id in the app: a safe one is echoed, up to 200 characters; otherwise one is made and logged. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testApp } from "../support/app.ts";

function requestLines(log: ReturnType<typeof testApp>["log"]) {
  return log.lines.filter((line) => line.msg === "request");
}

describe("X-Request-Id", () => {
  it("echoes a safe X-Request-Id and generates one otherwise", async () => {
    const { request } = testApp();
    assert.equal(
      (await request("/healthz", { headers: { "x-request-id": "abc-123:x=y" } })).headers.get(
        "x-request-id",
      ),
      "abc-123:x=y",
    );
    const generated = (await request("/healthz", { headers: { "x-request-id": "bad id!" } }))
      .headers.get("x-request-id");
    assert.match(generated ?? "", /^[0-9a-f-]{36}$/);
  });

  it("echoes an X-Request-Id of exactly 200 characters and replaces one of 201", async () => {
    const { request } = testApp();
    const longest = "A.b_9:=-".repeat(25);
    assert.equal(longest.length, 200);
    const echoed = await request("/healthz", { headers: { "x-request-id": longest } });
    assert.equal(echoed.headers.get("x-request-id"), longest);
    const tooLong = await request("/healthz", { headers: { "x-request-id": `${longest}x` } });
    assert.match(tooLong.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  });

  it("a request without X-Request-Id gets a generated one, in the header and the log line", async () => {
    const { request, log } = testApp();
    const seen = new Set<string>();
    for (const path of ["/v1/pets", "/v1/pets/1", "/healthz", "/nowhere"]) {
      const response = await request(path);
      const id = response.headers.get("x-request-id") ?? "";
      assert.match(id, /^[A-Za-z0-9._:=-]{1,200}$/, path);
      assert.ok(!seen.has(id), "a new id per request");
      seen.add(id);
      assert.equal(requestLines(log).at(-1)!.requestId, id, path);
    }
  });
});
