import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  ifNoneMatchMatches,
  negotiateCoding,
  type PageFacts,
  pageTag,
  petTag,
} from "../../src/http/conditional_get.ts";

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

describe("ifNoneMatchMatches()", () => {
  const tag = '"0123456789abcdef"';
  const cases: [string | null, boolean][] = [
    [null, false],
    ["", false],
    [tag, true],
    [`W/${tag}`, true],
    ["*", true],
    [" * ", true],
    [`"other", ${tag}`, true],
    [`"other",W/${tag}`, true],
    [`"a,b", ${tag}`, true],
    [`"a,b"`, false],
    ['"0123456789abcdeF"', false],
    ["0123456789abcdef", false],
    [`"other"`, false],
    [`W/"other", "x"`, false],
    [`"unterminated, ${tag}`, false],
    [`"other" junk ${tag}`, false],
  ];
  for (const [header, expected] of cases) {
    it(`${expected ? "matches" : "does not match"} ${JSON.stringify(header)}`, () => {
      assert.equal(ifNoneMatchMatches(header, tag), expected);
    });
  }
});

describe("negotiateCoding()", () => {
  const cases: [string | null, string][] = [
    [null, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["br", "br"],
    ["gzip, deflate, br", "br"],
    ["gzip, deflate, br, zstd", "br"],
    ["GZIP", "gzip"],
    ["x-gzip", "gzip"],
    ["deflate", "identity"],
    ["identity", "identity"],
    ["br;q=0.5, gzip;q=0.8", "gzip"],
    ["br;q=0.8, gzip;q=0.8", "br"],
    ["gzip;q=1.0, br;q=0.999", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["br;q=0, gzip;q=0", "identity"],
    ["gzip;q=0.000", "identity"],
    ["*", "br"],
    ["*;q=0.5, br;q=0.2", "gzip"],
    ["*;q=0", "identity"],
    ["*, br;q=0", "gzip"],
    ["gzip;q=0.5, identity", "identity"],
    ["gzip;q=0.5, identity;q=0.5", "gzip"],
    ["gzip, identity;q=0", "gzip"],
    ["br ; q=0.3 , gzip ; Q=0.2", "br"],
    ["gzip;q=2", "identity"],
    ["gzip;q=abc, br;q=0.1", "br"],
    ["gzip;level=9", "gzip"],
    [" , ,gzip", "gzip"],
  ];
  for (const [header, expected] of cases) {
    it(`chooses ${expected} for ${JSON.stringify(header)}`, () => {
      assert.equal(negotiateCoding(header), expected);
    });
  }
});
