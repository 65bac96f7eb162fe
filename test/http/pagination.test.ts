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
});
