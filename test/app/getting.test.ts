/**
 * GET /v1/pets/{petId} in the app, the deprecated route: the pet, bad and unknown ids, the
 * deprecation headers on every answer, the fixed Deprecation date, and 410 from the sunset on.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SUNSET_AT } from "../../src/http/deprecation.ts";
import { errorOf, testApp } from "../support/app.ts";
import { clockBeforeSunset } from "../support/sunset.ts";

/** The documented deprecation date, 2026-01-01T00:00:00Z, written out: it must never move. */
const DEPRECATION = "@1767225600";
const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT";
const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

/** Creates a pet through the API. */
async function addPet(request: ReturnType<typeof testApp>["request"]) {
  const response = await request("/v1/pets", { method: "POST", body: rex });
  assert.equal(response.status, 201);
}

describe("GET /v1/pets/{petId} (deprecated)", () => {
  function assertDeprecated(response: Response) {
    assert.match(response.headers.get("deprecation") ?? "", /^@\d+$/);
    const deprecatedAt = Number(response.headers.get("deprecation")!.slice(1)) * 1000;
    assert.ok(deprecatedAt <= Date.parse(SUNSET));
    assert.equal(response.headers.get("sunset"), SUNSET);
    assert.match(response.headers.get("link") ?? "", /<\/v1\/pets>; rel="successor-version"/);
  }

  it("returns the pet with deprecation headers", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: rex });
    const response = await request("/v1/pets/1");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      id: 1,
      name: "Rex",
      categoryId: 1,
      status: "available",
    });
    assertDeprecated(response);
  });

  it("carries the deprecation headers on 401, 404, 405 and 400 too", async () => {
    const { request } = testApp();
    const cases: [string, RequestInit & { key?: string | null }, number][] = [
      ["/v1/pets/1", { key: null }, 401],
      ["/v1/pets/99", {}, 404],
      ["/v1/pets/1", { method: "DELETE" }, 405],
      ["/v1/pets/abc", {}, 400],
    ];
    for (const [path, init, status] of cases) {
      const response = await request(path, init);
      assert.equal(response.status, status, path);
      assertDeprecated(response);
    }
  });

  it("carries the deprecation headers on OPTIONS and HEAD too", async () => {
    const { request } = testApp();
    await request("/v1/pets", { method: "POST", body: rex });
    const options = await request("/v1/pets/1", { method: "OPTIONS", key: null });
    assert.equal(options.status, 204);
    assertDeprecated(options);
    for (const path of ["/v1/pets/1", "/v1/pets/99"]) {
      const head = await request(path, { method: "HEAD" });
      assert.equal(head.status, path === "/v1/pets/1" ? 200 : 404, path);
      assertDeprecated(head);
    }
  });

  it("returns 400 invalid_path for ids that are not int64 from 1, 404 for unknown ones", async () => {
    const { request } = testApp();
    for (const id of ["0", "-1", "abc", "1.5", "01", "9223372036854775808", "1e3", "%201"]) {
      const response = await request(`/v1/pets/${id}`);
      assert.equal(response.status, 400, id);
      assert.equal((await errorOf(response)).code, "invalid_path");
    }
    for (const id of ["5", "9223372036854775807", "9007199254740993"]) {
      const response = await request(`/v1/pets/${id}`);
      assert.equal(response.status, 404, id);
      assert.equal((await errorOf(response)).code, "not_found");
    }
  });

  it("answers 410 gone from the sunset instant on", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) });
    await request("/v1/pets", { method: "POST", body: rex });
    const response = await request("/v1/pets/1");
    assert.equal(response.status, 410);
    assert.equal((await errorOf(response)).code, "gone");
    assertDeprecated(response);
    const before = testApp({ clock: () => Date.parse(SUNSET) - 1 });
    await before.request("/v1/pets", { method: "POST", body: rex });
    assert.equal((await before.request("/v1/pets/1")).status, 200);
  });

  it("answers 410 gone to every method from the sunset on, OPTIONS without a key", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) });
    await request("/v1/pets", { method: "POST", body: rex });
    const cases: [RequestInit & { key?: string | null }, string][] = [
      [{ method: "OPTIONS", key: null }, "OPTIONS without a key"],
      [{ method: "OPTIONS" }, "OPTIONS"],
      [{ method: "HEAD" }, "HEAD"],
      [{ method: "DELETE" }, "DELETE"],
      [{ method: "POST", body: rex }, "POST"],
    ];
    for (const [init, label] of cases) {
      const response = await request("/v1/pets/1", init);
      assert.equal(response.status, 410, label);
      assert.equal(response.headers.get("allow"), null, label);
      assertDeprecated(response);
      if (init.method !== "HEAD") assert.equal((await errorOf(response)).code, "gone", label);
    }
    // The key is still checked first for everything but OPTIONS.
    for (const method of ["GET", "HEAD", "DELETE"]) {
      const response = await request("/v1/pets/1", { method, key: null });
      assert.equal(response.status, 401, method);
      assertDeprecated(response);
    }
    assert.equal((await request("/v1/pets", { method: "OPTIONS", key: null })).status, 204);
  });

  it("answers OPTIONS with 204 until the sunset instant", async () => {
    const { request } = testApp({ clock: () => Date.parse(SUNSET) - 1 });
    const response = await request("/v1/pets/1", { method: "OPTIONS", key: null });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
  });
});

describe("the deprecated route", () => {
  it("the Deprecation date is one fixed value, the same on every request whatever the clock", async () => {
    const clocks = [Date.UTC(2026, 5, 1), Date.UTC(2029, 0, 1), SUNSET_AT - 1, SUNSET_AT];
    for (const now of clocks) {
      const { request } = testApp({ clock: () => now });
      await addPet(request);
      for (const path of ["/v1/pets/1", "/v1/pets/1", "/v1/pets/2"]) {
        const response = await request(path);
        assert.equal(response.headers.get("deprecation"), DEPRECATION, `${path} at ${now}`);
        assert.equal(response.headers.get("sunset"), SUNSET);
      }
    }
  });

  it("429 and 503 answers on the deprecated path carry the deprecation headers", async () => {
    const assertDeprecated = (response: Response, status: number) => {
      assert.equal(response.status, status);
      assert.equal(response.headers.get("deprecation"), DEPRECATION);
      assert.equal(response.headers.get("sunset"), SUNSET);
      assert.equal(response.headers.get("link"), '</v1/pets>; rel="successor-version"');
    };
    const limited = testApp({ env: { RATE_LIMIT: "1" } });
    assertDeprecated(await limited.request("/v1/pets/1"), 404);
    assertDeprecated(await limited.request("/v1/pets/1"), 429);
    const loading = testApp({ storeLoaded: false, loadWaitMs: 10 });
    assertDeprecated(await loading.request("/v1/pets/1"), 503);
    const lost = testApp();
    lost.store.available = false;
    assertDeprecated(await lost.request("/v1/pets/1"), 503);
  });

  it("app tests run on a clock that stands before the sunset whatever the real date", () => {
    for (
      const real of [Date.UTC(2026, 10, 1), Date.UTC(2030, 11, 4), SUNSET_AT, Date.UTC(2041, 2, 3)]
    ) {
      const clock = clockBeforeSunset(() => real);
      assert.ok(clock() < SUNSET_AT, new Date(real).toISOString());
      const year = 365 * 24 * 3600 * 1000;
      assert.ok(clock() >= Math.min(real, SUNSET_AT - 2 * year), "not far from the real date");
    }
    let now = Date.UTC(2040, 0, 1);
    const moving = clockBeforeSunset(() => now);
    const before = moving();
    now += 5_000;
    assert.equal(moving() - before, 5_000, "it runs like the real clock");
  });
});
