/**
 * Idempotency keys (docs/api.md, POST /pets): which (scope, key) pairs are durable, with the digest
 * of their body and the pet they made, and which are queued or being written. The durable map is
 * rebuilt from the claims stored in the pet records at replay, so a retry after a restart or a
 * kill -9 finds the same pet.
 */
import { keyId } from "../idempotency.ts";
import type { IdempotencyClaim } from "../store.ts";

/** What an earlier request with the same key decides for a new one. */
export type KeyDecision =
  | { readonly kind: "new" }
  | { readonly kind: "replayed"; readonly position: number }
  | { readonly kind: "key_reused" }
  | { readonly kind: "key_in_flight" };

/** Durable and in-flight idempotency keys. */
export class IdempotencyKeys {
  readonly #durable = new Map<string, { readonly digest: string; readonly position: number }>();
  readonly #inFlight = new Set<string>();

  /** Number of durable keys. */
  get size(): number {
    return this.#durable.size;
  }

  /** Records a durable claim; the first pet made with a key keeps it. */
  addDurable(claim: IdempotencyClaim, position: number): void {
    const id = keyId(claim);
    if (!this.#durable.has(id)) this.#durable.set(id, { digest: claim.digest, position });
  }

  /** Decides a new request; a "new" claim is marked in flight until `release`. */
  claim(claim: IdempotencyClaim): KeyDecision {
    const id = keyId(claim);
    const durable = this.#durable.get(id);
    if (durable !== undefined) {
      return durable.digest === claim.digest
        ? { kind: "replayed", position: durable.position }
        : { kind: "key_reused" };
    }
    if (this.#inFlight.has(id)) return { kind: "key_in_flight" };
    this.#inFlight.add(id);
    return { kind: "new" };
  }

  /** Ends the in-flight mark of a claim, whether its batch became durable or failed. */
  release(claim: IdempotencyClaim): void {
    this.#inFlight.delete(keyId(claim));
  }
}
