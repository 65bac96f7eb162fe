/**
 * Creates on PostgreSQL, several instances writing one table. Creates that arrive while a
 * transaction is committing wait and go together in the next one (group commit, as in the file
 * store): one BEGIN … COMMIT and one WAL flush for many pets.
 *
 * Why ids come from a counter row and not a sequence. docs/api.md promises that walking the pages
 * (`WHERE id > $cursor ORDER BY id`) returns every pet exactly once while pets are being made. A
 * sequence hands out ids in call order but transactions commit in any order: instance A takes
 * id 7, instance B takes 8 and commits first, a reader pages past 8 — and A's 7, committed a
 * moment later, lies behind the reader's cursor for ever. Here every batch takes its ids with
 * `UPDATE pet_id_counter … RETURNING`, whose row lock is held until COMMIT: the next batch, from
 * any instance, blocks on that row until this one has committed (and is visible — PostgreSQL
 * makes a commit visible before it releases the transaction's locks), and only then gets higher
 * ids. So ids become visible in increasing order, and a cursor never skips one. A batch that rolls
 * back also rolls back its counter update: its ids were never shown to anyone and are reused.
 * The price is that creates from all instances commit one batch at a time — batching is what
 * keeps that fast.
 *
 * Idempotency-Key across instances. A key is "in flight" while some transaction is writing it:
 * each batch takes `pg_try_advisory_xact_lock(hash(scope, key))` for its keys, which fails at
 * once (→ 409) when another instance's open transaction holds it, and is released at that
 * transaction's end. Holding the lock, the batch looks the key up: a committed key replays its pet
 * (or is 422 for another body). The unique index on (scope, key) stays as the last line of defence.
 */
import { keyId } from "../idempotency.ts";
import { petJson } from "../pet_json.ts";
import type { NewPet } from "../../schemas/pet.ts";
import {
  type CreateOutcome,
  ID_SPACE_EXHAUSTED,
  type IdempotencyClaim,
  MAX_PET_ID,
  type PendingCreate,
} from "../store.ts";
import type { Sql, Transaction } from "./connect.ts";
import { insertPets, type PetInsert, type PetRow, storedPetOf } from "./pet_rows.ts";

/** Most pets in one transaction: bounds the statement size and the time a batch holds the lock. */
const MAX_BATCH = 256;

/** Queues creates and commits them in batches, one transaction at a time per instance. */
export class CreateBatches {
  readonly #sql: Sql;
  readonly #onFailure: (error: unknown) => void;
  #queue: PendingCreate[] = [];
  /** Keys queued or being written by this instance (other instances: the advisory lock). */
  readonly #keysInFlight = new Set<string>();
  #draining: Promise<void> | undefined;

  /** `onFailure` hears of each transaction that failed. */
  constructor(sql: Sql, onFailure: (error: unknown) => void) {
    this.#sql = sql;
    this.#onFailure = onFailure;
  }

  /** Resolves once the pet is committed (or with why not); never rejects. */
  create(pet: NewPet, claim: IdempotencyClaim | undefined): Promise<CreateOutcome> {
    if (claim !== undefined) {
      const id = keyId(claim);
      if (this.#keysInFlight.has(id)) return Promise.resolve({ kind: "key_in_flight" });
      this.#keysInFlight.add(id);
    }
    return new Promise((resolve) => {
      this.#queue.push({ pet, claim, resolve });
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves once every queued create has been answered. */
  async idle(): Promise<void> {
    while (this.#draining !== undefined) await this.#draining;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        const outcomes = await this.#sql.begin((tx) => writeBatch(tx, batch)).catch((error) => {
          this.#onFailure(error);
          // Nothing of the batch was committed (or, if the connection died during COMMIT, it may
          // have been: the client is told 503, and a retry with its Idempotency-Key finds the pet).
          const reason = "the database did not commit the transaction";
          return batch.map((): CreateOutcome => ({ kind: "unavailable", reason }));
        });
        for (let i = 0; i < batch.length; i++) {
          if (batch[i].claim !== undefined) this.#keysInFlight.delete(keyId(batch[i].claim!));
          batch[i].resolve(outcomes[i]);
        }
      }
    } finally {
      this.#draining = undefined;
    }
  }
}

/** The steps of one batch's transaction, numbered as they run. */
async function writeBatch(
  tx: Transaction,
  batch: readonly PendingCreate[],
): Promise<CreateOutcome[]> {
  const outcomes: (CreateOutcome | undefined)[] = new Array(batch.length).fill(undefined);
  const claimed = batch.flatMap((create, index) => create.claim === undefined ? [] : [index]);

  if (claimed.length > 0) {
    // 1. Lock each key for this transaction; a key another transaction holds is in flight.
    const names = claimed.map((index) => keyId(batch[index].claim!));
    const locks = await tx<{ locked: boolean }[]>`
      SELECT pg_try_advisory_xact_lock(hashtextextended(name, 0)) AS locked
      FROM unnest(${names}::text[]) WITH ORDINALITY AS t(name, position)
      ORDER BY position`;
    claimed.forEach((index, i) => {
      if (!locks[i].locked) outcomes[index] = { kind: "key_in_flight" };
    });
    // 2. Keys already committed: the same body replays the pet, another body is refused.
    const lookup = claimed.filter((index) => outcomes[index] === undefined);
    if (lookup.length > 0) {
      const rows = await tx<(PetRow & { position: string; digest: string })[]>`
        SELECT p.id, p.name, p.category_id, p.status, p.idempotency_digest AS digest, t.position
        FROM unnest(${lookup.map((i) => batch[i].claim!.scope)}::text[],
                    ${lookup.map((i) => batch[i].claim!.key)}::text[])
             WITH ORDINALITY AS t(scope, key, position)
        JOIN pets p ON p.idempotency_scope = t.scope AND p.idempotency_key = t.key`;
      for (const row of rows) {
        const index = lookup[Number(row.position) - 1];
        outcomes[index] = row.digest === batch[index].claim!.digest
          ? { kind: "replayed", pet: storedPetOf(row) }
          : { kind: "key_reused" };
      }
    }
  }

  const fresh = batch.flatMap((_, index) => outcomes[index] === undefined ? [index] : []);
  if (fresh.length === 0) return outcomes as CreateOutcome[];

  // 3. Take ids: the counter row's lock orders this batch after every batch that took ids
  //    before it, from any instance, until COMMIT (see the comment at the top). Ids stop at
  //    MAX_PET_ID, as in the file store (a backup of the pets must be a file that restores): the
  //    creates past it get none and are refused. `before` and `after` are int8 as text, so the
  //    counter never passes through a rounding number beyond it.
  const [counter] = await tx<{ before: string; after: string }[]>`
    WITH old AS (SELECT last_id FROM pet_id_counter FOR UPDATE)
    UPDATE pet_id_counter SET last_id = LEAST(old.last_id + ${fresh.length}, ${MAX_PET_ID}::bigint)
    FROM old RETURNING old.last_id AS before, pet_id_counter.last_id AS after`;
  const firstId = Number(counter.before) + 1;
  const given = Math.max(0, Number(BigInt(counter.after) - BigInt(counter.before)));
  for (const index of fresh.splice(given)) {
    outcomes[index] = { kind: "unavailable", reason: ID_SPACE_EXHAUSTED, idSpaceExhausted: true };
  }
  if (fresh.length === 0) return outcomes as CreateOutcome[];

  // 4. Insert the pets, one statement for the batch.
  const rows: PetInsert[] = fresh.map((index, i) => ({
    id: firstId + i,
    pet: batch[index].pet,
    claim: batch[index].claim,
  }));
  await insertPets(tx, rows);
  rows.forEach(({ id, pet }, i) => {
    outcomes[fresh[i]] = { kind: "created", pet: { id, json: petJson(id, pet) } };
  });
  // 5. COMMIT is sql.begin's: the promise resolves, and the 201s go out, only once it returns.
  return outcomes as CreateOutcome[];
}
