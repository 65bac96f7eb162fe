/** Idempotency-Key on POST /v1/pets in the app: replays, reuse, scope, in-flight repeats, syntax. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { errorOf, KEY, OTHER_KEY, testApp } from "../support/app.ts";

const rex = JSON.stringify({ name: "Rex", categoryId: 1, status: "available" });

describe("Idempotency-Key", () => {
  const post = (
    request: ReturnType<typeof testApp>["request"],
    body: string,
    key: string,
    apiKey = KEY,
  ) =>
    request("/v1/pets", { method: "POST", body, headers: { "idempotency-key": key }, key: apiKey });

  it("a repeat with the same body returns the original 201 with Idempotent-Replayed", async () => {
    const { request, store } = testApp();
    const first = await post(request, rex, "k-1");
    assert.equal(first.status, 201);
    assert.equal(first.headers.get("idempotent-replayed"), null);
    const reordered = JSON.stringify({ status: "available", categoryId: 1, name: "Rex" });
    const again = await post(request, ` ${reordered} `, "k-1");
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.headers.get("location"), first.headers.get("location"));
    assert.deepEqual(await again.json(), await first.json());
    assert.equal(store.pets.length, 1);
  });

  it("the same key with a different body is 422 idempotency_key_reused", async () => {
    const { request } = testApp();
    await post(request, rex, "k-2");
    const response = await post(request, JSON.stringify({ name: "Other", categoryId: 1 }), "k-2");
    assert.equal(response.status, 422);
    assert.equal((await errorOf(response)).code, "idempotency_key_reused");
  });

  it("keys are scoped per API key", async () => {
    const { request, store } = testApp();
    await post(request, rex, "k-3", KEY);
    const other = await post(request, rex, "k-3", OTHER_KEY);
    assert.equal(other.headers.get("idempotent-replayed"), null);
    assert.equal(store.pets.length, 2);
  });

  it("a repeat while the first is still being written is 409 idempotency_key_in_flight", async () => {
    const { request, store } = testApp();
    let open!: () => void;
    store.writeGate = new Promise((resolve) => (open = resolve));
    const first = post(request, rex, "k-4");
    const second = await post(request, rex, "k-4");
    assert.equal(second.status, 409);
    assert.equal((await errorOf(second)).code, "idempotency_key_in_flight");
    open();
    assert.equal((await first).status, 201);
  });

  it("a key of exactly 255 visible ASCII characters is accepted and replayed", async () => {
    const { request, store } = testApp();
    const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i))
      .join("");
    const key = visible.repeat(3).slice(0, 255);
    assert.equal(key.length, 255);
    assert.equal((await post(request, rex, key)).status, 201);
    const again = await post(request, rex, key);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(store.pets.length, 1);
  });

  it("a malformed key is 400 validation_failed naming the header", async () => {
    const { request } = testApp();
    for (const key of ["", "x".repeat(256), "has space", "é"]) {
      const response = await request("/v1/pets", {
        method: "POST",
        body: rex,
        headers: { "idempotency-key": key },
      });
      assert.equal(response.status, 400, JSON.stringify(key));
      const error = await errorOf(response);
      assert.equal(error.code, "validation_failed");
      assert.match(error.message, /Idempotency-Key/);
    }
  });
});
