/**
 * The in-memory index of a store: all ids, and the ids of each status, ascending; a page is a
 * binary search plus a slice. Ids live in growable Float64Arrays, out of the garbage collector's way.
 */
import type { PetStatus } from "../schemas/pet.ts";

export class StatusIndex {
  readonly #all = new IdList();
  readonly #byStatus = { available: new IdList(), pending: new IdList(), sold: new IdList() };

  get size(): number {
    return this.#all.length;
  }

  count(status: PetStatus): number {
    return this.#byStatus[status].length;
  }

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
    if (status !== undefined) this.#byStatus[status].push(id);
    return position;
  }

  /** Position of an id among all ids, or -1 when absent. */
  positionOf(id: number): number {
    const position = this.#all.firstAbove(id - 1);
    return position < this.#all.length && this.#all.at(position) === id ? position : -1;
  }

  /** Ids with the status (any when undefined) above `afterId`, at most `limit`; and if more exist. */
  page(status: PetStatus | undefined, afterId: number, limit: number) {
    const list = status === undefined ? this.#all : this.#byStatus[status];
    const start = list.firstAbove(afterId);
    const end = Math.min(list.length, start + Math.max(0, limit));
    const ids: number[] = [];
    for (let i = start; i < end; i++) ids.push(list.at(i));
    return { ids, hasMore: end < list.length };
  }
}

class IdList {
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
