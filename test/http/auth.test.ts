import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { authenticate, keyDigest, keyFingerprint, KeyRing } from "../../src/http/auth.ts";
import { HttpError } from "../../src/http/errors.ts";

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

  it("authenticate() reads the header the same way before and after a key is remembered", () => {
    const keys = new KeyRing([keyDigest("beta")]);
    const fingerprint = keyFingerprint(keyDigest("beta"));
    const accepted = ["Bearer beta", "bearer beta", "Bearer   beta", "Bearer beta  "];
    const refused = [
      "Bearer beta x",
      "Bearer beta\t",
      "Bearer\tbeta",
      "Bearerxbeta",
      "Basic  beta", // its slice(7) is "beta": a prefix check must look at the scheme
      "Bearer betaa",
      "Bearer",
      "Basic beta",
      "beta",
    ];
    // First with nothing remembered, then with the key found accepted (its fast path).
    for (const round of ["first", "remembered"]) {
      for (const header of accepted) {
        assert.equal(authenticate(keys, header), fingerprint, `${round}: ${header}`);
      }
      for (const header of refused) {
        assert.throws(
          () => authenticate(keys, header),
          (error) => error instanceof HttpError && error.status === 401,
          `${round}: ${JSON.stringify(header)}`,
        );
      }
    }
  });

  it("authenticate() stops accepting a remembered key once it is removed", () => {
    const keys = new KeyRing([keyDigest("old")]);
    authenticate(keys, "Bearer old");
    keys.replace([keyDigest("new")]);
    assert.throws(() => authenticate(keys, "Bearer old"), HttpError);
  });
});
