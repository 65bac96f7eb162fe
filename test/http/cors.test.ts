import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ALLOWED_HEADERS,
  CorsPolicy,
  corsPolicyFor,
  EXPOSED_HEADERS,
} from "../../src/http/cors.ts";

const APP = "https://app.example.com";

function preflight(origin: string | null, method: string | null = "POST"): Request {
  const headers = new Headers();
  if (origin !== null) headers.set("origin", origin);
  if (method !== null) headers.set("access-control-request-method", method);
  return new Request("http://localhost/v1/pets", { method: "OPTIONS", headers });
}

describe("CorsPolicy", () => {
  it("corsPolicyFor() is off (undefined) when no origin is configured", () => {
    assert.equal(corsPolicyFor([]), undefined);
  });

  it("decorate() echoes an allowed origin, exposes the contract's headers and varies on Origin", () => {
    const headers: Record<string, string> = {};
    new CorsPolicy([APP]).decorate(APP, headers);
    assert.equal(headers["access-control-allow-origin"], APP);
    assert.equal(headers["vary"], "Origin");
    assert.equal(headers["access-control-expose-headers"], EXPOSED_HEADERS);
    for (const name of ["Link", "Location", "Retry-After", "RateLimit", "RateLimit-Policy"]) {
      assert.ok(EXPOSED_HEADERS.split(", ").includes(name), name);
    }
  });

  it("decorate() adds no CORS header for another origin or none, but still varies on Origin", () => {
    for (const origin of ["https://evil.example.com", null, "null"]) {
      const headers: Record<string, string> = {};
      new CorsPolicy([APP]).decorate(origin, headers);
      assert.equal(headers["access-control-allow-origin"], undefined);
      assert.equal(headers["access-control-expose-headers"], undefined);
      assert.equal(headers["vary"], "Origin");
    }
  });

  it("decorate() answers * for any origin when configured as *, without Vary", () => {
    const headers: Record<string, string> = {};
    new CorsPolicy(["*"]).decorate("https://anyone.example", headers);
    assert.equal(headers["access-control-allow-origin"], "*");
    assert.equal(headers["vary"], undefined);
  });

  it("preflight() answers methods, headers and max-age for an allowed origin only", () => {
    const allowed: Record<string, string> = {};
    new CorsPolicy([APP]).preflight(preflight(APP), "GET, HEAD, POST, OPTIONS", allowed);
    assert.equal(allowed["access-control-allow-methods"], "GET, HEAD, POST, OPTIONS");
    assert.equal(allowed["access-control-allow-headers"], ALLOWED_HEADERS);
    assert.equal(allowed["access-control-max-age"], "600");
    const other: Record<string, string> = {};
    new CorsPolicy([APP]).preflight(preflight("https://evil.example"), "GET", other);
    assert.equal(other["access-control-allow-methods"], undefined);
  });

  it("preflight() ignores an OPTIONS request without Access-Control-Request-Method", () => {
    const headers: Record<string, string> = {};
    new CorsPolicy([APP]).preflight(preflight(APP, null), "GET", headers);
    assert.equal(Object.keys(headers).length, 0);
  });
});
