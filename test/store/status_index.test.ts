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
});
