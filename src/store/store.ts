/**
 * The store interface, all the HTTP core knows of persistence, and what the backends share. Pets
 * travel as their exact JSON text, so an int64 never passes through a JavaScript number.
 */
import { createHash } from "node:crypto";
import type { Registry } from "../observe/metrics_registry.ts";
import type { MaybePromise, PageQuery, PetPageJson } from "../schemas/page.ts";
import { type NewPet, PET_STATUSES, type PetStatus } from "../schemas/pet.ts";

/** A pet's exact JSON text: `categoryId` never rounded; fields in a fixed order (a digest input). */
export function petJson(id: number, pet: NewPet): string {
  return `{"id":${id},${newPetFields(pet)}}`;
}

function newPetFields(pet: NewPet): string {
  const status = pet.status === undefined ? "" : `,"status":"${pet.status}"`;
  return `"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}${status}`;
}

/** A pet as the store holds it. `json` is the Pet body exactly as clients receive it. */
export type StoredPet = { readonly id: number; readonly json: string };

/** An Idempotency-Key (docs/api.md): `scope` is a fingerprint of the API key (never the key). */
export interface IdempotencyClaim {
  readonly scope: string;
  readonly key: string;
  readonly digest: string;
}

/** The key within its API key's scope, and the SHA-256 (hex) of the canonical NewPet. */
export function idempotencyClaim(scope: string, key: string, pet: NewPet): IdempotencyClaim {
  const digest = createHash("sha256").update(`{${newPetFields(pet)}}`).digest("hex");
  return { scope, key, digest };
}

/** One name per (scope, key); JSON keeps the pair unambiguous whatever characters they hold. */
export function keyId(claim: IdempotencyClaim): string {
  return JSON.stringify([claim.scope, claim.key]);
}

/** What a create ended in; failures are values, not exceptions. */
export type CreateOutcome =
  | { readonly kind: "created"; readonly pet: StoredPet }
  | { readonly kind: "replayed"; readonly pet: StoredPet }
  | { readonly kind: "key_reused" }
  | { readonly kind: "key_in_flight" }
  | {
    readonly kind: "unavailable";
    readonly reason: string;
    /** The pet may be saved after all; a retry with the same Idempotency-Key is safe. */
    readonly outcomeUnknown?: "data_file_failed" | "commit_unconfirmed";
    /** Every id the store can give was given: no create will succeed again (nothing was saved). */
    readonly idSpaceExhausted?: boolean;
  };

/** Ids are read as exact JavaScript numbers: past this a create is refused, not written. */
export const MAX_PET_ID = Number.MAX_SAFE_INTEGER;

/** For the log; the client's message is the route's. */
export const ID_SPACE_EXHAUSTED = `the id space is exhausted: ids stop at ${MAX_PET_ID}`;

/** A create waiting in a store's queue for its batch, and how to answer it. */
export interface PendingCreate {
  readonly pet: NewPet;
  readonly claim: IdempotencyClaim | undefined;
  readonly resolve: (outcome: CreateOutcome) => void;
}

const encoder = new TextEncoder();

/** The page `[pet,pet,…]` from the pets' JSON texts. */
export function joinPageJson(pets: readonly StoredPet[], hasMore: boolean): PetPageJson {
  const count = pets.length;
  let text = "[";
  for (let i = 0; i < count; i++) text += (i === 0 ? "" : ",") + pets[i].json;
  const body = encoder.encode(text + "]");
  return { body, firstId: pets[0]?.id ?? 0, lastId: pets[count - 1]?.id ?? 0, count, hasMore };
}

/** A pet store. `create` resolves only once the pet is durable. */
export interface PetStore {
  create(pet: NewPet, idempotency?: IdempotencyClaim): Promise<CreateOutcome>;
  get(id: number): MaybePromise<StoredPet | undefined>;
  /** A page as the bytes clients receive, with the facts of its ETag. */
  listJson(query: PageQuery): MaybePromise<PetPageJson>;
  /** False while the backend cannot serve at all (`/readyz` answers 503); absent: always. */
  isAvailable?(): boolean;
  /** With `METRICS=on`, once open: `animal_store_pets` (`petCountsGauge`) and its own. */
  registerMetrics(registry: Registry): void;
  /** Waits for pending writes, then releases every resource (file handles, the lock). */
  close(): Promise<void>;
}

/** Pets per status; `none` counts pets stored without a status. */
export type StatusCounts = Record<PetStatus | "none", number>;

export function emptyStatusCounts(): StatusCounts {
  return { available: 0, pending: 0, sold: 0, none: 0 };
}

/** Declares `animal_store_pets`, which every store reports; returns what sets it at a scrape. */
export function petCountsGauge(registry: Registry): (counts: Readonly<StatusCounts>) => void {
  const pets = registry.gauge("animal_store_pets", "Pets in the store by status.", ["status"]);
  return (counts) => {
    for (const status of [...PET_STATUSES, "none"] as const) {
      pets.labels(status).set(counts[status]);
    }
  };
}

/** A read the backend could not answer for a passing reason: 503, the message only logged. */
export class StoreUnavailableError extends Error {
  override name = "StoreUnavailableError";
}

/** Opening the store failed; `message` is one line, fit to print before exiting with code 1. */
export class StoreOpenError extends Error {
  override name = "StoreOpenError";
}
