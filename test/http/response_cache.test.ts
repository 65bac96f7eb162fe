import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  type CachedResponse,
  ENTRY_OVERHEAD_BYTES,
  ResponseCache,
} from "../../src/http/response_cache.ts";

function entry(bytes: number, etag = '"x"'): CachedResponse {
  return { body: new Uint8Array(bytes), etag, coding: "identity", link: undefined };
}

/** The cost of an entry of `bytes` under a one-character key. */
const cost = (bytes: number) => bytes + 1 + ENTRY_OVERHEAD_BYTES;

describe("ResponseCache", () => {
  it("returns what it keeps", () => {
    const cache = new ResponseCache(10_000);
    const kept = entry(100);
    cache.set("a", kept);
    assert.equal(cache.get("a"), kept);
    assert.equal(cache.get("b"), undefined);
    assert.equal(cache.bytes, cost(100));
  });

  it("keeps nothing with a budget of 0", () => {
    const cache = new ResponseCache(0);
    cache.set("a", entry(0));
    assert.equal(cache.get("a"), undefined);
    assert.equal(cache.size, 0);
  });

  it("does not keep a body larger than the budget, and evicts nothing for it", () => {
    const cache = new ResponseCache(cost(500));
    cache.set("a", entry(500));
    cache.set("b", entry(501));
    assert.equal(cache.get("b"), undefined);
    assert.notEqual(cache.get("a"), undefined);
  });

  it("evicts the least recently used entries to stay within the budget", () => {
    const cache = new ResponseCache(cost(100) * 3);
    cache.set("a", entry(100));
    cache.set("b", entry(100));
    cache.set("c", entry(100));
    cache.get("a"); // now b is the least recently used
    cache.set("d", entry(100));
    assert.equal(cache.get("b"), undefined);
    for (const key of ["a", "c", "d"]) assert.notEqual(cache.get(key), undefined, key);
    assert.equal(cache.bytes, cost(100) * 3);
    cache.set("e", entry(250)); // needs the room of two
    assert.equal(cache.size, 2);
    assert.ok(cache.bytes <= cost(100) * 3);
  });

  it("replaces an entry under the same key without counting it twice", () => {
    const cache = new ResponseCache(10_000);
    cache.set("a", entry(100, '"1"'));
    cache.set("a", entry(200, '"2"'));
    assert.equal(cache.get("a")?.etag, '"2"');
    assert.equal(cache.bytes, cost(200));
  });

  it("admits an offered key the second time it misses, not the first", () => {
    const cache = new ResponseCache(10_000, 4);
    cache.offer("a", entry(1));
    cache.offer("b", entry(1));
    assert.equal(cache.get("a"), undefined);
    assert.equal(cache.size, 0);
    cache.offer("a", entry(1));
    assert.notEqual(cache.get("a"), undefined);
    assert.equal(cache.get("b"), undefined);
  });

  it("forgets what it saw once `admissionWindow` distinct keys missed", () => {
    const cache = new ResponseCache(10_000, 2);
    cache.offer("a", entry(1));
    cache.offer("b", entry(1));
    cache.offer("c", entry(1)); // the window was full: starts over with c
    assert.equal(cache.size, 0, "a first miss is never kept");
    cache.offer("a", entry(1));
    assert.equal(cache.get("a"), undefined);
    cache.offer("c", entry(1));
    assert.notEqual(cache.get("c"), undefined);
    assert.equal(cache.size, 1);
  });
});
