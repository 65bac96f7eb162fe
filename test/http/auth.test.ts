import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { keyDigest, keyFingerprint, KeyRing } from "../../src/http/auth.ts";

describe("KeyRing", () => {
  it("verify() returns the fingerprint of an accepted key, again and again, and undefined otherwise", () => {
    const keys = new KeyRing([keyDigest("alpha"), keyDigest("beta")]);
    const fingerprint = keyFingerprint(keyDigest("beta"));
    for (let i = 0; i < 3; i++) assert.equal(keys.verify("beta"), fingerprint);
    assert.equal(keys.verify("bet"), undefined);
    assert.equal(keys.verify("beta "), undefined);
    assert.equal(keys.verify("BETA"), undefined);
  });

  it("replace() revokes a key that was verified (and remembered) before", () => {
    const keys = new KeyRing([keyDigest("old"), keyDigest("kept")]);
    assert.ok(keys.verify("old") !== undefined);
    assert.ok(keys.verify("kept") !== undefined);
    keys.replace([keyDigest("kept"), keyDigest("new")]);
    assert.equal(keys.verify("old"), undefined, "a remembered key does not outlive its removal");
    assert.ok(keys.verify("kept") !== undefined);
    assert.ok(keys.verify("new") !== undefined);
  });
});
