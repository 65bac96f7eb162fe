/** CORS in the app: off by default, preflights, errors decorated, unlisted origins, *, exposed headers. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { testApp } from "../support/app.ts";

const APP = "https://app.example.com";

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

  it("exposes every header docs/api.md lists to browser code when CORS_ORIGINS is set", async () => {
    const origin = "https://app.example.com";
    const { request } = testApp({ env: { CORS_ORIGINS: origin, RATE_LIMIT: "60" } });
    const response = await request("/v1/pets", { headers: { origin } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("access-control-allow-origin"), origin);
    const exposed = (response.headers.get("access-control-expose-headers") ?? "")
      .split(",").map((name) => name.trim().toLowerCase());
    // Written out, not imported: this is the list the contract promises browser code.
    for (
      const name of [
        "Link",
        "Location",
        "Deprecation",
        "Sunset",
        "Retry-After",
        "X-Request-Id",
        "Idempotent-Replayed",
        "RateLimit",
        "RateLimit-Policy",
        "ETag",
      ]
    ) {
      assert.ok(exposed.includes(name.toLowerCase()), `${name} in ${exposed.join(", ")}`);
    }
    // The rate-limit headers this response really carries are among them.
    const rateLimitHeaders = [...response.headers.keys()].filter((name) =>
      name.startsWith("ratelimit")
    );
    assert.equal(rateLimitHeaders.length, 2, rateLimitHeaders.join(", "));
    for (const name of rateLimitHeaders) assert.ok(exposed.includes(name), name);
  });
});
