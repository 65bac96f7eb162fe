import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Lifecycle } from "../../src/app/lifecycle.ts";
import { MemoryStore } from "../support/memory_store.ts";

describe("Lifecycle", () => {
  it("readiness goes loading, ready, draining; notReady() says why /readyz is 503", () => {
    const lifecycle = new Lifecycle();
    assert.equal(lifecycle.readiness, "loading");
    assert.equal(lifecycle.notReady()?.message, "The store is still loading");
    assert.throws(() => lifecycle.storeForRequest()(), { status: 503 });
    lifecycle.ready(new MemoryStore());
    assert.equal(lifecycle.readiness, "ready");
    assert.equal(lifecycle.notReady(), undefined);
    void lifecycle.drain();
    assert.equal(lifecycle.readiness, "draining");
    assert.equal(lifecycle.notReady()?.message, "The service is shutting down");
    assert.ok(lifecycle.storeForRequest()(), "a draining service still serves");
  });

  it("a store that finishes loading after the drain began leaves the service draining", () => {
    const lifecycle = new Lifecycle();
    void lifecycle.drain();
    lifecycle.ready(new MemoryStore());
    assert.equal(lifecycle.readiness, "draining");
    assert.equal(lifecycle.notReady()?.message, "The service is shutting down");
  });

  it("drain(delayMs) resolves after the delay, or at once on endDelay()", async () => {
    const lifecycle = new Lifecycle({ store: new MemoryStore() });
    const started = performance.now();
    await lifecycle.drain(30);
    assert.ok(performance.now() - started >= 25);
    assert.equal(lifecycle.endDelay(), false, "no delay runs any more");
    const again = new Lifecycle({ store: new MemoryStore() });
    const ended = again.drain(60_000);
    assert.equal(again.endDelay(), true);
    await ended;
  });

  it("idle() resolves once the last request in flight ends", async () => {
    const lifecycle = new Lifecycle({ store: new MemoryStore() });
    await lifecycle.idle();
    lifecycle.begin();
    lifecycle.begin();
    let idle = false;
    const waiting = lifecycle.idle().then(() => idle = true);
    lifecycle.end();
    await Promise.resolve();
    assert.equal(idle, false);
    lifecycle.end();
    await waiting;
    assert.equal(lifecycle.inFlight, 0);
  });

  it("untilLoaded() resolves at the load, or after the load wait", async () => {
    const waiting = new Lifecycle({ loadWaitMs: 60_000 });
    const loaded = waiting.untilLoaded();
    waiting.ready(new MemoryStore());
    await loaded;
    const started = performance.now();
    await new Lifecycle({ loadWaitMs: 20 }).untilLoaded();
    assert.ok(performance.now() - started >= 15);
  });
});
