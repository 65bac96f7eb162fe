/**
 * Creates on PostgreSQL, several instances writing one table, in batches (group_commit.ts): one
 * transaction and one WAL flush for many pets; a batch without Idempotency-Keys is one statement
 * that is a transaction by itself (TAKE_IDS_AND_INSERT), one round trip instead of four.
 *
 * Ids come from a counter row, not a sequence: paging (`WHERE id > $cursor`) must see every pet
 * once, and with a sequence A takes 7, B takes 8 and commits first, a reader pages past 8, and A's
 * 7 lies behind its cursor for ever. The row's lock is held until its transaction commits (and is
 * visible: a commit is visible before its locks are released), so ids become visible in order.
 * One batch in flight per instance: a second one waiting for the counter would halve the batches.
 *
 * Idempotency-Key across instances: `pg_try_advisory_xact_lock(hash(scope, key))` fails at once
 * (409) while another transaction holds the key; holding it, the batch looks the key up (replay,
 * or 422). The unique index on (scope, key) is the last line of defence.
 *
 * Deadlines (database.ts): a create still queued past its deadline leaves unsaved (503); a batch
 * has its oldest create's deadline. A transaction cut off before COMMIT was sent committed
 * nothing; one whose COMMIT (or keyless statement) got no answer may have, and its creates are
 * told so.
 */
import type { NewPet } from "../../schemas/pet.ts";
import { type Committed, GroupCommit } from "../group_commit.ts";
import {
  type CreateOutcome,
  ID_SPACE_EXHAUSTED,
  type IdempotencyClaim,
  keyId,
  MAX_PET_ID,
  type PendingCreate,
  petJson,
} from "../store.ts";
import { errorCodeOf } from "../../observe/error_code.ts";
import type { Database, Queryable } from "./database.ts";
import { TIMELINE_ID_SPAN } from "./failover.ts";
import { type PetRow, storedPetOf } from "./schema.ts";

/** Why a create is refused at the end of a timeline's range (failover.ts). */
const TIMELINE_RANGE_USED_UP =
  `the database timeline's ${TIMELINE_ID_SPAN} ids are used up; ids go on after the next promotion of a standby; nothing was saved`;

/** Most pets in one transaction: bounds the statement size and the time a batch holds the lock. */
const MAX_BATCH = 256;

type QueuedCreate = PendingCreate & { readonly deadline: number | undefined };

export class CreateBatches {
  readonly #db: Database;
  readonly #onFailure: (error: unknown) => void;
  readonly #onCreated: (firstId: number, lastId: number) => void;
  readonly #commits: GroupCommit<QueuedCreate>;
  /** For the queue's head only: deadlines are a fixed time after arrival, so it expires first. */
  #expiry: ReturnType<typeof setTimeout> | undefined;
  /** Keys queued or being written by this instance (other instances: the advisory lock). */
  readonly #keysInFlight = new Set<string>();

  /** `onCreated` hears of each committed batch's (consecutive) new ids before their 201s. */
  constructor(
    database: Database,
    onFailure: (error: unknown) => void,
    onCreated: (firstId: number, lastId: number) => void,
  ) {
    this.#db = database;
    this.#onFailure = onFailure;
    this.#onCreated = onCreated;
    this.#commits = new GroupCommit({
      maxBatch: MAX_BATCH,
      commit: (batch) => this.#commitBatch(batch),
      onError: onFailure,
    });
  }

  /** Never rejects. */
  create(pet: NewPet, claim: IdempotencyClaim | undefined): Promise<CreateOutcome> {
    if (claim !== undefined) {
      const id = keyId(claim);
      if (this.#keysInFlight.has(id)) return Promise.resolve({ kind: "key_in_flight" });
      this.#keysInFlight.add(id);
    }
    return new Promise((resolve) => {
      this.#commits.add({ pet, claim, resolve, deadline: this.#db.deadline() });
      this.#armExpiry();
    });
  }

  idle(): Promise<void> {
    return this.#commits.idle();
  }

  #armExpiry(): void {
    const deadline = this.#commits.queue[0]?.deadline;
    if (this.#expiry !== undefined || deadline === undefined) return;
    this.#expiry = setTimeout(() => {
      this.#expiry = undefined;
      // Queued creates past their deadline (behind a transaction that hangs) leave unsaved.
      const now = performance.now();
      const queue = this.#commits.queue;
      let due = 0;
      while (due < queue.length && queue[due].deadline! <= now) due++;
      for (const create of queue.splice(0, due)) {
        this.#answer(create, {
          kind: "unavailable",
          reason: "the database did not answer in time; nothing was saved",
        });
      }
      this.#armExpiry();
    }, deadline - performance.now());
  }

  #answer(create: PendingCreate, outcome: CreateOutcome): void {
    if (create.claim !== undefined) this.#keysInFlight.delete(keyId(create.claim));
    create.resolve(outcome);
  }

  async #commitBatch(batch: QueuedCreate[]): Promise<Committed> {
    // The timer was for the head that left: now for the new head, or none (none holds a close).
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
    this.#armExpiry();
    const started = performance.now();
    let failed = false;
    // Without keys, one statement; with keys, BEGIN, their locks, their lookup, it, COMMIT.
    const deadline = batch[0].deadline;
    const writing = batch.every((create) => create.claim === undefined)
      ? insertWithIds(
        { query: (text, values) => this.#db.query(text, values, deadline, true) },
        batch,
      )
      : this.#db.transaction((tx) => writeKeyedBatch(tx, batch), { deadline });
    const outcomes = await writing.catch((error) => {
      failed = true;
      this.#onFailure(error);
      const outcome: CreateOutcome = errorCodeOf(error) === "COMMIT_UNCONFIRMED"
        ? {
          kind: "unavailable",
          reason: "the database connection was lost before the commit was confirmed",
          outcomeUnknown: "commit_unconfirmed",
        }
        : { kind: "unavailable", reason: "the database did not commit the transaction" };
      return batch.map(() => outcome);
    });
    // The transaction's time counts its wait for the counter's lock.
    const committed = failed
      ? undefined
      : { ms: performance.now() - started, queued: this.#commits.queue.length };
    const ids = outcomes.flatMap((outcome) => outcome.kind === "created" ? [outcome.pet.id] : []);
    if (ids.length > 0) this.#onCreated(ids[0], ids[ids.length - 1]);
    batch.forEach((create, i) => this.#answer(create, outcomes[i]));
    return committed;
  }
}

async function writeKeyedBatch(
  tx: Queryable,
  batch: readonly PendingCreate[],
): Promise<CreateOutcome[]> {
  const outcomes: (CreateOutcome | undefined)[] = new Array(batch.length).fill(undefined);
  const claimed = batch.flatMap((create, index) => create.claim === undefined ? [] : [index]);

  // 1. Lock each key for this transaction; a key another transaction holds is in flight.
  const names = claimed.map((index) => keyId(batch[index].claim!));
  const locks = await tx.query<{ locked: boolean }>(
    `SELECT pg_try_advisory_xact_lock(hashtextextended(name, 0)) AS locked
     FROM unnest($1::text[]) WITH ORDINALITY AS t(name, position)
     ORDER BY position`,
    [names],
  );
  claimed.forEach((index, i) => {
    if (!locks[i].locked) outcomes[index] = { kind: "key_in_flight" };
  });
  // 2. Keys already committed: the same body replays the pet, another body is refused. A
  //    statement of its own, after the locks: its snapshot sees every transaction that held one
  //    of them and committed (a commit is visible before its locks are released).
  const lookup = claimed.filter((index) => outcomes[index] === undefined);
  if (lookup.length > 0) {
    const rows = await tx.query<PetRow & { position: string; digest: string }>(
      `SELECT p.id, p.name, p.category_id, p.status, p.idempotency_digest AS digest, t.position
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(scope, key, position)
       JOIN pets p ON p.idempotency_scope = t.scope AND p.idempotency_key = t.key`,
      [lookup.map((i) => batch[i].claim!.scope), lookup.map((i) => batch[i].claim!.key)],
    );
    for (const row of rows) {
      const index = lookup[Number(row.position) - 1];
      outcomes[index] = row.digest === batch[index].claim!.digest
        ? { kind: "replayed", pet: storedPetOf(row) }
        : { kind: "key_reused" };
    }
  }

  // 3. Ids and the insert for the rest; 4. COMMIT is the transaction's: the promise resolves,
  //    and the 201s go out, only once it returns.
  const fresh = batch.flatMap((_, index) => outcomes[index] === undefined ? [index] : []);
  if (fresh.length === 0) return outcomes as CreateOutcome[];
  const inserted = await insertWithIds(tx, fresh.map((index) => batch[index]));
  fresh.forEach((index, i) => (outcomes[index] = inserted[i]));
  return outcomes as CreateOutcome[];
}

/**
 * Takes ids from the counter row (its lock orders the batches) and inserts the pets. Ids stop at
 * MAX_PET_ID (a backup must restore) and at the end of the timeline's range (failover.ts);
 * `before` and `after` come as int8 text. The `LIMIT 1`s tell the planner of an unanalysed table
 * that the counter has one row, else it compiles with JIT (docs/performance.md).
 */
const TAKE_IDS_AND_INSERT = `
  WITH old AS (SELECT last_id, range_start FROM pet_id_counter LIMIT 1 FOR UPDATE),
  counter AS (
    UPDATE pet_id_counter
    SET last_id = LEAST(old.last_id + $1, $2::bigint, old.range_start + ${TIMELINE_ID_SPAN})
    FROM old RETURNING old.last_id AS before, pet_id_counter.last_id AS after
  ),
  inserted AS (
    INSERT INTO pets (id, name, category_id, status,
                      idempotency_scope, idempotency_key, idempotency_digest)
    SELECT c.before + t.position, t.name, t.category_id, t.status, t.scope, t.key, t.digest
    FROM (SELECT before, after FROM counter LIMIT 1) c,
      unnest($3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[])
        WITH ORDINALITY AS t(name, category_id, status, scope, key, digest, position)
    WHERE t.position <= c.after - c.before
  )
  SELECT before, after FROM counter`;

/** On `tx`, or as a transaction by itself; the creates past the last id are refused. */
async function insertWithIds(
  tx: Queryable,
  creates: readonly PendingCreate[],
): Promise<CreateOutcome[]> {
  const [counter] = await tx.query<{ before: string; after: string }>(TAKE_IDS_AND_INSERT, [
    creates.length,
    String(MAX_PET_ID),
    creates.map(({ pet }) => pet.name),
    creates.map(({ pet }) => String(pet.categoryId)),
    creates.map(({ pet }) => pet.status ?? null),
    creates.map(({ claim }) => claim?.scope ?? null),
    creates.map(({ claim }) => claim?.key ?? null),
    creates.map(({ claim }) => claim?.digest ?? null),
  ]);
  const firstId = Number(counter.before) + 1;
  const given = Math.max(0, Number(BigInt(counter.after) - BigInt(counter.before)));
  // Short of the ceiling, only the timeline's range can have stopped the ids.
  const refused: CreateOutcome = Number(counter.after) === MAX_PET_ID
    ? { kind: "unavailable", reason: ID_SPACE_EXHAUSTED, idSpaceExhausted: true }
    : { kind: "unavailable", reason: TIMELINE_RANGE_USED_UP };
  return creates.map(({ pet }, i): CreateOutcome =>
    i < given
      ? { kind: "created", pet: { id: firstId + i, json: petJson(firstId + i, pet) } }
      : refused
  );
}
