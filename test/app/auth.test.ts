/** The API key in the app: the Bearer challenge, which keys count, and that it is checked first. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, KEY, OTHER_KEY, testApp } from "../support/app.ts";

describe("authentication", () => {
  it("GET /v1/pets without a key returns 401 unauthorized with a bare Bearer challenge", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { key: null });
    assert.equal(response.status, 401);
    assert.equal((await errorOf(response)).code, "unauthorized");
    assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="animal-store"');
  });

  it('a wrong key returns 401 with error="invalid_token"', async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { key: "nope" });
    assert.equal(response.status, 401);
    assert.equal(
      response.headers.get("www-authenticate"),
      'Bearer realm="animal-store", error="invalid_token"',
    );
  });

  it("a non-Bearer Authorization header counts as no key", async () => {
    const { request } = testApp();
    for (const authorization of ["Basic abc", "Bearer", "Bearer ", KEY]) {
      const response = await request("/v1/pets", { headers: { authorization } });
      assert.equal(response.status, 401, authorization);
      assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="animal-store"');
    }
  });

  it("every configured key is accepted", async () => {
    const { request } = testApp();
    assert.equal((await request("/v1/pets", { key: OTHER_KEY })).status, 200);
    assert.equal(
      (await request("/v1/pets", { headers: { authorization: `bearer ${KEY}` } })).status,
      200,
    );
  });

  it("the key is checked before anything else: no 400, 404, 405, 413 or 415 without it", async () => {
    const { request } = testApp({ env: { MAX_BODY_BYTES: "10" } });
    const cases: [string, RequestInit][] = [
      ["/v1/pets?limit=0", {}],
      ["/v1/nowhere", {}],
      ["/v1/pets/abc", {}],
      ["/v1/pets", { method: "DELETE" }],
      ["/v1/pets", {
        method: "POST",
        body: "x".repeat(100),
        headers: { "content-type": "application/json" },
      }],
      ["/v1/pets", { method: "POST", body: "{}", headers: { "content-type": "text/plain" } }],
    ];
    for (const [path, init] of cases) {
      const response = await request(path, { ...init, key: null });
      assert.equal(response.status, 401, `${init.method ?? "GET"} ${path}`);
    }
  });
});
