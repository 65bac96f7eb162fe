import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  createConditionalGet,
  ifNoneMatchMatches,
  negotiateCoding,
  pageTag,
  petTag,
} from "../../src/http/conditional_get.ts";
import { replyHeaders } from "../../src/http/responses.ts";
import { type Reply } from "../../src/runtime/contract.ts";
import type { PageFacts } from "../../src/schemas/page.ts";

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

describe("the pet read", () => {
  it("gives each pet its own tag and body when ids share a slot of the tags kept", () => {
    // Ids 7, 1031 and 2055 fall on the same slot of the 1024 tags kept: read in turn, each
    // replaces the slot's tag, and none may be answered with another's.
    const reads = createConditionalGet({ cacheBytes: 0, publicBase: "/v1" });
    const jsonOf = (id: number) => `{"id":${id},"name":"Pet ${id}"}`;
    const context = (ifNoneMatch?: string) => ({
      request: new Request("http://localhost/v1/pets/1", {
        headers: ifNoneMatch === undefined ? {} : { "if-none-match": ifNoneMatch },
      }),
      store: () => ({
        get: (id: number) => ({ json: jsonOf(id) }),
        listJson: () => {
          throw new Error("not a page");
        },
      }),
      headers: replyHeaders({ keyed: true }),
    });
    for (let round = 0; round < 3; round++) {
      for (const id of [7, 1031, 2055, 7, 7, 2055]) {
        const reply = reads.pet(context(), id) as Reply;
        assert.equal(reply.status, 200);
        assert.equal(reply.body, jsonOf(id));
        assert.equal(reply.headers.etag, petTag(id, "identity"), `pet ${id}`);
        // The tag the client then holds gets a 304 for that pet only.
        const again = reads.pet(context(petTag(id, "identity")), id) as Reply;
        assert.equal(again.status, 304, `pet ${id}`);
        const other = id === 7 ? 1031 : 7;
        assert.equal((reads.pet(context(petTag(id, "identity")), other) as Reply).status, 200);
      }
    }
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
