import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "typebox";
import { componentSchemas, plainSchema } from "../../src/openapi/schema_to_json.ts";
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
