/**
 * The in-memory index of a store: every id in ascending order (a pet's place in that order is its
 * position, which the store's texts are kept by), and for each status the positions of its pets,
 * ascending. A page is found by binary search for the cursor plus a slice of at most `limit`
 * positions, so listing costs O(log n + limit) however many pets the store holds, and a page's
 * pets need no further lookup.
 *
 * Ids and positions live in growable Float64Arrays (8 bytes each, no per-pet object), which keeps
 * a million-pet index near 16 MB.
 */
import type { PetStatus } from "../schemas/pet.ts";

/** Ids of one page and whether a further matching id exists. */
export interface IdPage {
  readonly ids: number[];
  readonly hasMore: boolean;
}

/** Positions (in the all-ids order) of one page's pets, and whether a further match exists. */
export interface PositionPage {
  readonly positions: number[];
  readonly hasMore: boolean;
}

/** Ascending ids, and positions per status; ids must be added in increasing order. */
export class StatusIndex {
  readonly #all = new NumberList();
  /** Positions in `#all` of the pets with each status. */
  readonly #byStatus: Record<PetStatus, NumberList> = {
    available: new NumberList(),
    pending: new NumberList(),
    sold: new NumberList(),
  };

  /** Number of ids in the index. */
  get size(): number {
    return this.#all.length;
  }

  /** Number of ids with this status (`undefined` counts every id). */
  count(status: PetStatus | undefined): number {
    return status === undefined ? this.#all.length : this.#byStatus[status].length;
  }

  /** The id at this position in the all-ids order. */
  idAt(position: number): number {
    return this.#all.at(position);
  }

  /** Adds an id larger than every id already present; returns its position among all ids. */
  add(id: number, status: PetStatus | undefined): number {
    const position = this.#all.length;
    if (position > 0 && id <= this.#all.at(position - 1)) {
      throw new RangeError(`StatusIndex.add: id ${id} is not above the last id`);
    }
    this.#all.push(id);
    if (status !== undefined) this.#byStatus[status].push(position);
    return position;
  }

  /** Position of an id among all ids, or -1 when absent. */
  positionOf(id: number): number {
    const position = this.#all.firstAbove(id - 1);
    return position < this.#all.length && this.#all.at(position) === id ? position : -1;
  }

  /** Ids with the status (any status when undefined) strictly above `afterId`, at most `limit`. */
  page(status: PetStatus | undefined, afterId: number, limit: number): IdPage {
    const { positions, hasMore } = this.pagePositions(status, afterId, limit);
    return { ids: positions.map((position) => this.#all.at(position)), hasMore };
  }

  /** The same page as `page`, as positions: what the store reads the pets' texts by. */
  pagePositions(status: PetStatus | undefined, afterId: number, limit: number): PositionPage {
    // Position of the first id above the cursor, among all ids; ids and positions ascend together,
    // so a status list starts at its first position at or after that one.
    const first = this.#all.firstAbove(afterId);
    const positions: number[] = [];
    if (status === undefined) {
      const end = Math.min(this.#all.length, first + Math.max(0, limit));
      for (let position = first; position < end; position++) positions.push(position);
      return { positions, hasMore: end < this.#all.length };
    }
    const list = this.#byStatus[status];
    const start = list.firstAbove(first - 1);
    const end = Math.min(list.length, start + Math.max(0, limit));
    for (let i = start; i < end; i++) positions.push(list.at(i));
    return { positions, hasMore: end < list.length };
  }
}

/** A growable ascending array of numbers (ids, or positions). */
class NumberList {
  #ids = new Float64Array(1024);
  length = 0;

  at(index: number): number {
    return this.#ids[index];
  }

  push(id: number): void {
    if (this.length === this.#ids.length) {
      const larger = new Float64Array(this.#ids.length * 2);
      larger.set(this.#ids);
      this.#ids = larger;
    }
    this.#ids[this.length++] = id;
  }

  /** Index of the first id greater than `value` (binary search); `length` when none is. */
  firstAbove(value: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#ids[middle] <= value) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
