/**
 * The wait of a group commit for the callers of its last batch (src/store/batch_gathering.ts):
 * how long it may be, and what ends it. The stores' own tests show the batches it makes.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BatchGathering, type GatherPolicy, nextBatch } from "../../src/store/batch_gathering.ts";

const POLICY: GatherPolicy = { shareOfCommit: 1 / 4, minMs: 1, maxMs: 100 };

/** Milliseconds `promise` took to settle. */
async function timed(promise: Promise<void>): Promise<number> {
  const started = performance.now();
  await promise;
  return performance.now() - started;
}

describe("nextBatch", () => {
  it("waits for everyone who was in the batch or queued behind it, for a share of the commit", () => {
    assert.deepEqual(nextBatch(POLICY, 200, 40, 24, 1024), { entries: 64, ms: 50 });
  });

  it("waits for no more than a batch holds", () => {
    assert.equal(nextBatch(POLICY, 200, 1000, 500, 1024)?.entries, 1024);
  });

  it("passes no more than its maximum of a stalled commit on", () => {
    assert.equal(nextBatch(POLICY, 60_000, 1, 0, 1024)?.ms, 100);
  });

  it("does not wait after a commit quicker than its minimum allows", () => {
    assert.equal(nextBatch(POLICY, 3.9, 64, 0, 1024), undefined);
    assert.notEqual(nextBatch({ ...POLICY, minMs: 0 }, 0.4, 64, 0, 1024), undefined);
  });
});

describe("BatchGathering", () => {
  it("ends the wait as soon as the queue holds the entries it waits for", async () => {
    const gathering = new BatchGathering();
    const wait = gathering.wait({ entries: 3, ms: 5_000 }, 1);
    setTimeout(() => gathering.queued(2), 5);
    setTimeout(() => gathering.queued(3), 10);
    const waited = await timed(wait);
    assert.ok(waited < 1_000, `waited ${waited.toFixed(1)} ms for 3 entries`);
  });

  it("does not wait when the queue already holds them, nor when told not to wait", async () => {
    const gathering = new BatchGathering();
    assert.ok(await timed(gathering.wait({ entries: 3, ms: 5_000 }, 3)) < 50);
    assert.ok(await timed(gathering.wait(undefined, 0)) < 50);
  });

  it("ends the wait after its time when the callers do not come back", async () => {
    const gathering = new BatchGathering();
    const waited = await timed(gathering.wait({ entries: 64, ms: 40 }, 1));
    assert.ok(waited >= 35 && waited < 1_000, `waited ${waited.toFixed(1)} ms of 40`);
    // The count of the finished wait no longer ends anything: a later wait keeps its own.
    gathering.queued(64);
    assert.ok(await timed(gathering.wait({ entries: 64, ms: 40 }, 1)) >= 35);
  });

  it("ends the wait at once on stop (a close brings no more creates)", async () => {
    const gathering = new BatchGathering();
    const wait = gathering.wait({ entries: 64, ms: 5_000 }, 1);
    setTimeout(() => gathering.stop(), 5);
    const waited = await timed(wait);
    assert.ok(waited < 1_000, `waited ${waited.toFixed(1)} ms after stop`);
  });
});
