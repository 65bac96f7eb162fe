/** The resource schemas: each gives the runtime check, the static type and the OpenAPI schema. */
import { type Static, Type } from "typebox";

/** A pet's availability statuses, spelled only here (test/repository/layers.test.ts checks). */
export const PET_STATUSES = ["available", "pending", "sold"] as const;

export const PetStatus = Type.Enum(PET_STATUSES, { description: "Availability status" });
export type PetStatus = Static<typeof PetStatus>;

export function isPetStatus(value: unknown): value is PetStatus {
  return (PET_STATUSES as readonly unknown[]).includes(value);
}

/** The bounds of `categoryId` (and `petId`'s maximum). */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** In Unicode code points. */
const NAME_LENGTH = { minLength: 1, maxLength: 200 } as const;

/**
 * The pet-name rule, written once: which rule a name breaks (worded to follow "name"), or
 * undefined. The schema, the validator and the data-file reader all call it.
 */
export function nameFlaw(name: string): string | undefined {
  if (!name.isWellFormed()) return "contains a lone surrogate";
  if (CONTROL_CHARACTER.test(name)) return "contains a control character";
  if (name.trim() === "") return name === "" ? "is empty" : "is blank";
  // At most max UTF-16 units are at most max code points: only longer names are counted.
  if (name.length > NAME_LENGTH.maxLength && [...name].length > NAME_LENGTH.maxLength) {
    return `is longer than ${NAME_LENGTH.maxLength} characters`;
  }
  return undefined;
}

// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** UTF-8 bytes of a name `nameFlaw` surely accepts (printable ASCII, not all spaces): no string. */
export function isPlainAsciiName(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start > NAME_LENGTH.maxLength) return false;
  let visible = false;
  for (let p = start; p < end; p++) {
    const byte = bytes[p];
    if (byte < 0x20 || byte > 0x7e || byte === 0x5c) return false;
    if (byte !== 0x20) visible = true;
  }
  return visible;
}

const PetName = Type.Refine(
  Type.String({
    ...NAME_LENGTH,
    // `nameFlaw` for the document's readers, surrogates left to the refinement; its two leading
    // classes are disjoint, so matching stays linear on a long name.
    pattern:
      "^[^\\S\\u0000-\\u001F\\u007F-\\u009F]*[^\\s\\u0000-\\u001F\\u007F-\\u009F][^\\u0000-\\u001F\\u007F-\\u009F]*$",
    description:
      `${NAME_LENGTH.minLength} to ${NAME_LENGTH.maxLength} Unicode characters (code points), not only white space, no control characters, no lone surrogates; stored exactly as sent`,
  }),
  (name: string) => nameFlaw(name) === undefined,
  () =>
    `must be ${NAME_LENGTH.minLength} to ${NAME_LENGTH.maxLength} characters, not blank, without control characters or lone surrogates`,
);

/** A `bigint` in memory (http/json.ts), kept exactly. */
export const CategoryId = Type.Refine(
  Type.BigInt({
    description:
      "Identifier of the category: an int64 written as a plain JSON integer (no fraction, no exponent, not -0), kept digit for digit",
    format: "int64",
  }),
  (value: bigint) => value >= INT64_MIN && value <= INT64_MAX,
  () => `must be an integer from ${INT64_MIN} to ${INT64_MAX}`,
);

export const NewPet = Type.Object(
  { name: PetName, categoryId: CategoryId, status: Type.Optional(PetStatus) },
  { additionalProperties: false },
);
export type NewPet = Static<typeof NewPet>;

export const Pet = Type.Object(
  {
    id: Type.Integer({ format: "int64", minimum: 1, description: "Assigned by the service" }),
    ...NewPet.properties,
  },
  { additionalProperties: false },
);
export type Pet = Static<typeof Pet>;

export const Pets = Type.Array(Pet);
