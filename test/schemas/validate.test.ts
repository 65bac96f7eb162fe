import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Compile } from "typebox/compile";
import type { JsonValue } from "../../src/schemas/json_value.ts";
import { INT64_MAX, INT64_MIN, NewPet, PET_STATUSES } from "../../src/schemas/pet.ts";
import { plainNewPet, validateNewPet } from "../../src/schemas/validate.ts";

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

describe("plainNewPet(): the plain checks before the schema's", () => {
  const schema = Compile(NewPet);
  /** Bodies as the parsers make them: null-prototype objects. */
  const asParsed = (fields: Record<string, JsonValue>) =>
    Object.assign(Object.create(null), fields) as Record<string, JsonValue>;
  const printable = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  });
  const name = fc.oneof(
    printable.filter((text) => text.length <= 210),
    fc.constantFrom(
      "",
      " ",
      "   ",
      "a",
      " a ",
      "x".repeat(200),
      "x".repeat(201),
      "a\tb",
      "a\u007f",
      "Café",
      "猫",
      "\u00a0",
      "\u2028",
      "\ud800",
      "a\u0085",
    ),
    fc.string({ unit: "binary", maxLength: 6 }),
    fc.constantFrom(null, 1, 1n, true, ["Rex"]),
  );
  const categoryId = fc.oneof(
    fc.bigInt({ min: INT64_MIN - 2n, max: INT64_MAX + 2n }),
    fc.constantFrom(INT64_MIN, INT64_MAX, INT64_MIN - 1n, INT64_MAX + 1n, 0n),
    fc.constantFrom(1, 1.5, "1", null),
  );
  const status = fc.oneof(
    fc.constantFrom(...PET_STATUSES, "lost", "Sold", "", null, 1),
    fc.string(),
  );
  const extra = fc.constantFrom("foo", "__proto__", "constructor", "Name", "status");
  const body = fc.tuple(
    fc.option(name, { nil: undefined }),
    fc.option(categoryId, { nil: undefined }),
    fc.option(status, { nil: undefined }),
    fc.option(fc.tuple(extra, fc.constantFrom<JsonValue>(1, "x", null)), { nil: undefined }),
  ).map(([name, categoryId, status, extra]) => {
    const fields: Record<string, JsonValue> = {};
    if (name !== undefined) fields.name = name;
    if (categoryId !== undefined) fields.categoryId = categoryId;
    if (status !== undefined) fields.status = status;
    const parsed = asParsed(fields);
    if (extra !== undefined) parsed[extra[0]] = extra[1];
    return parsed;
  });

  it("accepts only what the schema accepts, as the same NewPet; validateNewPet exactly that", () => {
    fc.assert(
      fc.property(body, (body) => {
        const result = validateNewPet(body);
        assert.equal(result.ok, schema.Check(body));
        const plain = plainNewPet(body);
        if (!result.ok) {
          assert.equal(plain, undefined, `plain checks accepted what the schema refuses`);
          return;
        }
        const { name, categoryId, status } = body as Record<string, JsonValue>;
        const expected = status === undefined ? { name, categoryId } : { name, categoryId, status };
        assert.deepEqual(result.value, expected);
        if (plain !== undefined) assert.deepEqual(plain, expected);
      }),
      { numRuns: 5000 },
    );
  });

  it("decides every body with a printable ASCII name that the schema accepts", () => {
    const valid = fc.record({
      name: printable.filter((text) =>
        text.length >= 1 && text.length <= 200 && text.trim() !== ""
      ),
      categoryId: fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
      status: fc.constantFrom(...PET_STATUSES, undefined),
    }).map(({ status, ...fields }) =>
      asParsed(status === undefined ? fields : { ...fields, status })
    );
    fc.assert(
      fc.property(valid, (body) => {
        assert.ok(schema.Check(body));
        assert.notEqual(plainNewPet(body), undefined);
      }),
      { numRuns: 2000 },
    );
  });
});
