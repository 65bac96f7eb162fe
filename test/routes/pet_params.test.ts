import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpError } from "../../src/http/errors.ts";
import { parseListQuery } from "../../src/routes/pet_params.ts";

function invalid(query: string): string {
  try {
    parseListQuery(query);
  } catch (error) {
    assert.ok(error instanceof HttpError);
    assert.equal(error.code, "invalid_query");
    return error.message;
  }
  return assert.fail(`accepted ${query}`);
}

describe("parseListQuery", () => {
  it("parseListQuery() reads limit and status with and without percent-encoding alike", () => {
    for (
      const query of ["limit=5&status=sold", "limit=%35&status=s%6Fld", "x=1&&limit=5&status=sold&"]
    ) {
      const parsed = parseListQuery(query);
      assert.deepEqual([parsed.limit, parsed.limitGiven, parsed.status], [5, true, "sold"], query);
    }
    assert.deepEqual(parseListQuery(""), {
      limit: 20,
      limitGiven: false,
      status: undefined,
      afterId: 0,
    });
    assert.equal(parseListQuery("other=a=b&limit=7").limit, 7);
  });

  it("parseListQuery() returns 400 invalid_query for bad or repeated parameters", () => {
    for (
      const query of [
        "limit=",
        "limit",
        "limit=0",
        "limit=101",
        "limit=1.5",
        "limit=+5",
        "status=",
        "status=Sold",
        "status=sold+",
        "cursor=",
        "cursor=abc",
      ]
    ) {
      invalid(query);
    }
    assert.match(invalid("status=sold&limit=1&limit=2"), /limit must be given at most once/);
    assert.match(invalid("status=sold&limit=1&status=sold"), /status must be given at most once/);
    assert.match(invalid("status=sold&sta%74us=sold"), /status must be given at most once/);
    assert.match(invalid("cursor=a&cursor=a&limit=1&limit=1"), /limit must be given at most once/);
  });
});
