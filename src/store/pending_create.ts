/** A create waiting in a store's queue for its batch to be written (both stores batch creates). */
import type { NewPet } from "../schemas/pet.ts";
import type { CreateOutcome, IdempotencyClaim } from "./store.ts";

/** A queued create and how to answer its caller. */
export interface PendingCreate {
  readonly pet: NewPet;
  readonly claim: IdempotencyClaim | undefined;
  readonly resolve: (outcome: CreateOutcome) => void;
}
