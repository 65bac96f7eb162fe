import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newRequestId, requestIdFor } from "../../src/http/request_id.ts";

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ECHOED = /^[A-Za-z0-9._:=-]{1,200}$/;

describe("request ids", () => {
  it("makes ids of the version-4 UUID shape that a client could send back and see echoed", () => {
    for (let i = 0; i < 100; i++) {
      const id = newRequestId();
      assert.match(id, UUID_SHAPE);
      assert.match(id, ECHOED);
      assert.equal(requestIdFor(id), id);
    }
  });

  it("never makes the same id twice in a process", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(newRequestId());
    assert.equal(seen.size, 100_000);
  });

  it("differs between processes in the random part", async () => {
    // A second copy of the module stands in for a second process: its prefix is drawn anew.
    const other = await import(`../../src/http/request_id.ts?copy=${Date.now()}`);
    const here = newRequestId().slice(0, 23);
    const there = (other.newRequestId() as string).slice(0, 23);
    assert.notEqual(here, there);
  });

  it("echoes a safe client id and replaces an unsafe or missing one", () => {
    assert.equal(requestIdFor("abc-123:x=y"), "abc-123:x=y");
    assert.match(requestIdFor("bad id!"), UUID_SHAPE);
    assert.match(requestIdFor(null), UUID_SHAPE);
    assert.match(requestIdFor("x".repeat(201)), UUID_SHAPE);
  });
});
