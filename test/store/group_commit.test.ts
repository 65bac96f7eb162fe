/**
 * The wait of a group commit for the callers of its last batch (src/store/group_commit.ts):
 * when it is made, how long it may be, and what ends it. The stores' own tests show the batches
 * it makes (test/store/writer.test.ts, create_batches.test.ts).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  BatchGathering,
  GroupCommit,
  MAX_BATCHES_WITHOUT_WAIT,
  nextBatch,
} from "../../src/store/group_commit.ts";

/** Milliseconds `promise` took to settle. */
async function timed(promise: Promise<void>): Promise<number> {
  const started = performance.now();
  await promise;
  return performance.now() - started;
}

/**
 * Asks for a wait for 64 creates, of `ms`, that no arrival ends: true when one was made, false
 * when the batch went at once. Told apart by state, not by the clock: a batch that goes at once
 * gets a promise already resolved, one that waits gets one its timer resolves.
 */
async function waitMade(gathering: BatchGathering, ms = 5): Promise<boolean> {
  let settled = false;
  const wait = gathering.wait({ entries: 64, ms }, 1).then(() => {
    settled = true;
  });
  await Promise.resolve();
  await Promise.resolve();
  const made = !settled;
  await wait;
  return made;
}

const commit = (ms: number, size: number, queued: number) => ({ ms, size, queued, maxBatch: 1024 });

describe("nextBatch", () => {
  it("waits for everyone who was in the batch or queued behind it, for a quarter of the commit", () => {
    assert.deepEqual(nextBatch(commit(200, 40, 24)), { entries: 64, ms: 50 });
  });

  it("waits for no more than a batch holds", () => {
    assert.equal(nextBatch(commit(200, 1000, 500))?.entries, 1024);
  });

  it("passes at most 100 ms of a stalled commit on", () => {
    assert.equal(nextBatch(commit(60_000, 1, 0))?.ms, 100);
  });

  it("after a quick commit, waits only when five creates or more were in the batch or behind it", () => {
    assert.equal(nextBatch(commit(0.2, 3, 1)), undefined, "a few go at once");
    assert.deepEqual(nextBatch(commit(0.2, 3, 2)), { entries: 5, ms: 0.05 });
    assert.deepEqual(nextBatch(commit(0.4, 32, 32)), { entries: 64, ms: 0.1 });
  });

  it("after a slow commit, waits for a lone create too", () => {
    assert.deepEqual(nextBatch(commit(4, 1, 0)), { entries: 1, ms: 1 });
  });
});

describe("BatchGathering", () => {
  it("ends the wait as soon as the queue holds the entries it waits for", async () => {
    const gathering = new BatchGathering();
    const wait = gathering.wait({ entries: 3, ms: 5_000 }, 1);
    setTimeout(() => gathering.arrived(2), 5);
    setTimeout(() => gathering.arrived(3), 10);
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
  });

  it("ends the wait in progress when a close begins, and makes none until it is over", async () => {
    const gathering = new BatchGathering();
    const wait = gathering.wait({ entries: 64, ms: 5_000 }, 1);
    let madeDuringClose: boolean | undefined;
    await gathering.withoutWaits(async () => {
      assert.ok(await timed(wait) < 1_000, "the wait in progress ended");
      madeDuringClose = await waitMade(gathering);
    });
    assert.equal(madeDuringClose, false, "no wait while the close runs");
    assert.equal(await waitMade(gathering), true, "waits again once it is over");
  });

  it("after waits that time ran out, lets 1, 2, 4 … batches go without one", async () => {
    const gathering = new BatchGathering();
    const made: boolean[] = [];
    for (let i = 0; i < 10; i++) made.push(await waitMade(gathering));
    // Made, 1 skipped, made, 2 skipped, made, 4 skipped: clients that pause between creates pay
    // for a wait that brings no one ever more rarely.
    assert.deepEqual(made, [true, false, true, false, false, true, false, false, false, false]);
  });

  it("waits after every batch again once the callers came back", async () => {
    const gathering = new BatchGathering();
    assert.equal(await waitMade(gathering), true);
    assert.equal(await waitMade(gathering), false, "one batch goes without a wait");
    // Now the callers come back: the wait they end resets the count.
    const wait = gathering.wait({ entries: 2, ms: 5_000 }, 1);
    gathering.arrived(2);
    await wait;
    assert.equal(await waitMade(gathering), true);
    assert.equal(await waitMade(gathering), false);
    // Callers already back when the batch is answered start the count again too: after the next
    // wait that times out, one batch goes without a wait, not two.
    await gathering.wait({ entries: 2, ms: 5_000 }, 2);
    assert.deepEqual(
      [await waitMade(gathering), await waitMade(gathering), await waitMade(gathering)],
      [true, false, true],
    );
  });

  it("lets at most MAX_BATCHES_WITHOUT_WAIT batches go without a wait", async () => {
    const gathering = new BatchGathering();
    let longest = 0;
    for (let made = 0; made < 9;) {
      let skipped = 0;
      while (!(await waitMade(gathering, 1))) skipped++;
      made++;
      longest = Math.max(longest, skipped);
    }
    assert.equal(longest, MAX_BATCHES_WITHOUT_WAIT);
  });
});

describe("GroupCommit", () => {
  /** A loop whose commits take `ms` and succeed unless `fail` says; records each batch. */
  function loop(ms: number, fail = (_batch: number[]) => false) {
    const batches: number[][] = [];
    const commits: GroupCommit<number> = new GroupCommit<number>({
      maxBatch: 3,
      commit: async (batch) => {
        batches.push(batch);
        const queued = commits.queue.length;
        await new Promise((resolve) => setTimeout(resolve, ms));
        return fail(batch) ? undefined : { ms, queued };
      },
      onError: (error) => assert.fail(String(error)),
    });
    return { commits, batches };
  }

  it("add() in one turn shares the first batch, up to maxBatch, in queue order", async () => {
    const { commits, batches } = loop(1);
    for (let i = 1; i <= 5; i++) commits.add(i);
    await commits.idle();
    assert.deepEqual(batches, [[1, 2, 3], [4, 5]]);
  });

  it("waits after a commit for its callers, but not after a failed one", async () => {
    for (const failed of [false, true]) {
      // A commit of 200 ms, 3 in the batch and 2 behind it: a wait of 50 ms for 3 queued.
      let startedAtOnce: boolean | undefined;
      const batches: number[][] = [];
      const commits: GroupCommit<number> = new GroupCommit<number>({
        maxBatch: 3,
        commit: async (batch) => {
          batches.push(batch);
          const queued = commits.queue.length;
          await new Promise((resolve) => setTimeout(resolve, 200));
          // Fires after the loop's microtasks: has the next batch started without a wait?
          if (batches.length === 1) setTimeout(() => (startedAtOnce = batches.length === 2), 0);
          return failed ? undefined : { ms: 200, queued };
        },
        onError: (error) => assert.fail(String(error)),
      });
      for (let i = 0; i < 5; i++) commits.add(i);
      while (batches.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      await commits.idle();
      assert.equal(startedAtOnce, failed, failed ? "no wait after a failure" : "a wait");
    }
  });

  it("idle() ends the wait for callers at once, and makes none until the queue is drained", async () => {
    let startedAtOnce: boolean | undefined;
    const batches: number[][] = [];
    const commits: GroupCommit<number> = new GroupCommit<number>({
      maxBatch: 3,
      commit: async (batch) => {
        batches.push(batch);
        const queued = commits.queue.length;
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (batches.length === 1) setTimeout(() => (startedAtOnce = batches.length === 2), 0);
        return { ms: 200, queued };
      },
      onError: (error) => assert.fail(String(error)),
    });
    for (let i = 0; i < 5; i++) commits.add(i);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await commits.idle();
    assert.equal(batches.length, 2);
    assert.equal(startedAtOnce, true, "no wait once idle() was called");
  });
});
