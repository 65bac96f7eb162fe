/**
 * The contract's resource schemas: PetStatus, NewPet, Pet, Pets. Each gives the runtime check,
 * the TypeScript type and the OpenAPI schema.
 *
 * `categoryId` is an int64 that must be kept exactly, so it is a `bigint` in memory: the body
 * parser (`http/json.ts`) turns every plain integer literal into a bigint and every other number
 * form (`1.5`, `1.0`, `1e3`, `-0`) into a JavaScript number, which this schema refuses.
 */
import { type Static, Type } from "typebox";

/** A pet's availability statuses, spelled only here (test/repository/layers.test.ts checks). */
export const PET_STATUSES = ["available", "pending", "sold"] as const;

/** Availability status: one of `PET_STATUSES`. */
export const PetStatus = Type.Enum(PET_STATUSES, { description: "Availability status" });
export type PetStatus = Static<typeof PetStatus>;

/** Whether `value` is one of `PET_STATUSES`. */
export function isPetStatus(value: unknown): value is PetStatus {
  return (PET_STATUSES as readonly unknown[]).includes(value);
}

/** The smallest int64, the lower bound of `categoryId`. */
export const INT64_MIN = -(2n ** 63n);
/** The largest int64, the upper bound of `categoryId` and `petId`. */
export const INT64_MAX = 2n ** 63n - 1n;

/** How long a pet's name may be, in Unicode code points. */
const NAME_LENGTH = { min: 1, max: 200 } as const;

/**
 * The pet-name rule, the one place it is written: which rule a name breaks, or undefined when the
 * API accepts it (well-formed UTF-16, no control character, not blank, at most NAME_LENGTH.max code
 * points). The NewPet schema's refinement, the validator and the data-file reader all call it, so
 * a line of the file is refused for exactly the names the API refuses. Worded to follow "name".
 * One pass over the UTF-16 units; only a name with no visible ASCII character asks `trim` whether
 * it is blank, since Unicode has white space beyond the space (U+3000, U+FEFF, …).
 */
export function nameFlaw(name: string): string | undefined {
  let visible = false;
  let control = false;
  let surrogate = false;
  let ascii = true;
  for (let i = 0; i < name.length; i++) {
    const unit = name.charCodeAt(i);
    if (unit > 0x20 && unit < 0x7f) visible = true;
    else if (unit < 0x20 || (unit >= 0x7f && unit <= 0x9f)) control = true;
    else if (unit >= 0xd800 && unit <= 0xdfff) surrogate = true;
    if (unit >= 0x7f) ascii = false;
  }
  if (surrogate && !name.isWellFormed()) return "contains a lone surrogate";
  if (control) return "contains a control character";
  if (!visible && (ascii || name.trim() === "")) return name === "" ? "is empty" : "is blank";
  // A string of at most max UTF-16 units has at most max code points: count only longer ones.
  if (name.length > NAME_LENGTH.max) {
    let codePoints = 0;
    for (const _ of name) codePoints++;
    if (codePoints > NAME_LENGTH.max) return `is longer than ${NAME_LENGTH.max} characters`;
  }
  return undefined;
}

/**
 * True when the UTF-8 bytes[start, end) of a name (no escapes) are one `nameFlaw` accepts for sure,
 * told without making a string: 1 to NAME_LENGTH.max printable ASCII characters, one of them not a
 * space. The data-file reader asks this first and `nameFlaw` about every other name.
 */
export function isPlainAsciiName(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start > NAME_LENGTH.max) return false;
  let visible = false;
  for (let p = start; p < end; p++) {
    const byte = bytes[p];
    if (byte < 0x20 || byte > 0x7e || byte === 0x5c) return false;
    if (byte !== 0x20) visible = true;
  }
  return visible;
}

/** The animal's name: 1–200 code points, not blank, no control characters. */
const PetName = Type.Refine(
  Type.String({
    minLength: NAME_LENGTH.min,
    maxLength: NAME_LENGTH.max,
    // The document's form of `nameFlaw`, for clients: no control character, and one character
    // that is not white space (`\s` is what `trim()` strips); lone surrogates are left to the
    // refinement, which calls `nameFlaw` itself. The leading white space and the first other character are disjoint classes,
    // so matching stays linear: an overlapping form backtracks quadratically on a long name.
    pattern:
      "^[^\\S\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$",
    description:
      `${NAME_LENGTH.min} to ${NAME_LENGTH.max} Unicode characters (code points), not only white space, no control characters, no lone surrogates; stored exactly as sent`,
  }),
  (name: string) => nameFlaw(name) === undefined,
  () =>
    `must be ${NAME_LENGTH.min} to ${NAME_LENGTH.max} characters, not blank, without control characters or lone surrogates`,
);

/** An int64 category identifier, kept exactly (see the module comment). */
export const CategoryId = Type.Refine(
  Type.BigInt({
    description:
      "Identifier of the category: an int64 written as a plain JSON integer (no fraction, no exponent, not -0), kept digit for digit",
    format: "int64",
  }),
  (value: bigint) => value >= INT64_MIN && value <= INT64_MAX,
  () => `must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
);

/** Request body for creation. */
export const NewPet = Type.Object(
  { name: PetName, categoryId: CategoryId, status: Type.Optional(PetStatus) },
  { additionalProperties: false },
);
export type NewPet = Static<typeof NewPet>;

/** An animal as returned. */
export const Pet = Type.Object(
  {
    id: Type.Integer({ format: "int64", minimum: 1, description: "Assigned by the service" }),
    ...NewPet.properties,
  },
  { additionalProperties: false },
);
export type Pet = Static<typeof Pet>;

/** A JSON array of Pet. */
export const Pets = Type.Array(Pet);
