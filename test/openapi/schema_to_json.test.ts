import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "typebox";
import { componentSchemas, plainSchema, stringifyExact } from "../../src/openapi/schema_to_json.ts";
import { CategoryId, Pet, Pets, PetStatus } from "../../src/schemas/pet.ts";

describe("plainSchema()", () => {
  it("turns the TypeBox BigInt into an int64 integer and drops ~ keys", () => {
    const schema = plainSchema(CategoryId);
    assert.equal(schema.type, "integer");
    assert.equal(schema.format, "int64");
    assert.equal(schema.minimum, -9223372036854775808n);
    assert.equal(schema.maximum, 9223372036854775807n);
    assert.ok(Object.keys(schema).every((key) => !key.startsWith("~")));
  });

  it("gives a string enum its type", () => {
    assert.deepEqual(plainSchema(Type.Enum(["a", "b"])), { type: "string", enum: ["a", "b"] });
  });
});

describe("componentSchemas()", () => {
  it("refers to a named schema where it recurs", () => {
    const schemas = componentSchemas({ PetStatus, Pet, Pets });
    assert.deepEqual(schemas.Pets.items, { $ref: "#/components/schemas/Pet" });
    const properties = schemas.Pet.properties as Record<string, unknown>;
    assert.deepEqual(properties.status, { $ref: "#/components/schemas/PetStatus" });
    assert.equal(schemas.PetStatus.type, "string");
  });
});

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
