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
  | ExactJsonObject;

/** A JSON object of the document; an undefined member is left out, as `JSON.stringify` does. */
export type ExactJsonObject = { [key: string]: ExactJsonValue | undefined };

/** Serialises `value` like `JSON.stringify(value, null, indent)`, writing bigints exactly. */
export function stringifyExact(value: ExactJsonValue, indent = 2): string {
  // Each bigint goes out as a string of a NUL and its digits, whose quotes and mark are then
  // taken off; a real string of exactly that shape would be taken for a bigint, and no document
  // has one (a NUL is a control character, which names and descriptions never hold).
  const marked = (_key: string, item: unknown) => typeof item === "bigint" ? `\0${item}` : item;
  return JSON.stringify(value, marked, indent).replace(/"\\u0000(-?[0-9]+)"/g, "$1");
}
