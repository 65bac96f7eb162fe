/** A JSON value with exact integers: what the body parser (`http/json.ts`) yields. */
export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };
