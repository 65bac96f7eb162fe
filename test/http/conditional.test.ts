import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ifNoneMatchMatches } from "../../src/http/conditional.ts";

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
