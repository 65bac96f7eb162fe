/** RATE_LIMIT in the app: the per-key quota, its headers, what it never counts, off by default. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, OTHER_KEY, testApp } from "../support/app.ts";

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
    assert.equal((await errorOf(limited)).code, "rate_limited");
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
