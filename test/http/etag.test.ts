import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type PageFacts, pageTag, petTag } from "../../src/http/etag.ts";

const facts: PageFacts = {
  status: "sold",
  afterId: 40,
  limit: 20,
  firstId: 41,
  lastId: 60,
  count: 20,
  hasMore: true,
};

describe("pageTag() and petTag()", () => {
  it("are strong quoted tags of 16 hex digits", () => {
    assert.match(pageTag(facts, "identity"), /^"[0-9a-f]{16}"$/);
    assert.match(petTag(7, "identity"), /^"[0-9a-f]{16}"$/);
  });

  it("are fixed for the same facts: written out, so a change of derivation fails here", () => {
    // Tags must stay the same across releases that keep the bytes (clients hold them), on every
    // runtime: a change here needs FORMAT_VERSION's reasoning, not a new expected value.
    assert.equal(pageTag(facts, "identity"), '"3a742036b5b1cd01"');
    assert.equal(petTag(7, "br"), '"4b199a5c567065e1"');
  });

  it("change with every fact and with the coding", () => {
    const base = pageTag(facts, "identity");
    const variants: PageFacts[] = [
      { ...facts, status: undefined },
      { ...facts, status: "pending" },
      { ...facts, afterId: 41 },
      { ...facts, limit: 21 },
      { ...facts, firstId: 42 },
      { ...facts, lastId: 61 },
      { ...facts, count: 19 },
      { ...facts, hasMore: false },
    ];
    const tags = new Set([base, pageTag(facts, "gzip"), pageTag(facts, "br")]);
    for (const variant of variants) tags.add(pageTag(variant, "identity"));
    assert.equal(tags.size, 3 + variants.length);
    const pets = new Set([
      petTag(7, "identity"),
      petTag(7, "gzip"),
      petTag(7, "br"),
      petTag(8, "identity"),
    ]);
    assert.equal(pets.size, 4);
  });
});
