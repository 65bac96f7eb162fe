/**
 * Candidate values generated from a schema of the OpenAPI document: boundaries (lengths, int64
 * bounds), each enum value, and values just outside. The document then decides which are valid
 * (`schemaErrors`), and the drift test checks the service agrees on every one.
 */
import type { JsonValue } from "../../src/schemas/json_value.ts";
import { resolveRef, schemaErrors } from "../support/json_schema.ts";

type Schema = { [key: string]: JsonValue };

/** Strings near the edges of "a name": blanks of several kinds, control characters, Unicode. */
const TRICKY_STRINGS = [
  " x ",
  "   ",
  "\t",
  "\u00a0",
  "\u3000",
  "\ufeff",
  "a\u0000b",
  "a\u001fb",
  "\u007f",
  "b\u0085",
  "x\u009f",
  "\u00a0x",
  "Rex 🐶",
  "ünïcödé",
  "a\u2028b",
];

/** Candidates for one property or parameter schema (`$ref`s followed). */
export function candidatesFor(schema: Schema, root: JsonValue): JsonValue[] {
  const resolved = typeof schema.$ref === "string" ? resolveRef(root, schema.$ref) : schema;
  const values: JsonValue[] = [null, true];
  if (Array.isArray(resolved.enum)) {
    const first = String(resolved.enum[0]);
    values.push(...resolved.enum, "", "unknown", first.toUpperCase(), ` ${first}`, 1n);
  }
  if (resolved.type === "string") {
    const min = Number(resolved.minLength ?? 0);
    const max = resolved.maxLength === undefined ? 300 : Number(resolved.maxLength);
    for (const length of [min - 1, min, min + 1, max - 1, max, max + 1]) {
      if (length < 0) continue;
      values.push("a".repeat(length), "😀".repeat(length)); // code points, not UTF-16 units
    }
    values.push(...TRICKY_STRINGS, 1n);
  }
  if (resolved.type === "integer") {
    const min = resolved.minimum as bigint | undefined;
    const max = resolved.maximum as bigint | undefined;
    values.push(0n, 1n, -1n, 1.5, "1");
    if (min !== undefined) values.push(min, min - 1n, min + 1n);
    if (max !== undefined) values.push(max, max + 1n, max - 1n);
    if (resolved.default !== undefined) values.push(resolved.default);
  }
  return values;
}

/** Object bodies from an object schema: one valid base, then each property varied and removed. */
export function objectCandidates(
  schema: Schema,
  root: JsonValue,
): { value: JsonValue; label: string }[] {
  const properties = schema.properties as Record<string, Schema>;
  const required = (schema.required ?? []) as string[];
  const base: Record<string, JsonValue> = {};
  for (const name of required) {
    const firstValid = candidatesFor(properties[name], root).find((value) =>
      schemaErrors(properties[name], value, root).length === 0
    );
    if (firstValid === undefined) throw new Error(`No valid candidate for ${name}`);
    base[name] = firstValid;
  }
  const result: { value: JsonValue; label: string }[] = [{ value: base, label: "base" }];
  for (const [name, property] of Object.entries(properties)) {
    for (const value of candidatesFor(property, root)) {
      result.push({ value: { ...base, [name]: value }, label: `${name}=${show(value)}` });
    }
  }
  for (const name of required) {
    const { [name]: _, ...rest } = base;
    result.push({ value: rest, label: `without ${name}` });
  }
  result.push(
    { value: { ...base, extra: 1n }, label: "extra field" },
    { value: { ...base, id: 1n }, label: "field of Pet only" },
    { value: [base], label: "an array" },
    { value: null, label: "null" },
    { value: "Rex", label: "a string" },
  );
  return result;
}

function show(value: JsonValue): string {
  const text = typeof value === "bigint" ? `${value}` : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}… (${[...String(value)].length} chars)` : text;
}
