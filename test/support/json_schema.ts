/**
 * A small JSON Schema 2020-12 checker for the keywords the OpenAPI document uses, with exact
 * integers: the document and the samples are parsed with `parseJsonText`, so integers are
 * bigints and the int64 bounds compare exactly (a float-based validator sees
 * 9223372036854775807 and 9223372036854775808 as the same number and cannot test them). It
 * reads the document as written; it shares no code with the service's TypeBox checks.
 */
import type { JsonValue } from "../../src/schemas/json_value.ts";

type Schema = { [key: string]: JsonValue };

const KNOWN = new Set([
  "$ref",
  "type",
  "enum",
  "format",
  "description",
  "default",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "required",
  "properties",
  "additionalProperties",
  "items",
]);

/** The problems of `value` under `schema` (empty when valid); `root` resolves `$ref`s. */
export function schemaErrors(schema: JsonValue, value: JsonValue, root: JsonValue): string[] {
  const errors: string[] = [];
  check(schema as Schema, value, root, "", errors);
  return errors;
}

/** Follows a local `$ref` (`#/components/schemas/Pet`) to its schema. */
export function resolveRef(root: JsonValue, ref: string): Schema {
  let target = root as JsonValue;
  for (const part of ref.replace(/^#\//, "").split("/")) {
    target = (target as Schema)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  if (target === undefined) throw new Error(`Cannot resolve ${ref}`);
  return target as Schema;
}

/** RFC 6901: `/`-separated tokens, `~` only as `~0` or `~1`. */
const JSON_POINTER = /^(\/([^~/]|~[01])*)*$/;

function check(schema: Schema, value: JsonValue, root: JsonValue, at: string, errors: string[]) {
  for (const keyword of Object.keys(schema)) {
    // A keyword this checker ignores would make it accept too much: fail loudly instead.
    if (!KNOWN.has(keyword)) throw new Error(`Unsupported keyword ${keyword} at ${at}`);
  }
  if (typeof schema.$ref === "string") {
    check(resolveRef(root, schema.$ref), value, root, at, errors);
  }
  const fail = (message: string) => errors.push(`${at || "/"} ${message}`);
  if (schema.enum !== undefined && !(schema.enum as JsonValue[]).includes(value)) {
    fail("is not in enum");
  }
  if (schema.type !== undefined && !hasType(value, schema.type as string)) {
    fail(`is not ${schema.type}`);
    return;
  }
  if (typeof value === "string") {
    const length = [...value].length; // code points, as JSON Schema counts
    if (schema.minLength !== undefined && length < Number(schema.minLength)) fail("too short");
    if (schema.maxLength !== undefined && length > Number(schema.maxLength)) fail("too long");
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value)) {
      fail("does not match pattern");
    }
    if (schema.format === "json-pointer" && !JSON_POINTER.test(value)) fail("is no JSON Pointer");
  }
  if (typeof value === "bigint" || typeof value === "number") {
    if (schema.minimum !== undefined && value < (schema.minimum as bigint)) fail("below minimum");
    if (schema.maximum !== undefined && value > (schema.maximum as bigint)) fail("above maximum");
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => check(schema.items as Schema, item, root, `${at}/${i}`, errors));
  }
  if (isObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in value)) fail(`misses ${name}`);
    }
    for (const [name, item] of Object.entries(value)) {
      if (properties[name] !== undefined) {
        check(properties[name], item, root, `${at}/${name}`, errors);
      } else if (schema.additionalProperties === false) {
        fail(`has unknown field ${name}`);
      }
    }
  }
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function hasType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "integer":
      return typeof value === "bigint" || Number.isInteger(value);
    case "number":
      return typeof value === "bigint" || typeof value === "number";
    default:
      throw new Error(`Unsupported type ${type}`);
  }
}
