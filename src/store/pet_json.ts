/**
 * Exact JSON text for pets. `categoryId` is written from its bigint digits, so values beyond
 * 2^53−1 are never rounded. Field order is fixed (id, name, categoryId, status), which also
 * makes `canonicalNewPetJson` a stable input for the idempotency digest.
 */
import type { NewPet } from "../schemas/pet.ts";

export function petJson(id: number, pet: NewPet): string {
  return `{"id":${id},${newPetFields(pet)}}`;
}

/** The NewPet fields in a fixed order: same fields and values give the same text. */
export function canonicalNewPetJson(pet: NewPet): string {
  return `{${newPetFields(pet)}}`;
}

function newPetFields(pet: NewPet): string {
  const status = pet.status === undefined ? "" : `,"status":"${pet.status}"`;
  return `"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}`;
}
