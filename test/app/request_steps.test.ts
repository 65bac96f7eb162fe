/**
 * The order of the app's request steps (src/app/steps.ts `REQUEST_STEPS`), one rule a test: each
 * case has two things wrong at once and checks which answer wins (docs/api.md, "Errors").
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { REQUEST_STEPS } from "../../src/app/steps.ts";
import { SUNSET_AT } from "../../src/http/deprecation.ts";
import { testApp } from "../support/app.ts";

const pastSunset = { clock: () => SUNSET_AT };
const limitOne = { env: { RATE_LIMIT: "1" } };

async function createdPetId(request: ReturnType<typeof testApp>["request"]) {
  const created = await request("/v1/pets", {
    method: "POST",
    body: JSON.stringify({ name: "Rex", categoryId: 1 }),
  });
  const id = JSON.parse(await created.text()).id;
  return id as number;
}

describe("request steps", () => {
  it("REQUEST_STEPS walks the path, OPTIONS, the key, the rate, the URL, then the route", () => {
    assert.deepEqual(REQUEST_STEPS.map((step) => step.name), [
      "matchPath",
      "answerOptions",
      "checkKey",
      "limitRate",
      "checkUrl",
      "dispatch",
    ]);
  });

  it("the key is checked before the path: no key on an unknown path is 401, not 404", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/nowhere", { key: null })).status, 401);
    assert.equal((await request("/v1/nowhere")).status, 404);
  });

  it("the key is checked before the method: no key with DELETE /v1/pets is 401, not 405", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/pets", { method: "DELETE", key: null })).status, 401);
    assert.equal((await request("/v1/pets", { method: "DELETE" })).status, 405);
  });

  it("the key is checked before the sunset: no key past it is 401, not 410", async () => {
    const { request } = testApp(pastSunset);
    assert.equal((await request("/v1/pets/1", { key: null })).status, 401);
    assert.equal((await request("/v1/pets/1")).status, 410);
  });

  it("the key is checked before the URL length: a long path without a key is 401", async () => {
    const { request } = testApp();
    const long = `/v1/${"a".repeat(9000)}`;
    assert.equal((await request(long, { key: null })).status, 401);
    assert.equal((await request(long)).status, 404);
  });

  it("the rate limit comes before the path and the method: 429, not 404 or 405", async () => {
    const { request } = testApp(limitOne);
    assert.equal((await request("/v1/pets")).status, 200);
    assert.equal((await request("/v1/nowhere")).status, 429);
    assert.equal((await request("/v1/pets", { method: "DELETE" })).status, 429);
  });

  it("the rate limit comes before a 304: a key with no quota left gets 429", async () => {
    const { request } = testApp({ env: { RATE_LIMIT: "2" } });
    const id = await createdPetId(request);
    const etag = (await request(`/v1/pets/${id}`)).headers.get("etag")!;
    const revalidated = await request(`/v1/pets/${id}`, { headers: { "if-none-match": etag } });
    assert.equal(revalidated.status, 429);
  });

  it("a 304 gives its token back: revalidations do not use up the quota", async () => {
    const { request } = testApp({ env: { RATE_LIMIT: "3" } });
    const id = await createdPetId(request);
    const etag = (await request(`/v1/pets/${id}`)).headers.get("etag")!;
    for (let i = 0; i < 5; i++) {
      const response = await request(`/v1/pets/${id}`, { headers: { "if-none-match": etag } });
      assert.equal(response.status, 304, `revalidation ${i}`);
    }
    assert.equal((await request(`/v1/pets/${id}`)).status, 200);
  });

  it("the path comes before the method: DELETE on an unknown path is 404, not 405", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/nowhere", { method: "DELETE" })).status, 404);
  });

  it("the sunset comes before the method: DELETE on the removed path is 410, not 405", async () => {
    const { request } = testApp(pastSunset);
    assert.equal((await request("/v1/pets/1", { method: "DELETE" })).status, 410);
  });

  it("the sunset comes before a 304: a revalidation of the removed path is 410", async () => {
    let now = SUNSET_AT - 1;
    const { request } = testApp({ clock: () => now });
    const id = await createdPetId(request);
    const etag = (await request(`/v1/pets/${id}`)).headers.get("etag")!;
    now = SUNSET_AT;
    const revalidated = await request(`/v1/pets/${id}`, { headers: { "if-none-match": etag } });
    assert.equal(revalidated.status, 410);
  });

  it("OPTIONS needs no key: 204 with Allow, before the key check", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { method: "OPTIONS", key: null });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
  });

  it("OPTIONS on the removed path is 410 without a key, not 204 and not 401", async () => {
    const { request } = testApp(pastSunset);
    const response = await request("/v1/pets/1", { method: "OPTIONS", key: null });
    assert.equal(response.status, 410);
    assert.equal(response.headers.get("allow"), null);
  });

  it("HEAD runs GET's handler and drops the body, keeping Content-Length", async () => {
    const { request } = testApp();
    const get = await request("/v1/pets");
    const body = new Uint8Array(await get.arrayBuffer());
    const head = await request("/v1/pets", { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), String(body.byteLength));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  });

  it("every answer, errors included, gets the common headers and one log line", async () => {
    const { request, log } = testApp(pastSunset);
    const answers = [
      await request("/v1/pets/1", { key: null }),
      await request("/v1/pets/1"),
      await request("/v1/pets/1", { method: "OPTIONS" }),
      await request("/healthz"),
    ];
    for (const response of answers) {
      assert.equal(response.headers.get("x-content-type-options"), "nosniff");
      assert.ok(response.headers.get("x-request-id"));
    }
    for (const response of answers.slice(0, 3)) {
      assert.ok(response.headers.get("deprecation"), "deprecation on the deprecated path");
    }
    assert.equal(answers[0].headers.get("cache-control"), "no-store", "a 401 is not stored");
    assert.equal(answers[3].headers.get("deprecation"), null);
    const requestLines = log.lines.filter((line) => line.msg === "request");
    assert.deepEqual(requestLines.map((line) => line.status), [401, 410, 410, 200]);
  });

  it("sets X-Content-Type-Options: nosniff on every response", async () => {
    const { request } = testApp();
    for (const path of ["/healthz", "/v1/pets", "/nowhere"]) {
      assert.equal((await request(path)).headers.get("x-content-type-options"), "nosniff");
    }
  });
});
