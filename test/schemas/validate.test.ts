import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validateNewPet } from "../../src/schemas/validate.ts";

describe("validateNewPet()", () => {
  it("names the three statuses, quoted, when status is not one of them", () => {
    const result = validateNewPet({ name: "Rex", categoryId: 1n, status: "lost" });
    assert.deepEqual(result, {
      ok: false,
      details: [{
        path: "/status",
        message: 'status must be one of "available", "pending", "sold"',
      }],
    });
  });

  it("names the int64 range when categoryId is not a plain integer", () => {
    const result = validateNewPet({ name: "Rex", categoryId: 1.5 });
    assert.deepEqual(result, {
      ok: false,
      details: [{
        path: "/categoryId",
        message:
          "categoryId must be an integer from -9223372036854775808 to 9223372036854775807, written without fraction or exponent",
      }],
    });
  });
});
