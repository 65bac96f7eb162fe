import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { stringifyExact } from "../../src/openapi/schema_to_json.ts";

describe("stringifyExact()", () => {
  it("writes bigints with their own digits, like JSON.stringify otherwise", () => {
    const value = { a: [1, "x", null, true], b: {}, c: [], d: { e: 2.5 } };
    assert.equal(stringifyExact(value), JSON.stringify(value, null, 2));
    assert.equal(stringifyExact(value, 0), JSON.stringify(value));
    assert.equal(
      stringifyExact({ min: -(2n ** 63n), max: 2n ** 63n - 1n }, 0),
      '{"min":-9223372036854775808,"max":9223372036854775807}',
    );
  });

  it("leaves out undefined members, as JSON.stringify does", () => {
    assert.equal(stringifyExact({ a: undefined, b: 1 }, 0), '{"b":1}');
  });
});
