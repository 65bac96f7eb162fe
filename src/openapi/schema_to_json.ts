/**
 * TypeBox schemas → plain JSON Schema 2020-12: TypeBox's `~` keys dropped, a `BigInt` as an int64
 * integer with exact bounds, `type: string` on a string enum, and a subschema equal to a named
 * component as a `$ref` to it (so generated clients name `PetStatus` and `Pet`).
 */
import { INT64_MAX, INT64_MIN } from "../schemas/pet.ts";
import type { ExactJsonValue } from "./exact_json.ts";

/** A JSON Schema object as written into the document. */
export type JsonSchema = { [key: string]: ExactJsonValue };

/** Converts every schema, named as under `components.schemas`, referring to the others by `$ref`. */
export function componentSchemas(named: Readonly<Record<string, unknown>>) {
  const plain = Object.entries(named).map(([name, schema]) => [name, plainSchema(schema)] as const);
  const refByShape = new Map(plain.map(([name, schema]) => [shapeOf(schema), name]));
  const entries = plain.map(([name, schema]) => [name, withRefs(schema, refByShape, true)]);
  return Object.fromEntries(entries) as Record<string, JsonSchema>;
}

/** The JSON Schema of a TypeBox schema: no `~` keys, bigint → int64 integer. */
export function plainSchema(schema: unknown): JsonSchema {
  return plain(schema) as JsonSchema;
}

function plain(value: unknown): ExactJsonValue {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== "object") return value as ExactJsonValue;
  const result: Record<string, ExactJsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith("~") || typeof item === "function") continue;
    result[key] = plain(item);
  }
  if (
    result.type === undefined && Array.isArray(result.enum) &&
    result.enum.every((item) => typeof item === "string")
  ) {
    // `Type.Enum` leaves out `type`; JSON Schema does not need it, but client generators
    // (openapi-typescript, Redocly) type a bare enum as "unknown" without it.
    return { type: "string", ...result };
  }
  if (result.type === "bigint") {
    result.type = "integer";
    result.format = "int64";
    result.minimum = INT64_MIN;
    result.maximum = INT64_MAX;
  }
  return result;
}

/** `value` with each subschema that equals a named one (other than itself) as a `$ref`. */
function withRefs(value: ExactJsonValue, refByShape: Map<string, string>, isRoot = false) {
  if (Array.isArray(value)) return value.map((item): ExactJsonValue => withRefs(item, refByShape));
  if (value === null || typeof value !== "object") return value;
  const ref = isRoot ? undefined : refByShape.get(shapeOf(value));
  if (ref !== undefined) return { $ref: `#/components/schemas/${ref}` };
  const result: JsonSchema = {};
  for (const [key, item] of Object.entries(value)) result[key] = withRefs(item!, refByShape);
  return result;
}

function shapeOf(schema: ExactJsonValue): string {
  return JSON.stringify(schema, (_key, value) => typeof value === "bigint" ? `${value}n` : value);
}
