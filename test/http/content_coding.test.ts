import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { negotiateCoding } from "../../src/http/content_coding.ts";

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
