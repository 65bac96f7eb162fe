/**
 * An in-memory PetStore for handler tests: the same observable behaviour as the file store
 * (ids from 1, ascending pages, idempotency outcomes), plus switches to make writes fail or hang.
 */
import type { PageQuery, PetPageJson } from "../../src/schemas/page.ts";
import type { Registry } from "../../src/observe/metrics_registry.ts";
import type { NewPet } from "../../src/schemas/pet.ts";
import {
  type CreateOutcome,
  type IdempotencyClaim,
  joinPageJson,
  keyId,
  petCountsGauge,
  petJson,
  type PetStore,
  type StoredPet,
  StoreUnavailableError,
} from "../../src/store/store.ts";

/** A pet with its status, to filter pages by. */
type MemoryPet = StoredPet & { readonly status: NewPet["status"] };

export class MemoryStore implements PetStore {
  readonly pets: MemoryPet[];
  private readonly keys: Map<string, { digest: string; pet?: StoredPet }>;
  private readonly writing = new Set<Promise<CreateOutcome>>();
  private closed = false;
  /** When set, creates answer `unavailable` (a full disk). */
  failWrites = false;
  /** When set, creates wait for this promise before completing (a slow fsync). */
  writeGate: Promise<void> | undefined;
  /**
   * When false, reads throw StoreUnavailableError, creates answer `unavailable` and isAvailable()
   * says so (a lost database).
   */
  available = true;

  /** An empty store, or (`reopen`) one over the pets and keys of a closed one. */
  constructor(from?: MemoryStore) {
    this.pets = from?.pets ?? [];
    this.keys = from?.keys ?? new Map();
  }

  /** The same pets and keys in a new instance, as after a restart. */
  reopen(): MemoryStore {
    return new MemoryStore(this);
  }

  isAvailable(): boolean {
    return this.available;
  }

  create(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    if (this.closed) {
      return Promise.resolve({ kind: "unavailable", reason: "the store is closing" });
    }
    const writing = this.write(pet, claim);
    this.writing.add(writing);
    void writing.then(() => this.writing.delete(writing));
    return writing;
  }

  private async write(pet: NewPet, claim?: IdempotencyClaim): Promise<CreateOutcome> {
    if (!this.available) return { kind: "unavailable", reason: "connection lost" };
    const slot = claim === undefined ? undefined : keyId(claim);
    if (slot !== undefined) {
      const seen = this.keys.get(slot);
      if (seen !== undefined) {
        if (seen.digest !== claim!.digest) return { kind: "key_reused" };
        if (seen.pet === undefined) return { kind: "key_in_flight" };
        return { kind: "replayed", pet: seen.pet };
      }
      this.keys.set(slot, { digest: claim!.digest });
    }
    // A write takes at least a tick, as on disk: a second create with the key meanwhile is in flight.
    await (this.writeGate ?? Promise.resolve());
    if (this.failWrites) {
      if (slot !== undefined) this.keys.delete(slot);
      return { kind: "unavailable", reason: "ENOSPC" };
    }
    const id = (this.pets.at(-1)?.id ?? 0) + 1;
    const stored: MemoryPet = { id, status: pet.status, json: petJson(id, pet) };
    this.pets.push(stored);
    if (slot !== undefined) this.keys.set(slot, { digest: claim!.digest, pet: stored });
    return { kind: "created", pet: stored };
  }

  get(id: number): StoredPet | undefined {
    this.checkAvailable();
    return this.pets.find((pet) => pet.id === id);
  }

  listJson(query: PageQuery): PetPageJson {
    this.checkAvailable();
    const matching = this.pets.filter((pet) =>
      pet.id > query.afterId && (query.status === undefined || pet.status === query.status)
    );
    return joinPageJson(matching.slice(0, query.limit), matching.length > query.limit);
  }

  /** Pets per status, as every store reports them to the metrics. */
  registerMetrics(registry: Registry): void {
    const setPets = petCountsGauge(registry);
    registry.onScrape(() => {
      this.checkAvailable();
      const pets = { available: 0, pending: 0, sold: 0, none: 0 };
      for (const pet of this.pets) pets[pet.status ?? "none"]++;
      setPets(pets);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.writing);
  }

  private checkAvailable(): void {
    if (!this.available) {
      throw new StoreUnavailableError("connect ECONNREFUSED 10.0.0.7:5432 (a detail for logs)");
    }
  }
}
