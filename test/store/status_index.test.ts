import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { StatusIndex } from "../../src/store/status_index.ts";

function indexOf(statuses: ("available" | "pending" | "sold" | undefined)[]): StatusIndex {
  const index = new StatusIndex();
  statuses.forEach((status, i) => index.add((i + 1) * 2, status)); // ids 2, 4, 6, … (gaps)
  return index;
}

describe("StatusIndex", () => {
  it("page() returns ids above afterId in ascending order, all statuses when none is given", () => {
    const index = indexOf(["sold", undefined, "available", "sold"]);
    assert.deepEqual(index.page(undefined, 0, 10), { ids: [2, 4, 6, 8], hasMore: false });
    assert.deepEqual(index.page(undefined, 3, 2), { ids: [4, 6], hasMore: true });
    assert.deepEqual(index.page(undefined, 4, 2), { ids: [6, 8], hasMore: false });
  });

  it("page() filters by status and says hasMore only when a further match exists", () => {
    const index = indexOf(["sold", "pending", "sold", "sold", "available"]);
    assert.deepEqual(index.page("sold", 0, 2), { ids: [2, 6], hasMore: true });
    assert.deepEqual(index.page("sold", 6, 1), { ids: [8], hasMore: false });
    assert.deepEqual(index.page("sold", 8, 5), { ids: [], hasMore: false });
    assert.deepEqual(index.page("pending", 0, 1), { ids: [4], hasMore: false });
  });

  it("positionOf() finds ids and reports absent ones as -1", () => {
    const index = indexOf(["sold", undefined, "pending"]);
    assert.equal(index.positionOf(2), 0);
    assert.equal(index.positionOf(6), 2);
    assert.equal(index.positionOf(3), -1);
    assert.equal(index.positionOf(7), -1);
    assert.equal(index.idAt(1), 4);
    assert.equal(index.count("sold"), 1);
    assert.equal(index.size, 3);
  });

  it("add() refuses an id that is not above the last one", () => {
    const index = indexOf(["sold"]);
    assert.throws(() => index.add(2, undefined), RangeError);
  });

  it("grows past its initial capacity", () => {
    const index = new StatusIndex();
    for (let id = 1; id <= 5000; id++) index.add(id, id % 2 === 0 ? "sold" : undefined);
    assert.deepEqual(index.page("sold", 4995, 10), { ids: [4996, 4998, 5000], hasMore: false });
    assert.equal(index.positionOf(4321), 4320);
  });
  it("pagePositions() gives the positions of page()'s ids, for every status, cursor and limit", () => {
    const index = new StatusIndex();
    const statuses = ["available", "pending", "sold", undefined] as const;
    const all: { id: number; status: (typeof statuses)[number] }[] = [];
    let id = 0;
    for (let i = 0; i < 300; i++) {
      id += 1 + (i * 7919) % 5; // gaps between ids, as after failed batches
      const status = statuses[(i * 31) % 4];
      all.push({ id, status });
      index.add(id, status);
    }
    for (const status of statuses) {
      const matching = all.filter((pet) => status === undefined || pet.status === status);
      for (const afterId of [0, 1, 2, 50, 333, id - 1, id, id + 5]) {
        for (const limit of [1, 7, 20, 100]) {
          const expected = matching.filter((pet) => pet.id > afterId);
          const page = index.pagePositions(status, afterId, limit);
          assert.deepEqual(
            page.positions.map((position) => index.idAt(position)),
            expected.slice(0, limit).map((pet) => pet.id),
          );
          assert.equal(page.hasMore, expected.length > limit);
          assert.deepEqual(
            index.page(status, afterId, limit).ids,
            expected.slice(0, limit).map((pet) => pet.id),
          );
        }
      }
    }
  });
});
