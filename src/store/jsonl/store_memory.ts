/**
 * Everything the JSON-lines store holds in memory, with one owner: the pets' texts, the status
 * index and the idempotency keys. Replay fills it at open; after that it changes only through
 * `claim` (a key enters flight), `publish` (a durable batch becomes visible) and `release` (a
 * failed create lets its key go). The writer never touches it: it only takes arena space here to
 * encode a batch, and reports when the batch is durable.
 */
import type { PetStatus } from "../../schemas/pet.ts";
import type { PendingCreate } from "../pending_create.ts";
import { StatusIndex } from "../status_index.ts";
import type { IdempotencyClaim, PageQuery, PetCounts, PetPageJson, StoredPet } from "../store.ts";
import { IdempotencyKeys, type KeyDecision } from "./idempotency_keys.ts";
import { PetTexts, type Reservation } from "./pet_texts.ts";

/** Arena space a batch is encoded into (see `PetTexts.reserve`). */
export interface BatchSpace {
  reserve(size: number): Reservation;
  commit(size: number): void;
}

/** A batch whose lines are durable, as the writer reports it. */
export interface DurableBatch {
  readonly entries: readonly PendingCreate[];
  readonly firstId: number;
  readonly petTexts: readonly string[];
  /** The arena segment the batch was encoded into. */
  readonly segment: number;
  /** Start and end of each pet's text in the segment, two numbers per pet. */
  readonly spans: readonly number[];
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/** The store's pets and keys in memory; reads never touch the disk. */
export class StoreMemory implements BatchSpace {
  readonly #texts = new PetTexts();
  readonly #index = new StatusIndex();
  readonly #keys = new IdempotencyKeys();

  /** Number of durable pets. */
  get size(): number {
    return this.#index.size;
  }

  /** Replay: keeps a chunk of file bytes; returns its segment number for `addPet`. */
  addSegment(bytes: Uint8Array): number {
    return this.#texts.addSegment(bytes);
  }

  /** Replay: swaps a segment for a copy with the same bytes where its pets lie. */
  replaceSegment(segment: number, bytes: Uint8Array): void {
    this.#texts.replaceSegment(segment, bytes);
  }

  /**
   * Adds a durable pet whose text is bytes [start, end) of a segment; ids must ascend. Positional
   * arguments, no options object: replay calls it once per pet of the file.
   */
  addPet(
    segment: number,
    start: number,
    end: number,
    id: number,
    status: PetStatus | undefined,
    claim: IdempotencyClaim | undefined,
  ): void {
    this.#texts.add(segment, start, end);
    const position = this.#index.add(id, status);
    if (claim !== undefined) this.#keys.addDurable(claim, position);
  }

  /** Decides a create with a key; a "new" claim stays in flight until `publish` or `release`. */
  claim(claim: IdempotencyClaim): KeyDecision {
    return this.#keys.claim(claim);
  }

  /** Makes a durable batch visible to reads and ends its claims; returns its pets. */
  publish(batch: DurableBatch): StoredPet[] {
    return batch.entries.map((entry, i) => {
      const id = batch.firstId + i;
      const status = entry.pet.status;
      const [start, end] = [batch.spans[2 * i], batch.spans[2 * i + 1]];
      this.addPet(batch.segment, start, end, id, status, entry.claim);
      if (entry.claim !== undefined) this.#keys.release(entry.claim);
      return { id, status, json: batch.petTexts[i] };
    });
  }

  /** Ends the in-flight mark of a claim whose create failed. */
  release(claim: IdempotencyClaim): void {
    this.#keys.release(claim);
  }

  /** See `PetTexts.reserve`. */
  reserve(size: number): Reservation {
    return this.#texts.reserve(size);
  }

  /** See `PetTexts.commit`. */
  commit(size: number): void {
    this.#texts.commit(size);
  }

  /** The pet at a position among all ids. */
  petAt(position: number): StoredPet {
    const json = this.#texts.text(position);
    return { id: this.#index.idAt(position), status: statusOf(json), json };
  }

  /** The pet with this id, or undefined. */
  get(id: number): StoredPet | undefined {
    const position = this.#index.positionOf(id);
    return position < 0 ? undefined : this.petAt(position);
  }

  /** One page in ascending id order. */
  list(query: PageQuery): { pets: StoredPet[]; hasMore: boolean } {
    const page = this.#index.page(query.status, query.afterId, query.limit);
    const pets = page.ids.map((id) => this.petAt(this.#index.positionOf(id)));
    return { pets, hasMore: page.hasMore };
  }

  /** One page as the bytes of its JSON array, copied from the pets' stored UTF-8 text. */
  listJson(query: PageQuery): PetPageJson {
    const page = this.#index.page(query.status, query.afterId, query.limit);
    const count = page.ids.length;
    const positions = new Array<number>(count);
    // `[`, `]` and a comma between pets.
    let size = count === 0 ? 2 : count + 1;
    for (let i = 0; i < count; i++) {
      positions[i] = this.#index.positionOf(page.ids[i]);
      size += this.#texts.byteLength(positions[i]);
    }
    const body = new Uint8Array(size);
    body[0] = OPEN_BRACKET;
    let offset = 1;
    for (let i = 0; i < count; i++) {
      if (i > 0) body[offset++] = COMMA;
      offset = this.#texts.copyTo(positions[i], body, offset);
    }
    body[offset] = CLOSE_BRACKET;
    return {
      body,
      firstId: count === 0 ? 0 : page.ids[0],
      lastId: count === 0 ? 0 : page.ids[count - 1],
      count,
      hasMore: page.hasMore,
    };
  }

  /** Pets per status: a few reads, no scan. */
  counts(): PetCounts {
    const index = this.#index;
    const available = index.count("available");
    const pending = index.count("pending");
    const sold = index.count("sold");
    return { available, pending, sold, none: index.size - available - pending - sold };
  }

  /** Durable idempotency keys held. */
  get keyCount(): number {
    return this.#keys.size;
  }
}

/** The status is the last field of the pet text, when present. */
function statusOf(json: string): StoredPet["status"] {
  if (json.endsWith(`"available"}`)) return "available";
  if (json.endsWith(`"pending"}`)) return "pending";
  if (json.endsWith(`"sold"}`)) return "sold";
  return undefined;
}
