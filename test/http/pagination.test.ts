import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Buffer } from "node:buffer";
import { decodeCursor, encodeCursor } from "../../src/http/pagination.ts";

describe("cursors", () => {
  it("encodeCursor() and decodeCursor() round-trip a position", () => {
    for (
      const position of [{ afterId: 0, status: undefined }, {
        afterId: 123456789,
        status: "sold" as const,
      }]
    ) {
      assert.deepEqual(decodeCursor(encodeCursor(position)), position);
    }
  });

  it("decodeCursor() refuses altered, truncated or invented cursors", () => {
    const cursor = encodeCursor({ afterId: 41, status: "pending" });
    const [payload, check] = cursor.split(".");
    const forged = Buffer.from("42.pending").toString("base64url");
    for (
      const bad of [
        "",
        ".",
        cursor.slice(0, -1),
        `${payload}.`,
        `${forged}.${check}`,
        `${payload}=.${check}`,
        "abc",
        `${cursor}x`,
      ]
    ) {
      assert.equal(decodeCursor(bad), undefined, bad);
    }
  });

  it("decodeCursor() refuses every one-character change of a cursor's checksum or payload", () => {
    const cursor = encodeCursor({ afterId: 987654, status: "sold" });
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
    let tried = 0;
    for (let i = 0; i < cursor.length; i++) {
      for (const replacement of alphabet) {
        if (replacement === cursor[i]) continue;
        const altered = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
        assert.equal(decodeCursor(altered), undefined, altered);
        tried++;
      }
    }
    assert.ok(tried > 1000);
  });

  it("encodeCursor() writes its payload as standard base64url, decodeCursor() reads it back", () => {
    for (const afterId of [0, 1, 12, 123, 4567, 98765, 123456789, 9007199254740991]) {
      for (const status of [undefined, "available", "pending", "sold"] as const) {
        const cursor = encodeCursor({ afterId, status });
        const payload = `${afterId}.${status ?? ""}`;
        assert.equal(cursor.split(".")[0], Buffer.from(payload).toString("base64url"));
        assert.deepEqual(decodeCursor(cursor), { afterId, status });
      }
    }
  });

  it("keeps accepting the cursors it issued before (clients walking across an upgrade)", () => {
    // Issued by the service of 2026-11-23 (36c67bd) for `GET /v1/pets?limit=2` after pet 2.
    assert.equal(encodeCursor({ afterId: 2, status: undefined }), "Mi4.c72a7fc7a9730915");
    assert.deepEqual(decodeCursor("Mi4.c72a7fc7a9730915"), { afterId: 2, status: undefined });
  });

  it("different positions get different checksums", () => {
    const seen = new Set<string>();
    for (let afterId = 0; afterId < 5000; afterId++) {
      for (const status of [undefined, "available", "pending", "sold"] as const) {
        seen.add(encodeCursor({ afterId, status }).split(".")[1]);
      }
    }
    assert.equal(seen.size, 20000);
  });
});
