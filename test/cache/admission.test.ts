import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Admission } from "../../src/cache/admission.ts";

describe("Admission", () => {
  it("admits a key the second time it misses, not the first", () => {
    const admission = new Admission(4);
    assert.equal(admission.admit("a"), false);
    assert.equal(admission.admit("b"), false);
    assert.equal(admission.admit("a"), true);
  });

  it("forgets what it saw once `window` distinct keys missed", () => {
    const admission = new Admission(2);
    assert.equal(admission.admit("a"), false);
    assert.equal(admission.admit("b"), false);
    assert.equal(admission.admit("c"), false); // the window was full: starts over with c
    assert.equal(admission.admit("a"), false);
    assert.equal(admission.admit("c"), true);
  });
});
