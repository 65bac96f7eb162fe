/** Checking a NewPet: compiled once, failures returned as data a client can act on. */
import { Compile } from "typebox/compile";
import type { ErrorDetail } from "./error.ts";
import type { JsonValue } from "./json_value.ts";
import { INT64_MAX, INT64_MIN, isPetStatus, nameFlaw, NewPet, PET_STATUSES } from "./pet.ts";

const newPetValidator = Compile(NewPet);

export type Validation<T> = { ok: true; value: T } | { ok: false; details: ErrorDetail[] };

export function validateNewPet(body: JsonValue): Validation<NewPet> {
  const plain = plainNewPet(body);
  if (plain !== undefined) return { ok: true, value: plain };
  if (newPetValidator.Check(body)) {
    const { name, categoryId, status } = body as NewPet;
    const value = status === undefined ? { name, categoryId } : { name, categoryId, status };
    return { ok: true, value };
  }
  return { ok: false, details: describeErrors(newPetValidator.Errors(body)) };
}

/**
 * The NewPet a few plain checks show valid (the common create), or undefined for the costlier
 * schema to decide; a property test holds them to it (docs/performance.md, "Fast paths").
 */
export function plainNewPet(body: JsonValue): NewPet | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const { name, categoryId, status } = body;
  let fields = 0;
  for (const _ in body) fields++;
  if (fields !== (status === undefined ? 2 : 3)) return undefined;
  if (typeof categoryId !== "bigint" || categoryId < INT64_MIN || categoryId > INT64_MAX) {
    return undefined;
  }
  if (typeof name !== "string" || nameFlaw(name) !== undefined) return undefined;
  if (status === undefined) return { name, categoryId };
  return isPetStatus(status) ? { name, categoryId, status } : undefined;
}

const ONE_OF_STATUSES = `must be one of ${PET_STATUSES.map((s) => JSON.stringify(s)).join(", ")}`;

const MESSAGE_BY_FIELD_AND_KEYWORD: Record<string, string> = {
  "/name type": "must be a string",
  "/name pattern": "must not be blank and must not contain control characters",
  "/categoryId type":
    `must be an integer from ${INT64_MIN} to ${INT64_MAX}, written without fraction or exponent`,
  "/status type": ONE_OF_STATUSES,
  "/status enum": ONE_OF_STATUSES,
};

function describeErrors(errors: ReturnType<typeof newPetValidator.Errors>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    if (error.keyword === "boolean") continue; // repeated by the `additionalProperties` error
    if (error.keyword === "required") {
      for (const field of error.params.requiredProperties) {
        details.push({ path: `/${field}`, message: `${field} is required` });
      }
    } else if (error.keyword === "additionalProperties") {
      for (const field of error.params.additionalProperties) {
        details.push({ path: pointer(field), message: `${truncate(field)} is not a known field` });
      }
    } else if (error.instancePath === "") {
      details.push({ path: "", message: "body must be a JSON object" });
    } else {
      const { instancePath: path, keyword } = error;
      const message = MESSAGE_BY_FIELD_AND_KEYWORD[`${path} ${keyword}`] ?? error.message;
      details.push({ path, message: `${path.slice(1)} ${message}` });
    }
  }
  return details;
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function pointer(field: string): string {
  return "/" + truncate(field).replaceAll("~", "~0").replaceAll("/", "~1");
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}
