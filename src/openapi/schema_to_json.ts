/**
 * The document's JSON: TypeBox schemas as plain JSON Schema 2020-12 (a subschema equal to a named
 * component as its `$ref`), and the text with exact integers.
 */
import type { JsonValue } from "../schemas/json_value.ts";
import { INT64_MAX, INT64_MIN } from "../schemas/pet.ts";

/** A value of the document: JSON with exact integers, arrays that may be readonly. */
export type ExactJsonValue = JsonValue | readonly ExactJsonValue[] | ExactJsonObject;
/** A JSON object of the document; an undefined member is left out, as `JSON.stringify` does. */
export type ExactJsonObject = { [key: string]: ExactJsonValue | undefined };

/** `JSON.stringify(value, null, indent)`, but a bigint is written digit for digit. */
export function stringifyExact(value: ExactJsonValue, indent = 2): string {
  // A bigint goes out as a string of a NUL and its digits, then loses its quotes and mark; no
  // document string has that shape (a NUL is a control character, which names never hold).
  const marked = (_key: string, item: unknown) => typeof item === "bigint" ? `\0${item}` : item;
  return JSON.stringify(value, marked, indent).replace(/"\\u0000(-?[0-9]+)"/g, "$1");
}

/** Converts every schema, named as under `components.schemas`, referring to the others by `$ref`. */
export function componentSchemas(named: Readonly<Record<string, unknown>>) {
  const plain = Object.entries(named).map(([name, schema]) => [name, plainSchema(schema)] as const);
  const refByShape = new Map(plain.map(([name, schema]) => [stringifyExact(schema, 0), name]));
  const entries = plain.map(([name, schema]) => [name, withRefs(schema, refByShape, true)]);
  return Object.fromEntries(entries) as Record<string, ExactJsonObject>;
}

/** The JSON Schema of a TypeBox schema: no `~` keys, bigint → int64 integer. */
export function plainSchema(schema: unknown): ExactJsonObject {
  return plain(schema) as ExactJsonObject;
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
  if (result.type !== "bigint") return result;
  return { ...result, type: "integer", format: "int64", minimum: INT64_MIN, maximum: INT64_MAX };
}

/** `value` with each subschema that equals a named one (other than itself) as a `$ref`. */
function withRefs(value: ExactJsonValue, refByShape: Map<string, string>, isRoot = false) {
  if (Array.isArray(value)) return value.map((item): ExactJsonValue => withRefs(item, refByShape));
  if (value === null || typeof value !== "object") return value;
  const ref = isRoot ? undefined : refByShape.get(stringifyExact(value, 0));
  if (ref !== undefined) return { $ref: `#/components/schemas/${ref}` };
  const result: ExactJsonObject = {};
  for (const [key, item] of Object.entries(value)) result[key] = withRefs(item!, refByShape);
  return result;
}
