/** Idempotency-Key claims (docs/api.md): how a request becomes one, how they are told apart. */
import { createHash } from "node:crypto";
import type { NewPet } from "../schemas/pet.ts";
import { canonicalNewPetJson, type IdempotencyClaim } from "./store.ts";

/** The key within its API key's scope, and the SHA-256 of the canonical NewPet. */
export function idempotencyClaim(scope: string, key: string, pet: NewPet): IdempotencyClaim {
  const digest = createHash("sha256").update(canonicalNewPetJson(pet)).digest("hex");
  return { scope, key, digest };
}

/** One name per (scope, key); JSON keeps the pair unambiguous whatever characters they hold. */
export function keyId(claim: IdempotencyClaim): string {
  return JSON.stringify([claim.scope, claim.key]);
}
