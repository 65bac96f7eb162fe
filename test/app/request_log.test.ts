/** The request log in the app: one line per request, whatever its outcome, and no key or body in it. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { KEY, testApp } from "../support/app.ts";

const rex = '{"name":"Rex","categoryId":1}';

function requestLines(log: ReturnType<typeof testApp>["log"]) {
  return log.lines.filter((line) => line.msg === "request");
}

describe("the request log", () => {
  it("logs one JSON line per request without keys or bodies", async () => {
    const { request, log } = testApp();
    await request("/v1/pets", {
      method: "POST",
      body: JSON.stringify({ name: "SecretName", categoryId: 1 }),
    });
    const line = log.lines.at(-1)!;
    assert.equal(line.method, "POST");
    assert.equal(line.path, "/v1/pets");
    assert.equal(line.status, 201);
    assert.equal(typeof line.durationMs, "number");
    assert.equal(typeof line.requestId, "string");
    const text = JSON.stringify(log.lines);
    assert.ok(!text.includes(KEY), "no key in logs");
    assert.ok(!text.includes("SecretName"), "no body in logs");
  });

  it("no key and no request body reaches the log on 201, 400, 401, 413 and 422 paths", async () => {
    const { request, log } = testApp({ env: { MAX_BODY_BYTES: "1024" } });
    const wrongKey = "wrong-key-Secret0";
    const cases: [RequestInit & { key?: string | null }, number][] = [
      [{ method: "POST", body: '{"name":"BodySecret1","categoryId":1}' }, 201],
      [{ method: "POST", body: '{"name":"BodySecret2",' }, 400],
      [{ method: "POST", body: '{"name":"BodySecret3","categoryId":1,"BodySecret4":1}' }, 400],
      [{ method: "POST", body: '{"name":"BodySecret5","categoryId":1}', key: wrongKey }, 401],
      [{ method: "POST", body: '{"name":"BodySecret6","categoryId":1}', key: null }, 401],
      [{ method: "POST", body: `{"name":"BodySecret7${"x".repeat(2000)}","categoryId":1}` }, 413],
      [{
        method: "POST",
        body: '{"name":"BodySecret8","categoryId":1}',
        headers: { "idempotency-key": "IdemSecret9" },
      }, 201],
      [{
        method: "POST",
        body: '{"name":"BodySecret10","categoryId":1}',
        headers: { "idempotency-key": "IdemSecret9" },
      }, 422],
    ];
    for (const [init, status] of cases) {
      const response = await request("/v1/pets", init);
      assert.equal(response.status, status, String(init.body).slice(0, 60));
    }
    const text = JSON.stringify(log.lines);
    for (const secret of [KEY, wrongKey, "BodySecret", "IdemSecret"]) {
      assert.ok(!text.includes(secret), `${secret} in the log: ${text.slice(0, 400)}`);
    }
    assert.equal(requestLines(log).length, cases.length);
  });

  it("logs exactly one request line per request, whatever its outcome", async () => {
    const { request, log } = testApp({ env: { MAX_BODY_BYTES: "1024", RATE_LIMIT: "10" } });
    const cases: [string, RequestInit & { key?: string | null }][] = [
      ["/v1/pets", { method: "POST", body: rex }],
      ["/v1/pets", {}],
      ["/v1/pets", { method: "HEAD" }],
      ["/v1/pets", { method: "OPTIONS", key: null }],
      ["/v1/pets/1", {}],
      ["/v1/pets/999", {}],
      ["/v1/pets/abc", {}],
      ["/v1/pets", { key: null }],
      ["/v1/pets", { key: "wrong" }],
      ["/v1/pets", { method: "DELETE" }],
      ["/v1/nowhere", {}],
      ["/v1/pets", { method: "POST", body: "x".repeat(2000) }],
      ["/v1/pets", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }],
      ["/healthz", {}],
      ["/v1/openapi.json", { key: null }],
    ];
    const ids: string[] = [];
    for (const [path, init] of cases) {
      ids.push((await request(path, init)).headers.get("x-request-id")!);
    }
    // Over the rate limit (10 keyed requests above); then a 500 on an app without a limit.
    ids.push((await request("/v1/pets")).headers.get("x-request-id")!);
    const limitless = testApp();
    Object.assign(limitless.store, {
      listJson: () => {
        throw new Error("boom");
      },
    });
    const failed = await limitless.request("/v1/pets");
    assert.equal(failed.status, 500);
    assert.equal(requestLines(limitless.log).length, 1, "one line for a 500");
    const lines = requestLines(log);
    assert.equal(lines.length, ids.length, JSON.stringify(lines.map((line) => line.status)));
    assert.deepEqual(lines.map((line) => line.requestId), ids);
    assert.ok(lines.some((line) => line.status === 429), "one of them was limited");
  });
});
