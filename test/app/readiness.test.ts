/** /healthz and /readyz in the app, and how API requests are answered while the store is not ready. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, testApp } from "../support/app.ts";

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

describe("health and readiness", () => {
  it("/healthz and /readyz answer without a key", async () => {
    const { request } = testApp();
    const health = await request("/healthz", { key: null });
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal((await request("/readyz", { key: null })).status, 200);
  });

  it("/readyz is 503 while the store is loading and 200 once it is ready; API requests wait for the load", async () => {
    const { app, store, request } = testApp({ storeLoaded: false });
    const loading = await request("/readyz", { key: null });
    assert.equal(loading.status, 503);
    assert.equal((await errorOf(loading)).code, "unavailable");
    assert.equal((await request("/healthz", { key: null })).status, 200);
    // Sent while loading, answered once the store is there, not with a 503.
    const list = request("/v1/pets");
    const create = request("/v1/pets", { method: "POST", body: rex });
    let answered = false;
    void Promise.resolve(list).then(() => answered = true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(answered, false, "a request waits while the store loads");
    // Paths that need no store answer at once.
    assert.equal((await request("/v1/openapi.json", { key: null })).status, 200);
    assert.equal((await request("/v1/nope")).status, 404);
    app.ready(store);
    assert.equal((await list).status, 200);
    assert.equal((await create).status, 201);
    assert.equal((await request("/readyz", { key: null })).status, 200);
    assert.deepEqual(
      (await (await request("/v1/pets")).json()).map((pet: { name: string }) => pet.name),
      ["Rex"],
    );
  });

  it("a request waits for a loading store only up to its bound, then answers 503 unavailable", async () => {
    const { request } = testApp({ storeLoaded: false, loadWaitMs: 100 });
    const started = performance.now();
    const response = await request("/v1/pets");
    const waited = performance.now() - started;
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    assert.match((await errorOf(response)).message, /still loading/);
    assert.ok(waited >= 90 && waited < 2_000, `answered after ${Math.round(waited)} ms`);
  });

  it("/readyz is 503 while draining, and every other request is served as before", async () => {
    const { app, request } = testApp();
    app.drain();
    const ready = await request("/readyz");
    assert.equal(ready.status, 503);
    assert.equal((await errorOf(ready)).code, "unavailable");
    assert.equal((await request("/v1/pets", { method: "POST", body: rex })).status, 201);
    assert.equal((await request("/v1/pets")).status, 200);
    assert.equal((await request("/healthz")).status, 200);
  });

  it("a store that cannot reach its data answers 503 unavailable without details, and /readyz 503", async () => {
    const { request, store, log } = testApp();
    store.available = false;
    for (const path of ["/v1/pets", "/v1/pets/1"]) {
      const response = await request(path);
      assert.equal(response.status, 503);
      assert.equal(response.headers.get("retry-after"), "1");
      const body = await errorOf(response);
      assert.equal(body.code, "unavailable");
      assert.ok(!JSON.stringify(body).includes("10.0.0.7"), "no internal detail to the client");
    }
    assert.ok(JSON.stringify(log.lines).includes("10.0.0.7"), "the detail is logged");
    const ready = await request("/readyz", { key: null });
    assert.equal(ready.status, 503);
    assert.match((await errorOf(ready)).message, /database/);
    assert.equal((await request("/healthz", { key: null })).status, 200);
    store.available = true;
    assert.equal((await request("/readyz", { key: null })).status, 200);
    assert.equal((await request("/v1/pets")).status, 200);
  });

  it("POST /v1/pets answers 503 unavailable while the store cannot reach its data, and saves nothing", async () => {
    const { request, store } = testApp();
    store.available = false;
    const refused = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "idempotency-key": "while-down" },
    });
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal((await errorOf(refused)).code, "unavailable");
    assert.equal(store.pets.length, 0);
    store.available = true;
    // The refused request claimed nothing: its key makes a pet once the store is back.
    const created = await request("/v1/pets", {
      method: "POST",
      body: rex,
      headers: { "idempotency-key": "while-down" },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get("idempotent-replayed"), null);
  });
});
