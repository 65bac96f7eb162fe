/** The app's security layers end to end, with no socket: CORS, rate limits and the URL cap. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OTHER_KEY, testApp } from "./support/app.ts";

const APP = "https://app.example.com";

async function errorCode(response: Response): Promise<string> {
  const body = await response.json();
  assert.equal(body.status, response.status);
  return body.code;
}

describe("CORS in the app", () => {
  it("is off by default: no Access-Control-* header even for a browser origin", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets", { headers: { origin: APP } });
    for (const [name] of response.headers) assert.ok(!name.startsWith("access-control-"), name);
    const options = await request("/v1/pets", {
      method: "OPTIONS",
      key: null,
      headers: { origin: APP, "access-control-request-method": "POST" },
    });
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("access-control-allow-origin"), null);
  });

  it("answers a preflight on a known path with 204, without a key", async () => {
    const { request } = testApp({ env: { CORS_ORIGINS: APP } });
    const response = await request("/v1/pets/7", {
      method: "OPTIONS",
      key: null,
      headers: {
        origin: APP,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), APP);
    assert.equal(response.headers.get("access-control-allow-methods"), "GET, HEAD, OPTIONS");
    assert.equal(
      response.headers.get("access-control-allow-headers"),
      "Authorization, Content-Type, Idempotency-Key, X-Request-Id, If-None-Match",
    );
    assert.equal(response.headers.get("access-control-max-age"), "600");
    assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
  });

  it("puts the CORS headers on errors too (401, 404) so browser code can read them", async () => {
    const { request } = testApp({ env: { CORS_ORIGINS: `https://other.example,${APP}` } });
    for (const [path, key, status] of [["/v1/pets", null, 401], ["/v1/nowhere", undefined, 404]]) {
      const response = await request(path as string, {
        key: key as null | undefined,
        headers: { origin: APP },
      });
      assert.equal(response.status, status);
      assert.equal(response.headers.get("access-control-allow-origin"), APP);
      assert.match(response.headers.get("access-control-expose-headers") ?? "", /X-Request-Id/);
      assert.match(response.headers.get("vary") ?? "", /Origin/);
    }
  });

  it("gives an origin that is not listed no CORS headers, and still answers normally", async () => {
    const { request } = testApp({ env: { CORS_ORIGINS: APP } });
    const response = await request("/v1/pets", { headers: { origin: "https://evil.example" } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), null);
  });

  it("answers * when CORS_ORIGINS is *", async () => {
    const { request } = testApp({ env: { CORS_ORIGINS: "*" } });
    const response = await request("/healthz", { headers: { origin: "https://x.example" } });
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
  });
});

describe("RATE_LIMIT in the app", () => {
  it("allows RATE_LIMIT requests per key, then 429 rate_limited with Retry-After and headers", async () => {
    const clock = { now: Date.UTC(2027, 0, 1) };
    const { request } = testApp({ env: { RATE_LIMIT: "3" }, clock: () => clock.now });
    const first = await request("/v1/pets");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("ratelimit-policy"), '"per-key";q=3;w=60');
    assert.equal(first.headers.get("ratelimit"), '"per-key";r=2;t=20');
    assert.equal((await request("/v1/nowhere")).status, 404, "every authenticated request counts");
    assert.equal((await request("/v1/pets", { method: "HEAD" })).status, 200);
    const limited = await request("/v1/pets");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "20");
    assert.equal(limited.headers.get("ratelimit"), '"per-key";r=0;t=60');
    assert.equal(await errorCode(limited), "rate_limited");
    assert.equal((await request("/v1/pets", { key: OTHER_KEY })).status, 200, "per key");
    clock.now += 20_000;
    assert.equal((await request("/v1/pets")).status, 200, "a token came back");
  });

  it("never limits health, readiness, OPTIONS or requests without an accepted key", async () => {
    const { request } = testApp({ env: { RATE_LIMIT: "1" }, clock: () => 0 });
    assert.equal((await request("/v1/pets")).status, 200);
    for (let i = 0; i < 5; i++) {
      assert.equal((await request("/healthz")).status, 200);
      assert.equal((await request("/readyz")).status, 200);
      assert.equal((await request("/v1/pets", { method: "OPTIONS", key: null })).status, 204);
      const anonymous = await request("/v1/pets", { key: null });
      assert.equal(anonymous.status, 401, "the key is checked before the limit");
      assert.equal(anonymous.headers.get("ratelimit"), null);
    }
    assert.equal((await request("/v1/pets")).status, 429);
  });

  it("is off by default: no RateLimit headers", async () => {
    const { request } = testApp();
    const response = await request("/v1/pets");
    assert.equal(response.headers.get("ratelimit"), null);
    assert.equal(response.headers.get("ratelimit-policy"), null);
  });
});

describe("URL length cap in the app", () => {
  it("answers 400 invalid_query for a query past 8 KiB, 404 for a path past it", async () => {
    const { request } = testApp();
    assert.equal((await request(`/v1/pets?limit=5&x=${"a".repeat(8000)}`)).status, 200);
    const longQuery = await request(`/v1/pets?limit=5&x=${"a".repeat(9000)}`);
    assert.equal(longQuery.status, 400);
    assert.equal(await errorCode(longQuery), "invalid_query");
    const longPath = await request(`/v1/${"p".repeat(9000)}`);
    assert.equal(longPath.status, 404);
    assert.equal(await errorCode(longPath), "not_found");
  });

  it("still answers 401 first for an over-long URL without a key", async () => {
    const { request } = testApp();
    const response = await request(`/v1/pets?x=${"a".repeat(20_000)}`, { key: null });
    assert.equal(response.status, 401);
  });
});
