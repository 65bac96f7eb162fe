/**
 * JSON text with exact integers. `JSON.stringify` throws on a bigint and a JavaScript number
 * cannot hold 9223372036854775807, so the OpenAPI document (whose int64 bounds must be written
 * digit for digit) is serialised here: a bigint is written with its own digits.
 */

/** A JSON-like value whose integers may be bigints. */
export type ExactJsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly ExactJsonValue[]
  | { readonly [key: string]: ExactJsonValue | undefined };

/** Serialises `value` like `JSON.stringify(value, null, indent)`, writing bigints exactly. */
export function stringifyExact(value: ExactJsonValue, indent = 2): string {
  return write(value, " ".repeat(indent), "");
}

function write(value: ExactJsonValue, step: string, current: string): string {
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const inner = current + step;
  const newline = step === "" ? "" : "\n";
  const colon = step === "" ? ":" : ": ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((item) => inner + write(item, step, inner));
    return `[${newline}${items.join("," + newline)}${newline}${current}]`;
  }
  const entries: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    entries.push(`${inner}${JSON.stringify(key)}${colon}${write(item, step, inner)}`);
  }
  if (entries.length === 0) return "{}";
  return `{${newline}${entries.join("," + newline)}${newline}${current}}`;
}
